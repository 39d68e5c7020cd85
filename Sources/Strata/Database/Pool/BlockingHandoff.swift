// BlockingHandoff: how the pool hands a lease (or an error) to a thread blocked in a synchronous call.
import Foundation

/// Where a released lease goes: a suspended task's continuation, a thread blocked in ``BlockingHandoff/wait(until:)``,
/// or a statement queued for the pool's ``StatementLoop``.
enum Handoff: Sendable {
    case task(UnsafeContinuation<Lease?, any Error>)
    case thread(BlockingHandoff)
    case statement(QueuedStatement)
    /// A call queued with its body, run on the connection handed over (``QueuedCall``).
    case call(QueuedCall)

    func resume(returning lease: Lease?) {
        switch self {
        case .task(let c): c.resume(returning: lease)
        case .thread(let h): h.set(.success(lease))
        case .statement(let q): q.handed(lease)
        case .call(let q): q.handed(lease)
        }
    }

    func resume(throwing error: any Error) {
        switch self {
        case .task(let c): c.resume(throwing: error)
        case .thread(let h): h.set(.failure(error))
        case .statement(let q): q.continuation.resume(throwing: error)
        case .call(let q): q.fail(error)
        }
    }
}

/// A one-shot slot a blocked thread waits on until the pool fills it.
///
/// `@unchecked Sendable`: `outcome` is read and written only while `condition` is locked.
final class BlockingHandoff: @unchecked Sendable {
    private let condition = NSCondition()
    private var outcome: Result<Lease?, any Error>?

    /// Fills the slot (the first outcome wins) and wakes the waiting thread.
    func set(_ result: Result<Lease?, any Error>) {
        condition.lock()
        if outcome == nil { outcome = result }
        condition.signal()
        condition.unlock()
    }

    /// Blocks until the slot is filled or `deadline` passes; returns whether it was filled.
    func wait(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while outcome == nil { if !condition.wait(until: deadline) { break } }
        return outcome != nil
    }

    /// Blocks until the slot is filled (the pool fills it right after taking the waiter out of its queue), and
    /// returns the lease (nil: try again) or throws the error.
    func result() throws -> Lease? {
        condition.lock()
        while outcome == nil { condition.wait() }
        let filled = outcome
        condition.unlock()
        return try filled?.get() ?? nil
    }
}
