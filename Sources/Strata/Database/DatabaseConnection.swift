// DatabaseConnection and Driver: the line between the core and a storage backend.
import Synchronization

/// One connection of a driver, used by one task at a time (the pool hands it out).
///
/// A SQL driver implements ``SQLConnection`` instead and gets ``execute(_:onRow:)`` rendered for it.
public protocol DatabaseConnection: AnyObject {
    /// Runs one statement; rows (SELECT, RETURNING) go to `onRow` one at a time.
    ///
    /// - Returns: the number of rows the statement changed (0 for queries and DDL).
    /// - Throws: ``StrataError``: constraint violations, ``StrataError/unsupported(feature:driver:)``, …
    func execute(_ statement: Statement, onRow: (any RowReader) throws -> Void) throws -> Int

    /// Runs a statement whose shape is `template` (the same SQL on every call) with `binds`, its values in
    /// the order ``SQLRenderer/binds(of:dialect:)`` collects them. A driver that has run the template before may
    /// bind and step its prepared statement straight away; otherwise it calls `statement` to build it.
    /// The default always builds it and calls ``execute(_:onRow:)``.
    func execute(
        template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int

    /// Runs raw SQL whose values are bound to its `?` markers; drivers without SQL throw `unsupported`.
    func executeRaw(_ sql: String, _ binds: [DatabaseValue], onRow: (any RowReader) throws -> Void) throws -> Int

    /// The column names of a table, or nil when it does not exist.
    func columns(of table: String) throws -> [String]?

    /// Whether the connection broke and must not be reused.
    var isBroken: Bool { get }

    /// Whether a transaction is open on the connection (SQLite: not in autocommit; PostgreSQL:
    /// `PQtransactionStatus` is not idle). Asked when a call gives the connection back: one left inside a
    /// transaction (a raw `BEGIN` with no `COMMIT`, a failed `ROLLBACK`) is rolled back, or dropped when that
    /// fails, so the next caller's writes never run inside it. Default false.
    var isInTransaction: Bool { get }

    /// Whether an idle connection is still fit to use, found without a round trip (PostgreSQL: its socket shows
    /// no hang-up and nothing the server sent while it sat idle broke it). The pool asks before handing an idle
    /// connection out and replaces one that is not, so a server restart costs no caller an error. Default true.
    var isUsable: Bool { get }

    /// The most values one statement may bind; eager loading chunks its key lists under it.
    var maxBindParameters: Int { get }

    /// The most values one `IN` list of integer keys may hold in one statement; eager loading chunks its key
    /// lists under it. Default ``maxBindParameters`` less a margin; a SQL dialect that binds long lists as one
    /// array (``Dialect/inListArray``) and the memory driver have no limit.
    var maxInListValues: Int { get }
    /// The columns of a table as the database declares them, or nil when it does not exist (see ``LiveColumn``).
    func liveColumns(of table: String) throws -> [LiveColumn]?

    /// The names of the database's tables (its current schema), for `strata inspect` (see ``ModelSource``).
    func liveTables() throws -> [String]

    /// The single-column foreign keys of a table, for `strata inspect`.
    func liveForeignKeys(of table: String) throws -> [LiveForeignKey]

    /// The isolation level a transaction asking for `requested` runs at on this connection (the same or a
    /// stronger one), or nil when the driver has none at least as strong. Default nil; a ``SQLConnection``
    /// answers from its dialect's ``Dialect/isolationLevels``.
    func isolation(serving requested: IsolationLevel) -> IsolationLevel?

    /// Whether a statement that fails inside a transaction must leave the transaction usable, undone alone
    /// (``FailedStatementPolicy/undoStatement``), as Strata asks of every driver by default. Inside a transaction
    /// begun with ``FailedStatementPolicy/abortTransaction`` Strata sets it false until the transaction ends (it
    /// then refuses every statement after a failure itself), so a driver that protects each statement (PostgreSQL's
    /// savepoint per write) may skip that work. Default: always true; setting it does nothing.
    var protectsFailedStatements: Bool { get set }

    /// The backend's plan for a SELECT, as lines of text (SQLite's `EXPLAIN QUERY PLAN`, PostgreSQL's `EXPLAIN`,
    /// the memory driver's index or scan). Default: ``StrataError/unsupported(feature:driver:)``.
    func explain(_ select: Select) throws -> [String]
}

extension DatabaseConnection {
    /// No isolation level can be granted: a driver that runs transactions says which levels it serves.
    public func isolation(serving requested: IsolationLevel) -> IsolationLevel? { nil }
    /// 32766 values per statement, SQLite's compiled default.
    public var maxBindParameters: Int { 32766 }
    /// Usable: a driver that can tell a dead connection without a round trip says so.
    public var isUsable: Bool { true }
    /// True, and setting it does nothing: a driver that undoes a failed statement alone at no cost ignores it.
    public var protectsFailedStatements: Bool {
        get { true }
        set {}
    }
    /// Unsupported: a driver that can show a plan says so.
    public func explain(_ select: Select) throws -> [String] {
        throw StrataError.unsupported(feature: "explain()", driver: "\(type(of: self))")
    }
    /// False: a driver that does not say is trusted to end its transactions.
    public var isInTransaction: Bool { false }
    /// ``maxBindParameters`` less 16, a margin for the statement's other values.
    public var maxInListValues: Int { Swift.max(1, maxBindParameters - 16) }

