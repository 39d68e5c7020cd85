// Database+Replicas: read replicas: reads outside transactions go to a hot standby, and to the primary when none answers.
import Foundation
import Logging
import Synchronization

extension Database {
    /// Opens a database whose reads outside transactions go to read replicas (hot standbys of `driver`'s
    /// database), in turn, and whose writes and transactions go to `driver`.
    ///
    /// ```swift
    /// let primary = PostgresDriver(options: PostgresConnectionOptions(host: "db1"))
    /// let standby = PostgresDriver(options: PostgresConnectionOptions(host: "db2"))
    /// let db = Database(driver: primary, replicas: [standby])
    /// ```
    ///
    /// Opening by URL does the same with `?replicas=db2:5432,db3:5432` (see ``Configuration/replicas``).
    /// What goes where, and what a replica that is down or behind means for a caller: see ``read(_:)``.
    ///
    /// - Parameters:
    ///   - driver: the primary, where writes and transactions go.
    ///   - replicas: the replicas' drivers; each gets a pool of its own, as large as the primary's.
    ///   - configuration: the options, shared by every pool.
    public convenience init(driver: any Driver, replicas: [any Driver], configuration: Configuration = Configuration())
    {
        let sources = replicas.enumerated().map { i, replica in
            ReplicaSource(name: "replica \(i + 1)", make: { replica })
        }
        self.init(driver: driver, replicaSources: sources, configuration: configuration)
    }

    /// This database with every read on the primary: read-your-writes for one call.
    ///
    /// ```swift
    /// try await order.save(on: db)                                    // primary
    /// let mine = try await Order.query(on: db.primary).all()          // primary: sees the order
    /// let maybe = try await Order.query(on: db).all()                 // a replica: may not see it yet
    /// ```
    ///
    /// Without replicas it is the database itself. The view shares the database's pools, statement count,
    /// logger and observers; closing it closes the database.
    public var primary: Database {
        replicas == nil ? self : Database(primaryOf: self)
    }

    /// Whether this database sends reads to replicas (it was opened with some, and is not a ``primary`` view).
    public var hasReplicas: Bool { replicas != nil }

    /// Runs a read on a replica: `body` on one of its connections, outside a transaction (each statement
    /// commits on its own). Without replicas, and on a ``primary`` view, the same as ``withConnection(_:)``.
    ///
    /// The async query calls (`all`, `first`, `count`, `exists`, `values`, aggregates, joins), `find` and the
    /// association fetches of a `Database` read through here; writes, ``transaction(_:)``, `reload`,
    /// ``withConnection(_:)``, the raw SQL calls and the synchronous entries (``readSync(_:)``) use the primary.
    ///
    /// - Replicas are used in turn. One that cannot be reached (``StrataError/connectionFailed(_:)``,
    ///   ``StrataError/connectionLost(_:)``, ``StrataError/authenticationFailed(_:)``: down, restarting,
    ///   refused) is skipped for ``Configuration/replicaRetryInterval`` seconds, logged at `.warning` on the
    ///   database's logger, and the read runs on the next replica or the primary: a replica that is down is
    ///   never an error to the caller. When it answers again that is logged at `.notice`.
    /// - When a connection is lost in the middle of `body`, `body` runs again elsewhere, so it should only read.
    ///   A write on a hot standby fails (PostgreSQL: `cannot execute … in a read-only transaction`).
    /// - A replica that is up but behind (replication lag) answers with what it has replayed so far: a row
    ///   just written on the primary may be missing for a moment. Read what you just wrote from ``primary``.
    ///
    /// - Throws: what `body` throws, and the errors of ``withConnection(_:)``.
    nonisolated(nonsending)
        public func read<T>(_ body: (Transaction) throws -> T) async throws -> T
    {
        guard let replicas else { return try await withConnection(body) }
        for member in replicas.inTurn() {
            guard let pool = member.pool() else { continue }
            do {
                let result = try await withConnection(from: pool, body)
                member.answered(logger)
                return result
            } catch let error as StrataError where error.meansUnreachable {
                member.markDown(error, logger: logger)
            }
        }
        return try await withConnection(body)
    }
}

extension StrataError {
    /// Whether the error says the server could not be reached or dropped the connection (not a query error).
    var meansUnreachable: Bool {
        switch self {
        case .connectionFailed, .connectionLost, .authenticationFailed: return true
        default: return false
        }
    }
}

/// Where a replica's driver comes from: made on first use (opening by URL connects once to check the server).
struct ReplicaSource: Sendable {
    /// `host:port` (or `replica N`), for logs.
    let name: String
    let make: @Sendable () throws -> any Driver
}

