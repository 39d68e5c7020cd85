// Database: the async entry point: a driver, a pool of its connections, and the configuration.
import Foundation
import Logging
import Synchronization

/// A database: a driver plus a pool of its connections. Safe to share between tasks.
///
/// ```swift
/// let db = try Database.open("sqlite:app.sqlite", drivers: [.sqlite])
/// try await db.migrate(User.self)
/// let users = try await User.query(on: db).all()
/// ```
///
/// Async calls run their work synchronously on a leased connection: one suspension to lease a
/// connection when the pool is full, none per row. Where the work runs is described at
/// ``withConnection(_:)``.
public final class Database: Sendable {
    /// The driver's name (`sqlite`, `postgres`, `memory`).
    public let driverName: String
    /// The options the database was opened with (pool size, migration policy, timeouts, logging, metrics).
    public let configuration: Configuration
    let pool: ConnectionPool
    /// Every statement this database ran, counted (a driver-independent way to count queries).
    let statementCounter = Atomic<Int>(0)
    /// Logs and metrics of this database's statements and connections (see ``Configuration/logger``).
    let observer: StatementObserver
    /// The observers of this database's queries (see ``QueryBuilder/observe()``).
    let changes: ChangeHub
    /// The columns storing text only, by table, for refusing queries that compare them as numbers.
    let textStoredColumns = TextStoredColumns()
    /// The column types of the tables created through this database, for refusing comparisons across types (see
    /// ``StatementCheck/checkTypes(_:schemas:)``); a ``primary`` view shares its database's.
    let knownSchemas: KnownSchemas
    /// The tables whose writes are recorded in the change history (see ``Model/tracksHistory``).
    let history: HistoryTables
    /// Where reads outside transactions go (see ``read(_:)``); nil without replicas and on a ``primary`` view.
    let replicas: ReplicaSet?
    /// The database a ``primary`` view was taken from (its statements are counted there); nil otherwise.
    let owner: Database?
    /// ``Configuration/encryption`` behind one reference, for the rows that read encrypted columns.
    @usableFromInline let keyring: Keyring?

    /// Opens a database on a driver.
    public convenience init(driver: any Driver, configuration: Configuration = Configuration()) {
        self.init(driver: driver, replicaSources: [], configuration: configuration)
    }

    /// Opens a database on a driver, with read replicas made from `replicaSources` on first use.
    init(driver: any Driver, replicaSources: [ReplicaSource], configuration: Configuration) {
        self.driverName = driver.name
        self.configuration = configuration
        let observer = StatementObserver(configuration: configuration, driverName: driver.name)
        self.observer = observer
        self.changes = ChangeHub(driver: driver)
        self.history = HistoryTables.shared
        let capacity = configuration.maxConnections ?? driver.maxConnections
        self.pool = ConnectionPool(
            driver: driver, capacity: capacity, timeout: configuration.poolTimeout, observer: observer)
        self.replicas =
            replicaSources.isEmpty
            ? nil : ReplicaSet(replicaSources, capacity: capacity, configuration: configuration, observer: observer)
        self.owner = nil
        self.knownSchemas = KnownSchemas()
        self.keyring = configuration.encryption.map(Keyring.init)
    }

    /// The ``primary`` view of `db`: its pool, observers and counters, no replicas.
    init(primaryOf db: Database) {
        driverName = db.driverName
        configuration = db.configuration
        observer = db.observer
        changes = db.changes
        history = db.history
        pool = db.pool
        replicas = nil
        owner = db
        knownSchemas = db.knownSchemas
        keyring = db.keyring
    }

    /// The logger this database logs to: ``Configuration/logger`` with `db.system` (the driver's name) in its
    /// metadata.
    public var logger: Logger { observer.logger }

    /// The number of statements run so far on this database (queries, writes, transaction control).
    public var statementCount: Int { (owner ?? self).statementCounter.load(ordering: .relaxed) }

