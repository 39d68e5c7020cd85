// PostgresSchemaEpoch: counts the schema changes this process made through PostgreSQL, so that every connection
// forgets the statements it prepared before one.
import Synchronization

/// How many times a PostgreSQL connection of this process ran a statement that changes a schema (`CREATE`, `ALTER`,
/// `DROP`, `COMMENT`, and the end of a transaction that ran one).
///
/// A statement prepared before a column's type changed fails on the server with "cached plan must not change
/// result type" (0A000). The connection that runs into it prepares it again when that is safe (in autocommit, or a
/// write in its own savepoint), but a read inside a transaction cannot be repeated: the transaction is aborted. So
/// each connection compares the epoch it prepared its statements at with this one before it uses a prepared
/// statement (one atomic load), and when the epoch moved it forgets them and prepares each again under a new name.
/// A migration step that changes a column's type and then reads the table, a pool whose other connections read the
/// table after a migration: both work.
///
/// A schema change made by another process is not seen here: its first read in a transaction fails once.
enum PostgresSchemaEpoch {
    private static let value = Atomic<Int>(0)

    /// The current epoch.
    static var current: Int { value.load(ordering: .acquiring) }

    /// Marks a schema change.
    static func bump() { value.add(1, ordering: .releasing) }
}
