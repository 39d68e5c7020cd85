// Configuration: the options a database is opened with (pool size, migration policy, timeouts, logging, metrics).
import Logging
import Metrics

/// Options for opening a ``Database``.
public struct Configuration: Sendable {
    /// The most connections the pool opens; nil lets the driver choose.
    public var maxConnections: Int?
    /// What ``Database/migrate(_:)->()`` may change.
    public var migration: MigrationPolicy
    /// How long a connection waits for a lock (SQLite busy timeout) or to connect, in seconds.
    public var timeout: Double
    /// How long a call waits for a pooled connection before it throws ``StrataError/poolTimeout(seconds:)``,
    /// in seconds.
    public var poolTimeout: Double
    /// Where the database logs: each statement (SQL, duration, rows, driver) at `.debug` (transaction control
    /// at `.trace`), a statement slower than ``slowStatementThreshold`` at `.warning`, connections opened,
    /// replaced and closed at `.info`/`.notice`, waits for a pooled connection at `.info`. The default logs
    /// nothing. The database adds `db.system` (the driver's name) to the logger's metadata.
    public var logger: Logger
    /// Whether statement logs show bound values; by default they show only how many there are, since
    /// values may hold personal data or secrets.
    public var logBoundValues: Bool
    /// A statement that takes this many seconds or longer is logged at `.warning` whatever the logger's
    /// level; nil (the default) never warns.
    public var slowStatementThreshold: Double?
    /// Where metrics go: statements counted and timed by kind, pool waits timed, connections in use as a
    /// gauge, errors counted by ``StrataError`` case. Nil (the default) uses the factory bootstrapped with
    /// `MetricsSystem.bootstrap`, and when none was, records nothing and costs nothing.
    public var metricsFactory: (any MetricsFactory)?
    /// Read replicas as `host` or `host:port` (`[v6]:port` for an IPv6 literal), added by
    /// ``Database/open(_:drivers:configuration:)`` to those of the URL's `replicas=` parameter: each is the URL
    /// with its host and port replaced. Reads outside transactions go to them (see ``Database/read(_:)``).
    public var replicas: [String] = []
    /// How long a replica that could not be reached is skipped before it is tried again, in seconds.
    public var replicaRetryInterval: Double = 5
    /// What seals and opens the values of `@Encrypted` properties (StrataEncryption's `AESGCMKeyring`); nil (the
    /// default) makes any write, read or filter of such a column throw
    /// ``StrataError/encryptedColumn(model:column:reason:)``.
    public var encryption: (any ColumnEncryption)?

    /// Options for opening a database; every one has a default, so name only those you change.
    ///
    /// ```swift
    /// let db = try Database.open("sqlite:app.sqlite", drivers: [.sqlite],
    ///     configuration: Configuration(maxConnections: 4, slowStatementThreshold: 0.5))
    /// ```
    ///
    /// - Parameters:
    ///   - maxConnections: the most connections the pool opens; nil lets the driver choose.
    ///   - migration: what ``Database/migrate(_:)->()`` may change: `.automatic` (the default) or `.disabled`.
    ///   - timeout: how long a connection waits for a lock (SQLite's busy timeout) or to connect, in seconds (5).
    ///   - poolTimeout: how long a call waits for a pooled connection before it throws
    ///     ``StrataError/poolTimeout(seconds:)``, in seconds (30).
    ///   - logger: where the database logs statements and connection events; the default logs nothing.
    ///   - logBoundValues: whether statement logs show bound values (false: only how many there are).
    ///   - slowStatementThreshold: the duration in seconds at or past which a statement is logged at `.warning`;
    ///     nil (the default) never warns.
    ///   - metricsFactory: where metrics go; nil uses the bootstrapped `MetricsSystem` factory, if any.
    public init(
        maxConnections: Int? = nil, migration: MigrationPolicy = .automatic, timeout: Double = 5,
        poolTimeout: Double = 30, logger: Logger = Configuration.silentLogger, logBoundValues: Bool = false,
        slowStatementThreshold: Double? = nil, metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.maxConnections = maxConnections
        self.migration = migration
        self.timeout = timeout
        self.poolTimeout = poolTimeout
        self.logger = logger
        self.logBoundValues = logBoundValues
        self.slowStatementThreshold = slowStatementThreshold
        self.metricsFactory = metricsFactory
    }

    /// The default logger: it prints nothing.
    public static let silentLogger = Logger(label: "strata", factory: { _ in SwiftLogNoOpLogHandler() })
}

/// What automatic migration may do.
public enum MigrationPolicy: String, Sendable, Hashable {
    /// Create missing tables and indexes, add missing columns; never drop or change data.
    case automatic
    /// Change nothing; `migrate` only checks the schema and throws ``StrataError/schemaMismatch(table:missing:)``.
    case disabled
}