    /// The driver the connections come from: a second `Database` over it reaches the same data (the
    /// conformance suite opens one where a case needs more connections than the pool has).
    package var driver: any Driver { pool.driver }

    /// The most connections the pool opens.
    package var maxConnections: Int { pool.capacity }

    /// Connections leased to calls now (the conformance suite checks that an ended observation holds none).
    package var connectionsInUse: Int { pool.inUseCount }

    /// Calls queued for a connection now.
    package var callsWaiting: Int { pool.waitingCount }

    /// Queries being observed now (see ``QueryBuilder/observe()``).
    package var observationCount: Int { changes.observerCount }

    // MARK: Opening by URL

    /// Makes a driver available to ``open(_:drivers:configuration:)`` and ``DatabaseURL/init(_:drivers:)``
    /// without naming it each time; it replaces a driver registered earlier for the same schemes.
    ///
    /// ```swift
    /// Database.register(.sqlite)
    /// let db = try Database.open("sqlite:app.sqlite")
    /// ```
    ///
    /// - Parameter factory: the driver's factory (see ``DriverFactory``).
    public static func register(_ factory: DriverFactory) { DriverFactory.register(factory) }

    /// Opens the database a URL names.
    ///
    /// The driver among `drivers` that serves the URL's scheme reads the rest of it (see ``DatabaseURL``).
    /// URL parameters `pool=N` and `migrate=off` override the configuration; any other parameter must be one
    /// the driver reads (see ``DriverFactory/parameters``), spelled exactly.
    ///
    /// - Parameters:
    ///   - url: `sqlite:app.sqlite`, `sqlite:///abs/app.sqlite`, `sqlite::memory:`, `memory:`, `postgres://…`
    ///     (see ``DatabaseURL``).
    ///   - drivers: the drivers to choose from; by default those passed to ``register(_:)``.
    ///   - configuration: pool size, migration, logging and metrics settings; the URL's parameters override it.
    /// - Throws: ``StrataError/invalidURL(_:reason:)`` (a malformed URL, a bad `pool` or `migrate` value, or
    ///   a parameter the driver does not read), ``StrataError/unknownScheme(_:)`` when no driver of `drivers`
    ///   serves the scheme, or the driver's connection errors.
    public static func open(
        _ url: String, drivers: [DriverFactory]? = nil,
        configuration: Configuration = Configuration()
    ) throws -> Database {
        let (parsed, factory) = try DatabaseURL.parse(url, drivers: drivers ?? DriverFactory.registered)
        var config = configuration
        if let pool = parsed.parameters["pool"] {
            guard let n = Int(pool), n > 0 else {
                throw StrataError.invalidURL(url, reason: "pool must be a positive integer")
            }
            config.maxConnections = n
        }
        if let m = parsed.parameters["migrate"] {
            switch m.lowercased() {
            case "off", "false", "0", "disabled": config.migration = .disabled
            case "on", "true", "1", "automatic": config.migration = .automatic
            default: throw StrataError.invalidURL(url, reason: "migrate must be on or off")
            }
        }
        let (primary, replicas) = try replicaSources(parsed, configuration: config, factory: factory)
        try checkParameters(primary, accepted: DriverFactory.commonParameters.union(factory.parameters))
        return Database(driver: try factory.make(primary, config), replicaSources: replicas, configuration: config)
    }

    /// Refuses a URL parameter the driver does not read, hinting at the right spelling of a mis-cased one.
    private static func checkParameters(_ url: DatabaseURL, accepted: Set<String>) throws(StrataError) {
        for key in url.parameters.keys.sorted() where !accepted.contains(key) {
            var reason = "unknown parameter '\(key)' for \(url.scheme) URLs"
            if let meant = accepted.first(where: { $0.lowercased() == key.lowercased() }) {
                reason += " (parameter names are case-sensitive: did you mean '\(meant)'?)"
            } else if accepted.count <= 8 {
                reason += " (accepted: \(accepted.sorted().joined(separator: ", ")))"
            }
            throw .invalidURL(url.original, reason: reason)
        }
    }

