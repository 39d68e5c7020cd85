// TransactionEnds: where a writer waits, without polling, for another connection's transaction to end.
import Foundation

/// Announces the ends of transactions to the writers waiting for one, each up to its deadline.
///
/// A store counts the transactions that ended (under its own lock); a writer that finds another
/// connection's transaction open notes that count and waits here until a later one is announced.
/// Announcing after the store's lock is released cannot be missed: the count only grows, and a
/// waiter that arrives after the announcement returns at once.
///
/// `@unchecked Sendable`: `announced` is read and written only while `condition` is locked.
final class TransactionEnds: @unchecked Sendable {
    private let condition = NSCondition()
    private var announced: UInt64 = 0

    /// Wakes every waiter: transactions up to the `ended`th have ended.
    func announce(_ ended: UInt64) {
        condition.lock()
        announced = max(announced, ended)
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until a transaction end after the `seen`th is announced, or until `deadline`.
    ///
    /// - Returns: whether one was announced (false: the deadline passed first).
    @discardableResult
    func wait(past seen: UInt64, until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while announced <= seen {
            if !condition.wait(until: deadline) { return announced > seen }
        }
        return true
    }
}
