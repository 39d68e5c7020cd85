// MariaDBSchemaChanges: counts the schema changes made through one driver's connections, so caches of a table's
// shape (the unique keys an upsert checks) know when to look again.
import Synchronization

/// A count of the statements that may have changed a table's schema (DDL, a migration step, raw SQL that is not a
/// query, a row write or transaction control), shared by every connection of one ``MariaDBDriver``. A connection
/// that cached something about a table's schema at count N reads it again once the count has moved on. Changes made
/// by other processes are not counted (see the driver's README).
public final class MariaDBSchemaChanges: Sendable {
    private let count = Atomic<Int>(0)

    /// A count of its own: a connection opened without a driver.
    public init() {}

    /// The number of changes so far.
    var current: Int { count.load(ordering: .acquiring) }

    /// Counts one change (after the statement ran, or failed).
    func note() { count.add(1, ordering: .releasing) }
}
