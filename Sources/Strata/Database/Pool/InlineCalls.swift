// InlineCalls: how many lone calls run their bodies on cooperative threads at once, and when such calls yield.
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

    /// How many calls that ran on the caller's thread, without suspending, come between two yields.
    package static let yieldInterval: UInt = 64
    private static let unsuspended = Atomic<UInt>(0)

    /// Counts a call whose body ran on the caller's thread and returns true for every ``yieldInterval``-th one, across
    /// the process: that caller then yields (`Task.yield()`) once its connection is back in the pool.
    ///
    /// Such a call does not suspend (a free connection is taken without a wait, the body runs on the caller's thread),
    /// so a loop of them would hold its cooperative thread for as long as it loops: with one such loop per core
    /// (16 request handlers saving in a loop on the memory driver, say), no other task of the process would run
    /// again until they stop. A yield every 64 calls costs about one thread hop per 64 calls.
    static func yieldDue() -> Bool {
        unsuspended.wrappingAdd(1, ordering: .relaxed).newValue % yieldInterval == 0
    }
}

extension ConnectionPool {
    /// Gives back `lease` after a body that ran on the caller's thread, and every so often lets the other tasks run:
    /// such a call did not suspend (``InlineCalls/yieldDue()``).
    nonisolated(nonsending) func releaseInline(_ lease: Lease) async {
        release(lease)
        if InlineCalls.yieldDue() { await Task.yield() }
    }
}