/// A database's replicas, handed out in turn.
final class ReplicaSet: Sendable {
    let members: [ReplicaMember]
    private let turn = Atomic<UInt>(0)

    init(_ sources: [ReplicaSource], capacity: Int, configuration: Configuration, observer: StatementObserver) {
        members = sources.map {
            ReplicaMember(
                source: $0, capacity: capacity, poolTimeout: configuration.poolTimeout,
                retryInterval: configuration.replicaRetryInterval, observer: observer)
        }
    }

    /// Every replica, starting with the next one in turn.
    func inTurn() -> [ReplicaMember] {
        if members.count < 2 { return members }
        let start = Int(turn.wrappingAdd(1, ordering: .relaxed).oldValue % UInt(members.count))
        return Array(members[start...] + members[..<start])
    }

    func close() { for m in members { m.close() } }

    /// Closes every replica to new reads and returns the pools whose calls in flight are to be drained (see
    /// ``Database/close(gracePeriod:)``); the caller closes them.
    func beginDraining() -> [ConnectionPool] { members.compactMap { $0.beginDraining() } }
}

/// One replica: its pool once its driver is made, and until when it is skipped after failing.
final class ReplicaMember: Sendable {
    private struct State {
        var driver: (any Driver)?
        var pool: ConnectionPool?
        var downUntil: ContinuousClock.Instant?
        /// Whether a read is making the driver now (others skip the replica meanwhile).
        var making = false
        var closed = false
    }

    let source: ReplicaSource
    private let capacity: Int
    private let poolTimeout: Double
    private let retryInterval: Double
    private let observer: StatementObserver
    private let state = Mutex(State())

    init(source: ReplicaSource, capacity: Int, poolTimeout: Double, retryInterval: Double, observer: StatementObserver)
    {
        self.source = source
        self.capacity = capacity
        self.poolTimeout = poolTimeout
        self.retryInterval = retryInterval.isNaN ? 0 : max(0, retryInterval)
        self.observer = observer
    }

    /// The replica's pool, making its driver first when needed; nil while it is down, closed or being made.
    func pool() -> ConnectionPool? {
        let now = ContinuousClock.now
        let step: (pool: ConnectionPool?, make: Bool) = state.withLock { s in
            if s.closed || s.making { return (nil, false) }
            if let until = s.downUntil, now < until { return (nil, false) }
            if let pool = s.pool { return (pool, false) }
            if let driver = s.driver {
                let pool = makePool(driver)
                s.pool = pool
                return (pool, false)
            }
            s.making = true
            return (nil, true)
        }
        guard step.make else { return step.pool }
        do {
            let driver = try source.make()
            return state.withLock { s in
                s.making = false
                s.driver = driver
                if s.closed { return nil }
                let pool = makePool(driver)
                s.pool = pool
                return pool
            }
        } catch {
            state.withLock { $0.making = false }
            markDown(error, logger: observer.logger)
            return nil
        }
    }

    private func makePool(_ driver: any Driver) -> ConnectionPool {
        ConnectionPool(driver: driver, capacity: capacity, timeout: poolTimeout, observer: observer)
    }

    /// Skips the replica for the retry interval; its pool is dropped (its idle connections are dead too).
    func markDown(_ error: any Error, logger: Logger) {
        let dropped: ConnectionPool? = state.withLock { s in
            s.downUntil = .now + .seconds(retryInterval)
            defer { s.pool = nil }
            return s.pool
        }
        dropped?.close()
        logger.warning(
            "read replica unreachable; reading from another replica or the primary",
            metadata: [
                "db.replica": .string(source.name), "db.error": .string("\(error)"),
                "db.replica.retry_s": .stringConvertible(retryInterval),
            ])
    }

    /// Notes a read that succeeded: the first after a failure is logged at `.notice`.
    func answered(_ logger: Logger) {
        let wasDown = state.withLock { s in
            defer { s.downUntil = nil }
            return s.downUntil != nil
        }
        if wasDown { logger.notice("read replica answers again", metadata: ["db.replica": .string(source.name)]) }
    }

    /// Closes the replica to new reads; returns its pool, draining (see ``ConnectionPool/beginDraining()``).
    func beginDraining() -> ConnectionPool? {
        let pool: ConnectionPool? = state.withLock { s in
            s.closed = true
            defer { s.pool = nil }
            return s.pool
        }
        pool?.beginDraining()
        return pool
    }

    func close() {
        let pool: ConnectionPool? = state.withLock { s in
            s.closed = true
            defer { s.pool = nil }
            return s.pool
        }
        pool?.close()
    }
}
