// DifferentialDriver: a driver that runs every statement on two backends and throws when their answers differ.
import Synchronization

/// A driver over two drivers: each connection holds one connection of each, runs every statement on
/// both, and throws ``StrataError/divergence(statement:details:)`` when they answer differently.
///
/// It lets an app's own test suite check that what it sees on the memory driver holds on a real database:
///
/// ```swift
/// let db = try Database.open(differential: "memory:", "sqlite::memory:", drivers: [.memory, .sqlite])
/// try await db.migrate(User.self)
/// var u = User(name: "Ann")
/// try await u.save(on: db)                        // INSERT on both; the ids must match
/// let found = try await User.query(on: db).where(\.name ~~ "A%").all()   // rows must match
/// ```
///
/// What is compared, and how:
/// - rows (SELECT, RETURNING) value for value, after decoding what only differs in storage (SQLite's 0/1
///   for a bool, its text for a date, decimal or UUID; JSON's spacing); doubles bit for bit, text scalar for
///   scalar. Rows are compared in order when the ORDER BY ends with the table's primary key (a total order),
///   as multisets otherwise, and only by count when a LIMIT or OFFSET cuts a result that has no total order
///   (either backend's choice of rows is then correct);
/// - the number of rows changed; auto-increment ids, through the RETURNING rows;
/// - errors by their ``StrataError`` case: both must throw the same case. An error on one side only is a
///   divergence, *including* ``StrataError/unsupported(feature:driver:)``: raw SQL that SQLite runs and the
///   memory driver refuses is reported as a divergence, since the app would not behave the same on both.
///   When both sides throw the same case, the first side's error is rethrown.
///
/// Transactions and savepoints run on both connections, so both commit or roll back together. Rows streamed
/// to `onRow` are buffered on both sides, compared, then the first side's rows are replayed.
public struct DifferentialDriver: Driver {
    /// The backend whose rows and errors the caller sees (usually `memory`).
    public let primary: any Driver
    /// The backend it is checked against (SQLite, PostgreSQL).
    public let secondary: any Driver
    let schemas = DifferentialSchemas()

    /// A driver that checks `primary` against `secondary`.
    public init(primary: any Driver, secondary: any Driver) {
        self.primary = primary
        self.secondary = secondary
    }

    /// `differential(memory, sqlite)`.
    public var name: String { "differential(\(primary.name), \(secondary.name))" }

    /// The smaller of the two drivers' limits.
    public var maxConnections: Int { min(primary.maxConnections, secondary.maxConnections) }

    /// Opens one connection on each backend.
    public func connect() throws -> any DatabaseConnection {
        DifferentialConnection(
            primary: try primary.connect(), secondary: try secondary.connect(), names: (primary.name, secondary.name),
            schemas: schemas)
    }
}

/// The primary key of each table created through a differential database, to recognize a total order.
final class DifferentialSchemas: Sendable {
    private let keys = Mutex<[String: String]>([:])

    func record(_ schema: TableSchema) {
        let key = schema.primaryKeyIndex.map { schema.columns[$0].name }
        keys.withLock { $0[schema.name] = key }
    }

    /// The table's primary key column (`id` for a table this database did not create).
    func primaryKey(of table: String) -> String { keys.withLock { $0[table] } ?? "id" }
}

extension Database {
    /// Opens a database that runs every statement on two backends and throws
    /// ``StrataError/divergence(statement:details:)`` when they differ (see ``DifferentialDriver``).
    ///
    /// ```swift
    /// let db = try Database.open(differential: "memory:", "sqlite::memory:", drivers: [.memory, .sqlite])
    /// ```
    ///
    /// - Parameters:
    ///   - primary: the URL whose rows and errors the caller sees (e.g. `memory:`).
    ///   - secondary: the URL it is checked against (e.g. `sqlite::memory:` or `postgres://…`).
    ///   - drivers: the drivers to choose from; by default those passed to ``register(_:)``.
    ///   - configuration: the settings both databases open with (see ``Database/open(_:drivers:configuration:)``).
    /// - Throws: what ``Database/open(_:drivers:configuration:)`` throws for either URL.
    public static func open(
        differential primary: String, _ secondary: String, drivers: [DriverFactory]? = nil,
        configuration: Configuration = Configuration()
    ) throws -> Database {
        let first = try open(primary, drivers: drivers, configuration: configuration)
        let second = try open(secondary, drivers: drivers, configuration: configuration)
        defer {
            first.close()
            second.close()
        }
        let driver = DifferentialDriver(primary: first.pool.driver, secondary: second.pool.driver)
        return Database(driver: driver, configuration: configuration)
    }
}