    /// Opens the database named by the `DATABASE_URL` environment variable, or `fallback` when unset or empty.
    ///
    /// `environment` is the process's by default; pass another (a test's, a configuration file's) rather than
    /// changing the process's with `setenv`, which races with every thread that reads it (starting a `Process`).
    public static func fromEnvironment(
        drivers: [DriverFactory]? = nil, fallback: String = "sqlite:strata.sqlite",
        configuration: Configuration = Configuration(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Database {
        let env = environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        return try open(env ?? fallback, drivers: drivers, configuration: configuration)
    }

    // MARK: Running work

    /// Runs `body` on one connection in autocommit mode: each statement commits on its own.
    ///
    /// Where `body` runs:
    /// - alone (no other call of this database holds a connection), or called from an actor: on the
    ///   caller's thread, as a plain function call (an actor's state must stay on the actor);
    /// - otherwise, when the driver's calls may block (``Driver/callsMayBlock``: SQLite, PostgreSQL), on
    ///   the connection's own thread while the caller suspends, so that waiting on the network or on a
    ///   lock never holds one of Swift's cooperative threads (there is one per core) and every pooled
    ///   connection can have a statement in flight. So, actors aside, at most one call per database waits
    ///   on a cooperative thread at a time, and a single task's calls pay no thread hop. A call that has to wait
    ///   for a connection queues with its body: the thread of the connection that frees up runs it there and
    ///   then, and the caller's task wakes once, with the answer;
    /// - alone, but while lone calls of other databases already run on one cooperative thread fewer than there
    ///   are (one per core, at least one): on the connection's thread too. So, actors aside, blocking calls never
    ///   hold every cooperative thread, however many databases wait at once (a SQLite busy wait on a lock another
    ///   process holds, say).
    ///
    /// A body that ran on the caller's thread on a free connection made the call suspend nowhere; every 64th such
    /// call across the process yields (`Task.yield()`) once its connection is back, so that a loop of calls never
    /// holds a cooperative thread for as long as it loops.
    ///
    /// On a connection's thread the body sees no task: `Task.isCancelled` is false and task-local
    /// values are their defaults. A cancelled task's body runs to its end (the connection is never left
    /// halfway); cancellation is noticed while waiting for a connection.
    ///
    /// - Throws: what `body` throws; ``StrataError/poolTimeout(seconds:)`` when no connection frees up
    ///   within ``Configuration/poolTimeout``; `CancellationError` when the task is cancelled while it
    ///   waits for one.
    nonisolated(nonsending)
        public func withConnection<T>(_ body: (Transaction) throws -> T) async throws -> T
    {
        try await withConnection(from: pool, body)
    }

    /// ``withConnection(_:)`` on a connection of `pool` (the primary's, or a replica's).
    nonisolated(nonsending)
        func withConnection<T>(from pool: ConnectionPool, _ body: (Transaction) throws -> T) async throws -> T
    {
        // Read here, in the caller's task: on a connection's thread the task-local is not set.
        let observer = callerObserver
        let lease: Lease
        let alone: Bool
        if pool.driver.callsMayBlock && #isolation == nil {
            // A free connection (or a slot to open one) is taken without an async call; a call that must wait queues
            // with its body: the thread of the connection handed over runs it and gives the connection back as it
            // ends (QueuedCall), and this task wakes once, with the answer. A watched pool times every wait.
            switch pool.watched ? nil : try pool.checkout() {
            case .use(let l, let a)?: (lease, alone) = (l, a)
            case .open(let a)?: (lease, alone) = (try await pool.connect(alone: a), a)
            case .wait?, nil:
                switch try await pool.acquireOrRun({ (lease: Lease) throws -> T in
                    defer { pool.release(lease) }
                    return try run(body, on: lease, observer: observer)
                }) {
                case .ran(let result): return result
                case .lease(let l, let a): (lease, alone) = (l, a)
                }
            }
        } else {
            (lease, alone) = try await pool.acquire()
        }
        var givenBack = false
        defer { if !givenBack { pool.release(lease) } }
        if pool.driver.callsMayBlock && #isolation == nil {
            // Alone: on the caller's thread, unless as many lone bodies as may block cooperative threads already run
            // on them, across every database (InlineCalls).
            if alone && InlineCalls.enter() {
                let result: T
                do {
                    defer { InlineCalls.leave() }
                    result = try run(body, on: lease, observer: observer)
                }
                givenBack = true
                // ConnectionPool.releaseInline(_:), written out: one async call (a task allocation) less per call.
                pool.release(lease)
                if InlineCalls.yieldDue() { await Task.yield() }
                return result
            }
            return try await lease.thread.run {
                // Given back on the connection's thread as the body ends, not when this task next gets a cooperative
                // thread: the next waiter has the connection at once, however busy those threads are.
                defer {
                    pool.release(lease)
                    givenBack = true
                }
                return try run(body, on: lease, observer: observer)
            }
        }
        let result = try run(body, on: lease, observer: observer)
        givenBack = true
        pool.release(lease)
        if InlineCalls.yieldDue() { await Task.yield() }
        return result
    }

