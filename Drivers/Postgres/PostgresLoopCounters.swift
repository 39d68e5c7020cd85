// PostgresLoopCounters: how often the statement loop sent a statement, and how often it prepared a stale one again.
import Synchronization

/// Process-wide counts of the PostgreSQL statement loop's work, for the tests that pin it (``PostgresStatementLoop``):
/// each is one relaxed atomic add at a point that already costs a system call or more.
package enum PostgresLoopCounters {
    /// Statements a loop thread sent (a statement sent again after its cached plan went stale counts twice).
    package static let statements = Atomic<Int>(0)
    /// Of those, the ones sent behind others still in flight on the same connection (pipelined).
    package static let pipelined = Atomic<Int>(0)
    /// Statements whose cached plan went stale (a column's type changed), run again after a new PREPARE.
    package static let replans = Atomic<Int>(0)
    /// Groups sent (statements closed by one Sync): `statements / groups` is the mean group size.
    package static let groups = Atomic<Int>(0)
    /// Statements the server skipped for an earlier statement's error in their group, sent again alone.
    package static let resent = Atomic<Int>(0)
}
