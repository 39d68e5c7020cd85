// Configuration: the options a database is opened with (pool size, migration policy, timeouts).

/// Options for opening a ``Database``.
public struct Configuration: Sendable {
    /// The most connections the pool opens; nil lets the driver choose.
    public var maxConnections: Int?
    /// What ``Database/migrate(_:)`` may change.
    public var migration: MigrationPolicy
    /// How long a connection waits for a lock (SQLite busy timeout) or to connect, in seconds.
    public var timeout: Double
    /// How long a call waits for a pooled connection before it throws ``StrataError/poolTimeout(seconds:)``,
    /// in seconds.
    public var poolTimeout: Double

    public init(
        maxConnections: Int? = nil, migration: MigrationPolicy = .automatic, timeout: Double = 5,
        poolTimeout: Double = 30
    ) {
        self.maxConnections = maxConnections
        self.migration = migration
        self.timeout = timeout
        self.poolTimeout = poolTimeout
    }
}

/// What automatic migration may do.
public enum MigrationPolicy: String, Sendable, Hashable {
    /// Create missing tables and indexes, add missing columns; never drop or change data.
    case automatic
    /// Change nothing; `migrate` only checks the schema and throws ``StrataError/schemaMismatch(table:missing:)``.
    case disabled
}
