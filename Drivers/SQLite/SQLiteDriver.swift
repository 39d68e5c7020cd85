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
    /// How often, in seconds, a database with observers reads `PRAGMA data_version` to hear other processes'
    /// commits (at least ``minimumObserveInterval``); nil (the default): never, only this process's commits reach
    /// observers. The URL's `observe_interval=on|100ms|1s|off`. Off by default because `data_version` also moves
    /// on this process's own commits, which then fetch every observed query again (not only those they touched).
    public let observeInterval: Double?
    /// 100 ms: the interval `observe_interval=on` sets.
    public static let defaultObserveInterval = 0.1
    /// 10 ms: the shortest interval; a shorter one is raised to it (or refused in a URL).
    public static let minimumObserveInterval = 0.01
    /// The WAL size, in pages, past which a commit checkpoints (`PRAGMA wal_autocheckpoint`); 0 turns the
    /// connections' automatic checkpoints off, and nil (the default) keeps SQLite's 1000. The URL's
    /// `wal_autocheckpoint=N`. A replicator such as Litestream checkpoints on its own: see the article "Sharing a
    /// database between processes", Replicating with Litestream.
    public let walAutocheckpoint: Int?
    public var name: String { "sqlite" }

    /// Whether this is a private in-memory database (one connection, gone when it closes).
    public var isInMemory: Bool { path == ":memory:" }

    /// - Parameters:
    ///   - journal: the journal mode to set; nil (the default) turns on WAL for a new or empty file when
    ///     migration is allowed, and keeps an existing file's mode (or any file's, with `migrate=off`).
    ///   - observeInterval: how often, in seconds, observers check for other processes' commits (from
    ///     ``minimumObserveInterval`` to an hour); nil never checks. See the article "Sharing a database between processes".
    ///   - walAutocheckpoint: the pages past which a commit checkpoints; 0 never does (a negative number reads as 0);
    ///     nil keeps SQLite's default.
    public init(
        path: String, configuration: Configuration = Configuration(), journal: SQLiteJournalMode? = nil,
        observeInterval: Double? = nil, walAutocheckpoint: Int? = nil
    ) {
        self.path = path
        self.walAutocheckpoint = walAutocheckpoint.map { min(max($0, 0), Int(Int32.max)) }
        // NaN reads as the floor, and an interval stays within an hour (the listener's clock counts nanoseconds).
        self.observeInterval = observeInterval.map {
            $0.isNaN ? Self.minimumObserveInterval : min(max($0, Self.minimumObserveInterval), 3600)
        }
        self.journal = journal ?? SQLiteJournalMode.default(path: path, migration: configuration.migration)
        // The busy timeout reaches SQLite as Int32 milliseconds: keep it in range (NaN and negatives wait 0).
        let t = configuration.timeout
        self.timeout = t > 0 ? min(t, 2_000_000) : 0
        self.maxConnections = path == ":memory:" ? 1 : (configuration.maxConnections ?? 4)
    }

    public func connect() throws -> any DatabaseConnection {
        try SQLiteConnection(path: path, timeout: timeout, journal: journal, walAutocheckpoint: walAutocheckpoint)
    }

    /// Reads `PRAGMA data_version` every ``observeInterval`` on a connection and thread of its own while
    /// anything is observed; a change means another connection committed, and SQLite does not say to which
    /// tables, so it is reported as nil (every observer looks again). Nil for `:memory:` or with no interval.
    public func listenForCommits(_ onChange: @escaping @Sendable (Set<String>?) -> Void) -> (any ChangeListener)? {
        guard !isInMemory, let observeInterval else { return nil }
        return SQLiteChangeListener(path: path, interval: observeInterval, timeout: timeout, onChange: onChange)
    }

    /// The version of the linked libsqlite3, e.g. `3.40.1`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

extension DriverFactory {
    /// The SQLite driver, for ``Database/open(_:drivers:configuration:)``.
    ///
    /// It serves `sqlite:relative/path.sqlite`, `sqlite:///abs/path.sqlite`, `sqlite://relative.sqlite` and
    /// `sqlite::memory:` (`sqlite3:` too). Besides Strata's `pool` and `migrate` it reads
    /// `journal=wal|delete|keep` (see ``SQLiteJournalMode``), `observe_interval=on|100ms|2s|off` (see
    /// ``SQLiteDriver/observeInterval``) and `wal_autocheckpoint=N` (see ``SQLiteDriver/walAutocheckpoint``).
    public static let sqlite = DriverFactory(
        schemes: ["sqlite", "sqlite3"], module: "StrataSQLite",
        parameters: ["journal", "observe_interval", "wal_autocheckpoint"],
        urlSyntax: .path(missing: "missing SQLite file path")
    ) { url, config in
        var journal: SQLiteJournalMode?
        if let text = url.parameters["journal"] {
            guard let mode = SQLiteJournalMode(rawValue: text.lowercased()) else {
                throw StrataError.invalidURL(url.original, reason: "journal must be wal, delete or keep")
            }
            journal = mode
        }
        var interval: Double?
        if let text = url.parameters["observe_interval"] {
            interval = try SQLiteDriver.observeInterval(text, url: url)
        }
        var pages: Int?
        if let text = url.parameters["wal_autocheckpoint"] {
            guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(text)
            else {
                throw StrataError.invalidURL(
                    url.original, reason: "wal_autocheckpoint must be a number of pages (0: off), not '\(text)'")
            }
            pages = n
        }
        let driver = SQLiteDriver(
            path: url.path, configuration: config, journal: journal, observeInterval: interval,
            walAutocheckpoint: pages)
        // Open once now so a bad path fails at open time, with the driver's typed error.
        _ = try driver.connect()
        return driver
    }
}

extension SQLiteDriver {
    /// The `observe_interval` URL parameter in seconds: `250ms`, `2s`, a bare number of milliseconds, `on`
    /// (``defaultObserveInterval``) or `off` (nil); from 10 ms to one hour.
    static func observeInterval(_ text: String, url: DatabaseURL) throws -> Double? {
        if text == "off" { return nil }
        if text == "on" { return defaultObserveInterval }
        let (digits, scale) =
            text.hasSuffix("ms")
            ? (text.dropLast(2), 1) : text.hasSuffix("s") ? (text.dropLast(), 1000) : (Substring(text), 1)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(digits),
            n <= 3_600_000 / scale, n * scale >= Int(minimumObserveInterval * 1000)
        else {
            throw StrataError.invalidURL(
                url.original,
                reason: "observe_interval must be on, off or from 10ms to 3600s (e.g. 100ms), not '\(text)'")
        }
        return Double(n * scale) / 1000
    }
}
