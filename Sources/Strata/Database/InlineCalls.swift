// InlineCalls: how many lone calls run their bodies on cooperative threads at once, across the process.
import Foundation
import Synchronization

/// The lone calls (see ``Database/withConnection(_:)``) whose bodies run on the caller's cooperative thread right now,
/// across every database of the process, up to ``limit``. A lone call that finds the limit reached runs on its
/// connection's thread, as a contended call does.
///
/// A lone body that blocks (a SQLite busy wait on a lock another process holds, a PostgreSQL round trip) holds its
/// cooperative thread while it waits. Swift has one cooperative thread per core; with this limit, one core less, such
/// waits never hold them all however many databases wait at once, and a single database's lone calls still pay no
/// thread hop.
package enum InlineCalls {
    /// One less than the cooperative threads (one per core), and at least one.
    package static let limit = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
    private static let running = Atomic<Int>(0)

    /// Takes a slot, or returns false when all ``limit`` are taken.
    static func enter() -> Bool {
        var current = running.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = running.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiring)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives back a slot ``enter()`` took.
    static func leave() { running.subtract(1, ordering: .releasing) }
}