    /// Runs `body` on a leased connection, on the current thread.
    ///
    /// A connection goes back to the pool in autocommit: when `body` left a transaction open (a raw `BEGIN` with
    /// no `COMMIT`, a `ROLLBACK` that failed), it is rolled back, and the connection is dropped if that fails, so
    /// the next caller's writes never run inside it. A body that returned normally then throws
    /// ``StrataError/transactionMisuse(_:)``: what it wrote in that transaction is not kept.
    /// `observer` replaces the database's (a caller's logger, see ``callerObserver``).
    func run<T>(_ body: (Transaction) throws -> T, on lease: Lease, observer: StatementObserver? = nil) throws -> T {
        let tx = Transaction(connection: lease.connection, database: owner ?? self, depth: 0, observer: observer)
        // The bind arrays live with the lease from one call to the next (see ``Lease/keyBinds``).
        swap(&tx.keyBinds, &lease.keyBinds)
        swap(&tx.rowBinds, &lease.rowBinds)
        defer {
            swap(&tx.keyBinds, &lease.keyBinds)
            swap(&tx.rowBinds, &lease.rowBinds)
            tx.close()
        }
        let result: T
        do {
            result = try body(tx)
        } catch {
            if tx.mayLeaveTransactionOpen && lease.connection.isInTransaction {
                endStrayTransaction(on: lease)
                tx.endRawTransaction(committed: false)
            }
            throw error
        }
        if tx.mayLeaveTransactionOpen && lease.connection.isInTransaction {
            endStrayTransaction(on: lease)
            tx.endRawTransaction(committed: false)
            throw StrataError.transactionMisuse(
                "the call left a transaction open (a raw BEGIN with no COMMIT); it was rolled back")
        }
        return result
    }

    /// Rolls back a transaction a call left open on its connection; drops the connection when that fails.
    private func endStrayTransaction(on lease: Lease) {
        _ = try? lease.connection.execute(.rollback) { _ in }
        if lease.connection.isInTransaction || lease.connection.isBroken {
            lease.discard = true
        }
        (owner ?? self).changes.committed(nil)  // whatever it wrote is gone: observers read again
        (owner ?? self).observer.logger.warning(
            "a call left a transaction open on its connection; it was rolled back")
    }

