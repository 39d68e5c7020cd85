// SQLiteDriver: opens libsqlite3 connections to one file (or a private in-memory database).
import CSQLite
import Strata

/// The SQLite driver: `sqlite:path`, `sqlite:///abs/path`, `sqlite::memory:`.
///
/// Each connection turns on foreign keys, a busy timeout, Strata's exact LIKE (`SQLiteLike`), and turns off
/// double-quoted string literals; the file's journal mode follows ``journal`` (WAL for a file Strata
/// creates, an existing file's own mode otherwise).
public struct SQLiteDriver: Driver {
    /// The file path, or `:memory:`.
    public let path: String
    public let timeout: Double
    public let maxConnections: Int
    /// The journal mode connections set, resolved at init: `.keep` sets none.
    public let journal: SQLiteJournalMode
    public var name: String { "sqlite" }

    /// Whether this is a private in-memory database (one connection, gone when it closes).
    public var isInMemory: Bool { path == ":memory:" }

    /// - Parameter journal: the journal mode to set; nil (the default) turns on WAL for a new or empty file
    ///   when migration is allowed, and keeps an existing file's mode (or any file's, with `migrate=off`).
    public init(path: String, configuration: Configuration = Configuration(), journal: SQLiteJournalMode? = nil) {
        self.path = path
        self.journal = journal ?? SQLiteJournalMode.default(path: path, migration: configuration.migration)
        // The busy timeout reaches SQLite as Int32 milliseconds: keep it in range (NaN and negatives wait 0).
        let t = configuration.timeout
        self.timeout = t > 0 ? min(t, 2_000_000) : 0
        self.maxConnections = path == ":memory:" ? 1 : (configuration.maxConnections ?? 4)
    }

    public func connect() throws -> any DatabaseConnection {
        try SQLiteConnection(path: path, timeout: timeout, journal: journal)
    }

    /// The version of the linked libsqlite3, e.g. `3.40.1`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

extension DriverFactory {
    /// The SQLite driver, for ``Database/open(_:drivers:configuration:)``.
    ///
    /// It serves `sqlite:relative/path.sqlite`, `sqlite:///abs/path.sqlite`, `sqlite://relative.sqlite` and
    /// `sqlite::memory:` (`sqlite3:` too). Besides Strata's `pool` and `migrate` it reads
    /// `journal=wal|delete|keep` (see ``SQLiteJournalMode``).
    public static let sqlite = DriverFactory(
        schemes: ["sqlite", "sqlite3"], module: "StrataSQLite", parameters: ["journal"],
        urlSyntax: .path(missing: "missing SQLite file path")
    ) { url, config in
        var journal: SQLiteJournalMode?
        if let text = url.parameters["journal"] {
            guard let mode = SQLiteJournalMode(rawValue: text.lowercased()) else {
                throw StrataError.invalidURL(url.original, reason: "journal must be wal, delete or keep")
            }
            journal = mode
        }
        let driver = SQLiteDriver(path: url.path, configuration: config, journal: journal)
        // Open once now so a bad path fails at open time, with the driver's typed error.
        _ = try driver.connect()
        return driver
    }
}
