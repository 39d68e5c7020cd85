// MariaDBDriver: opens libmariadb connections to one MariaDB database, and the mariadb:// URL factory.
import CMariaDB
import Strata

/// The MariaDB driver: `mariadb://user:password@host:port/database` (`mysql://` too).
///
/// ```swift
/// let db = try Database.open("mariadb://app@127.0.0.1:3306/shop?pool=8", drivers: [.mariadb])
/// ```
///
/// Each connection runs in UTC with utf8mb4 text, reports matched rather than changed rows, waits at most
/// `Configuration.timeout` seconds for a lock (then ``StrataError/busy``), and caches its prepared statements.
public struct MariaDBDriver: Driver {
    public let options: MariaDBConnectionOptions
    public let maxConnections: Int
    public var name: String { "mariadb" }
    /// The schema changes made through this driver's connections, which each connection's caches of a table's
    /// unique keys follow.
    let schemaChanges = MariaDBSchemaChanges()

    /// A driver for the given options; `configuration.maxConnections` (default 4) sizes the pool.
    ///
    /// - Parameters:
    ///   - options: where and how to connect.
    ///   - configuration: the database's configuration.
    public init(options: MariaDBConnectionOptions, configuration: Configuration = Configuration()) {
        self.options = options
        self.maxConnections = configuration.maxConnections ?? 4
    }

    /// A new connection: to the URL's host, or with a host list to the first host in order that accepts it and
    /// is ready (a Galera node whose `wsrep_ready` is ON).
    ///
    /// - Throws: ``StrataError/authenticationFailed(_:)`` at once when a host refuses the credentials;
    ///   ``StrataError/connectionFailed(_:)`` naming each host's failure when none is left (never the password).
    public func connect() throws -> any DatabaseConnection {
        let candidates = options.candidates
        guard candidates.count > 1 else { return try MariaDBConnection(options: options, schemaChanges: schemaChanges) }
        var failures: [String] = []
        for candidate in candidates {
            do {
                let connection = try MariaDBConnection(options: options.only(candidate), schemaChanges: schemaChanges)
                if try connection.isGaleraReady() { return connection }
                failures.append("\(candidate.host):\(candidate.port): the Galera node is not ready")
            } catch StrataError.authenticationFailed(let reason) {
                throw StrataError.authenticationFailed(reason)
            } catch {
                failures.append("\(candidate.host):\(candidate.port): \(error)")
            }
        }
        throw StrataError.connectionFailed("no host of \(options) is ready: " + failures.joined(separator: "; "))
    }

    /// The version of the linked libmariadb, e.g. 30303 for 3.3.3.
    public static var libraryVersion: Int { Int(mysql_get_client_version()) }
}

extension DriverFactory {
    /// The MariaDB driver, for ``Database/open(_:drivers:configuration:)`` or ``Database/register(_:)``.
    ///
    /// It serves `mariadb://user:password@host:port/database` and `mysql://…` (see ``URLSyntax/server``), with
    /// `?wsrep_sync_wait=N` for a Galera cluster (see ``MariaDBConnectionOptions/syncWait``). It
    /// connects once at open time (and closes that connection), so a bad password, a missing database or an
    /// unreachable server fails `Database.open` with a typed error within the timeout.
    public static let mariadb = DriverFactory(
        schemes: ["mariadb", "mysql"], module: "StrataMariaDB", parameters: ["wsrep_sync_wait"], urlSyntax: .server
    ) { url, config in
        let driver = MariaDBDriver(
            options: try MariaDBConnectionOptions(url: url, configuration: config), configuration: config)
        _ = try driver.connect()
        return driver
    }
}
