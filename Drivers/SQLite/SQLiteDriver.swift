// SQLiteDriver: opens libsqlite3 connections to one file (or a private in-memory database).
import CSQLite
import Strata

/// The SQLite driver: `sqlite:path`, `sqlite:///abs/path`, `sqlite::memory:`.
///
/// Each connection turns on WAL (files), foreign keys, a busy timeout, Strata's exact LIKE (`SQLiteLike`),
/// and turns off double-quoted string literals.
public struct SQLiteDriver: Driver {
    /// The file path, or `:memory:`.
    public let path: String
    public let timeout: Double
    public let maxConnections: Int
    public var name: String { "sqlite" }

    /// Whether this is a private in-memory database (one connection, gone when it closes).
    public var isInMemory: Bool { path == ":memory:" }

    public init(path: String, configuration: Configuration = Configuration()) {
        self.path = path
        // The busy timeout reaches SQLite as Int32 milliseconds: keep it in range (NaN and negatives wait 0).
        let t = configuration.timeout
        self.timeout = t > 0 ? min(t, 2_000_000) : 0
        self.maxConnections = path == ":memory:" ? 1 : (configuration.maxConnections ?? 4)
    }

    public func connect() throws -> any DatabaseConnection {
        try SQLiteConnection(path: path, timeout: timeout)
    }

    /// The version of the linked libsqlite3, e.g. `3.40.1`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

extension DriverFactory {
    /// The SQLite driver, for ``Database/open(_:drivers:configuration:)``.
    ///
    /// It reads no URL parameters of its own: only Strata's `pool` and `migrate` are accepted.
    public static let sqlite = DriverFactory(schemes: ["sqlite"], module: "StrataSQLite", parameters: []) {
        url, config in
        let driver = SQLiteDriver(path: url.path, configuration: config)
        // Open once now so a bad path fails at open time, with the driver's typed error.
        _ = try driver.connect()
        return driver
    }
}