    /// Builds the statement and runs it with ``execute(_:onRow:)``, ignoring the template and binds.
    ///
    /// - Parameters:
    ///   - template: the statement's shape (unused here).
    ///   - binds: its values (unused here; the statement carries them).
    ///   - statement: builds the statement.
    ///   - onRow: receives each row the statement returns.
    /// - Returns: the number of rows the statement changed.
    /// - Throws: what building or running the statement throws.
    public func execute(
        template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        try execute(try statement(), onRow: onRow)
    }
}

/// A storage backend: it makes connections and says how many may be open.
public protocol Driver: Sendable {
    /// The driver's name for messages and reports (`sqlite`, `postgres`, `memory`).
    var name: String { get }
    /// How many connections the pool may open. In-memory stores use 1.
    var maxConnections: Int { get }
    /// Whether a call on a connection may wait on something other than the CPU (the network, a lock,
    /// the disk); such calls run on each connection's own thread while others are in flight (see
    /// ``Database/withConnection(_:)``). Defaults to true.
    var callsMayBlock: Bool { get }
    /// Opens a new connection.
    ///
    /// - Throws: ``StrataError/connectionFailed(_:)`` and friends.
    func connect() throws -> any DatabaseConnection
    /// Starts listening for commits made by other processes (PostgreSQL: `LISTEN strata_changes`), calling
    /// `onChange` with each changed table's name; nil when the driver cannot (the default). Commits made
    /// through this driver's own connections are not reported (the database announces those itself).
    func listenForChanges(_ onChange: @escaping @Sendable (String) -> Void) -> (any ChangeListener)?
    /// Starts listening for commits made by other processes, calling `onChange` with the tables a commit
    /// changed, or nil when the driver cannot tell which (SQLite's `PRAGMA data_version`): then every observer
    /// looks again. The default forwards to ``listenForChanges(_:)``, one table at a time.
    func listenForCommits(_ onChange: @escaping @Sendable (Set<String>?) -> Void) -> (any ChangeListener)?
    /// How a transaction given no `retry:` policy runs again (``Database/transaction(_:)`` and the entries whose
    /// `retry` is nil). Default ``RetryPolicy/never``; PostgreSQL's driver retries on CockroachDB, whose every
    /// transaction is SERIALIZABLE.
    var defaultRetry: RetryPolicy { get }
}

extension Driver {
    /// True: calls may wait on the network, a lock or the disk, so they run on each connection's own thread.
    public var callsMayBlock: Bool { true }
    /// ``RetryPolicy/never``: a transaction runs once unless its caller asks for retries.
    public var defaultRetry: RetryPolicy { .never }
    /// Nil: the driver cannot hear other processes' commits.
    ///
    /// - Parameter onChange: unused.
    /// - Returns: nil.
    public func listenForChanges(_ onChange: @escaping @Sendable (String) -> Void) -> (any ChangeListener)? { nil }

