// PostgresLoopCounters: how often the statement loop sent a statement, prepared a stale one again, started a thread.
import Synchronization

/// Process-wide counts of the PostgreSQL statement loop's work, for the tests that pin it (``PostgresStatementLoop``):
/// each is one relaxed atomic add at a point that already costs a system call or more.
package enum PostgresLoopCounters {
    /// Statements handed to a loop thread (a statement sent again after its cached plan went stale counts twice).
    package static let statements = Atomic<Int>(0)
    /// Statements whose cached plan went stale (a column's type changed), run again after a new PREPARE.
    package static let replans = Atomic<Int>(0)
    /// Loop threads started (a thread ends after ``PostgresLoopThread/idleLimit`` ms with nothing to do).
    package static let threadsStarted = Atomic<Int>(0)
    /// Loop threads running now.
    package static let threadsRunning = Atomic<Int>(0)
}