    /// Runs `body` in a transaction on one connection: all of it commits, or none of it.
    ///
    /// A thrown error rolls back and is rethrown; ``Rollback`` rolls back quietly (see ``Rollback``). The driver's
    /// ``Driver/defaultRetry`` applies: none, but on CockroachDB (5 attempts after a serialization failure, each a
    /// whole transaction from scratch, so a retried body's writes are never doubled).
    ///
    /// ```swift
    /// try await db.transaction { tx in
    ///     var g = Group(title: "Students")
    ///     try g.save(tx)
    ///     try tx.savepoint { _ in throw Rollback() }
    /// }
    /// ```
    nonisolated(nonsending)
        public func transaction<T>(_ body: (Transaction) throws -> T) async throws -> T
    {
        let retry = driver.defaultRetry
        guard retry.maxAttempts > 1 else { return try await withConnection { tx in try tx.savepoint(body) } }
        return try await retry.run { _ in try await withConnection { tx in try tx.savepoint(body) } }
    }

    /// Runs raw SQL with bound values (see ``Transaction/unsafeRawExecute(_:_:)``).
    ///
    /// A plain `SELECT` goes through the pool's statement loop (PostgreSQL) when other calls hold connections, as
    /// `find` does, under a Sync of its own; anything else, or a call alone, runs on a connection of its own.
    @discardableResult
    nonisolated(nonsending)
        public func unsafeRawExecute(_ sql: String, _ binds: [any DatabaseValueConvertible] = []) async throws
        -> [[DatabaseValue]]
    {
        if pool.statementLoop != nil, RawSelect.isPlain(sql) {
            let isolation = #isolation  // bound first: `#isolation != nil` inline crashes Swift 6.3's code generation
            if isolation == nil, let rows = try await rawSelectOnLoop(sql, binds) { return rows }
        }
        return try await withConnection { tx in try tx.unsafeRawExecute(sql, binds) }
    }

    /// Closes idle connections; later calls fail with ``StrataError/connectionFailed(_:)``.
    ///
    /// Calls running now end normally and their connections close as they end; calls waiting for a connection
    /// are refused. To let those finish first, use ``close(gracePeriod:)``.
    public func close() {
        if let owner { return owner.close() }
        pool.close()
        replicas?.close()
    }

    /// Whether the database refuses new calls: ``close()`` or ``close(gracePeriod:)`` has begun (a readiness check
    /// can report a server shutting down with it).
    public var isClosed: Bool { (owner ?? self).pool.isClosed }

    /// Closes the database gracefully: refuses new calls at once, lets the calls in flight (running, or waiting for
    /// a connection) end within `gracePeriod`, then closes.
    ///
    /// ```swift
    /// let drained = await db.close(gracePeriod: .seconds(10))
    /// ```
    ///
    /// A call made once this begins throws ``StrataError/connectionFailed(_:)`` ("the database is closed"), as after
    /// ``close()``. A call still running when `gracePeriod` ends is not interrupted (its body is synchronous): it
    /// runs to its end, and its connection closes then. Cancelling the task ends the wait early. In a server, the
    /// `StrataServiceLifecycle` module's `DatabaseService` calls this on graceful shutdown.
    ///
    /// - Returns: whether every call in flight ended within `gracePeriod`.
    @discardableResult
    public func close(gracePeriod: Duration) async -> Bool {
        if let owner { return await owner.close(gracePeriod: gracePeriod) }
        let pools = [pool] + (replicas?.beginDraining() ?? [])
        pool.beginDraining()
        let deadline = ContinuousClock.now + gracePeriod
        var drained = pools.allSatisfy(\.isDrained)
        while !drained && ContinuousClock.now < deadline && !Task.isCancelled {
            // Polled, not signalled: this runs once, at shutdown, and a millisecond is well within any grace period.
            try? await Task.sleep(until: min(deadline, .now + .milliseconds(1)))
            drained = pools.allSatisfy(\.isDrained)
        }
        if !drained {
            observer.logger.warning(
                "closing with calls still in flight after the grace period; their connections close as they end",
                metadata: ["db.pool.in_use": .stringConvertible(pools.reduce(0) { $0 + $1.inUseCount })])
        }
        for pool in pools { pool.close() }
        replicas?.close()
        return drained
    }
}