    /// What ``listenForChanges(_:)`` hears, each table on its own.
    ///
    /// - Parameter onChange: called with a one-table set for each changed table.
    /// - Returns: the listener ``listenForChanges(_:)`` starts, if any.
    public func listenForCommits(_ onChange: @escaping @Sendable (Set<String>?) -> Void) -> (any ChangeListener)? {
        listenForChanges { table in onChange([table]) }
    }
}

/// A driver's running subscription to other processes' commits.
public protocol ChangeListener: Sendable {
    /// Returns once the subscription is active: every commit after it is reported.
    func ready() async
    /// Stops listening and closes the listener's connection.
    func stop()
}

/// A driver that Strata can open by URL: the schemes it serves, how it reads the rest of its URLs, the URL
/// parameters it reads, and how it turns a URL into a driver.
///
/// Every driver, the built-in ones included, plugs in this way: pass factories to
/// ``Database/open(_:drivers:configuration:)`` or register them once with ``Database/register(_:)``.
///
/// ```swift
/// extension DriverFactory {
///     static let shards = DriverFactory(
///         schemes: ["shards", "shard"], module: "ShardKit", parameters: ["replica"], urlSyntax: .server
///     ) { url, configuration in try ShardDriver(url, configuration) }
/// }
/// let db = try Database.open("shards://eu-1/app?pool=4", drivers: [.shards])
/// ```
public struct DriverFactory: Sendable {
    /// URL schemes this driver serves, matched without regard to case; the first is the name a parsed URL's
    /// ``DatabaseURL/scheme`` gets (`["postgres", "postgresql"]`).
    public var schemes: [String]
    /// The module that provides the driver, for messages.
    public var module: String
    /// The URL parameters the driver reads, besides Strata's own (``commonParameters``, which every driver
    /// accepts). ``Database/open(_:drivers:configuration:)`` refuses any other, names included exactly
    /// (they are case-sensitive), with ``StrataError/invalidURL(_:reason:)``.
    public var parameters: Set<String>
    /// How the driver reads the text after `scheme:` (see ``URLSyntax``).
    public var urlSyntax: URLSyntax
    /// Makes the driver for a parsed URL and the database's configuration; throws
    /// ``StrataError/invalidURL(_:reason:)`` for a URL it cannot use.
    public var make: @Sendable (DatabaseURL, Configuration) throws -> any Driver
    /// A read replica's URL from the URL Strata derived for it (the primary's, with the replica's host and port):
    /// what a replica connection must ask for differently. Unchanged by default; the PostgreSQL driver turns
    /// `target_session_attrs=read-write` (or `primary`) into `standby`, so that listing every node of a failover
    /// formation as a replica reads from whichever is a standby now.
    public var replicaURL: @Sendable (DatabaseURL) -> DatabaseURL = { $0 }

    /// The URL parameters ``Database/open(_:drivers:configuration:)`` reads itself, for every driver (`pool`,
    /// `migrate`); it reads `replicas` too, for a driver whose ``parameters`` include `host`.
    public static let commonParameters: Set<String> = ["pool", "migrate"]

    /// A factory for URLs with these schemes.
    ///
    /// - Parameters:
    ///   - schemes: the URL schemes the driver serves, its own name first.
    ///   - module: the module that provides the driver, named in messages.
    ///   - parameters: the URL parameters the driver reads besides Strata's own.
    ///   - urlSyntax: how the text after `scheme:` reads; by default a path, maybe empty.
    ///   - make: makes the driver for a parsed URL and a configuration.
    public init(
        schemes: [String], module: String, parameters: Set<String> = [], urlSyntax: URLSyntax = .path(),
        make: @escaping @Sendable (DatabaseURL, Configuration) throws -> any Driver
    ) {
        self.schemes = schemes
        self.module = module
        self.parameters = parameters
        self.urlSyntax = urlSyntax
        self.make = make
    }

    /// Whether the driver serves `scheme`, in any case.
    ///
    /// - Parameter scheme: a URL scheme, without its `:`.
    /// - Returns: whether ``schemes`` names it.
    public func serves(_ scheme: String) -> Bool { schemes.contains { $0.lowercased() == scheme.lowercased() } }

    /// The factories passed to ``Database/register(_:)``, the last registered for a scheme first.
    static var registered: [DriverFactory] { registry.withLock { $0 } }

    private static let registry = Mutex<[DriverFactory]>([])

    /// Adds a factory to ``registered``, replacing any earlier one for the same schemes.
    static func register(_ factory: DriverFactory) {
        registry.withLock { list in
            list.removeAll { Set($0.schemes.map { $0.lowercased() }) == Set(factory.schemes.map { $0.lowercased() }) }
            list.insert(factory, at: 0)
        }
    }
}
