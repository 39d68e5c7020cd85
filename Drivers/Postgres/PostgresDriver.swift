// PostgresDriver: opens libpq connections to one PostgreSQL database, and the postgres:// URL factory.
import CPostgres
import Strata
import Synchronization

/// The PostgreSQL driver: `postgres://user:password@host:port/database?sslmode=…` (`postgresql://` too).
///
/// Parts the URL leaves out come from libpq's environment (`PGHOST`, `PGPORT`, `PGUSER`,
/// `PGPASSWORD`, `PGDATABASE`), so `postgres://` alone connects where `psql` would. A host that
/// starts with `/` (or `?host=/var/run/postgresql`) is a unix-socket directory.
///
/// ```swift
/// let db = try Database.open("postgres://app@db.internal/shop?sslmode=require&pool=8", drivers: [.postgres])
/// ```
///
/// Each connection runs in UTC, waits at most `Configuration.timeout` seconds to connect and for a
/// lock (then ``StrataError/busy``), and caches its prepared statements.
public struct PostgresDriver: Driver {
    public let options: PostgresConnectionOptions
    public let maxConnections: Int
    public var name: String { "postgres" }
    /// The backends of this driver's connections, whose NOTIFYs the change listener ignores.
    let own = OwnBackends()
    /// The engine the last connection found (see ``engine``).
    private let detected = DetectedEngine()

    /// The engine behind the URL: pinned by its `engine` parameter, else the one the last connection detected
    /// (``Database/open(_:drivers:configuration:)`` connects once, so it is known from then on), else PostgreSQL.
    public var engine: PostgresEngine { options.engine ?? detected.value ?? .postgres }

    /// The retries of a transaction given no `retry:` policy: the engine's ``PostgresEngine/defaultRetry``
    /// (5 attempts on CockroachDB, none elsewhere).
    public var defaultRetry: RetryPolicy { engine.defaultRetry }

    /// A driver for the given options; `configuration.maxConnections` (default 4) sizes the pool.
    public init(options: PostgresConnectionOptions, configuration: Configuration = Configuration()) {
        self.options = options
        self.maxConnections = configuration.maxConnections ?? 4
    }

    /// A driver for a `postgres://` URL.
    ///
    /// - Throws: ``StrataError/invalidURL(_:reason:)`` for a malformed URL or an unknown parameter.
    public init(url: String, configuration: Configuration = Configuration()) throws(StrataError) {
        let parsed = try DatabaseURL(url, drivers: [.postgres])
        guard parsed.scheme == "postgres" else { throw .invalidURL(url, reason: "expected a postgres:// URL") }
        self.init(
            options: try PostgresConnectionOptions(url: parsed, configuration: configuration),
            configuration: configuration)
    }

    public func connect() throws -> any DatabaseConnection {
        let connection = try PostgresConnection(options: options, own: own)
        detected.value = connection.engine
        return connection
    }

    /// Listens for `NOTIFY strata_changes` (sent by the triggers of models with
    /// ``Model/notifiesOtherProcesses``) on a connection and thread of its own; nil (no `LISTEN` is ever sent) on
    /// an engine without it (``PostgresEngine/hasListenNotify``), where observation hears this `Database`'s own
    /// commits only.
    public func listenForChanges(_ onChange: @escaping @Sendable (String) -> Void) -> (any ChangeListener)? {
        guard engine.hasListenNotify else { return nil }
        return PostgresChangeListener(options: options, own: own, onChange: onChange)
    }

    /// The version of the linked libpq, e.g. 150018 for 15.18.
    public static var libraryVersion: Int { Int(PQlibVersion()) }
}

/// The engine a driver's connections found, shared by the driver's copies.
private final class DetectedEngine: Sendable {
    private let engine = Mutex<PostgresEngine?>(nil)

    var value: PostgresEngine? {
        get { engine.withLock { $0 } }
        set { engine.withLock { $0 = newValue } }
    }
}

extension DriverFactory {
    /// The PostgreSQL driver, for ``Database/open(_:drivers:configuration:)``.
    ///
    /// It serves `postgres://user:password@host:port/database?sslmode=…` (`postgresql://` too; see
    /// ``URLSyntax/server``): every part is optional (`postgres://` alone leaves them all to libpq's environment),
    /// and a host list is tried in turn, as libpq does (`postgres://u@h1:5432,h2:5433/db`).
    ///
    /// It connects once at open time (and closes that connection), so a bad password, a missing
    /// database or an unreachable server fails `Database.open` with a typed error within the timeout.
    public static let postgres: DriverFactory = {
        var factory = DriverFactory(
            schemes: ["postgres", "postgresql"], module: "StrataPostgres",
            parameters: PostgresConnectionOptions.urlParameters, urlSyntax: .server
        ) { url, config in
            let driver = PostgresDriver(
                options: try PostgresConnectionOptions(url: url, configuration: config),
                configuration: config)
            _ = try driver.connect()
            return driver
        }
        // A replica of a primary reached with `target_session_attrs=read-write` (a failover formation's nodes, all
        // listed in `replicas=`) connects only to a node that is a standby now; a node that is the primary is
        // skipped like a replica that is down, and read from again once a failover makes it a standby.
        factory.replicaURL = { url in
            var replica = url
            if let attrs = url.parameters["target_session_attrs"], ["read-write", "primary"].contains(attrs) {
                replica.parameters["target_session_attrs"] = "standby"
            }
            return replica
        }
        return factory
    }()
}
