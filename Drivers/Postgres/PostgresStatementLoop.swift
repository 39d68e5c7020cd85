// PostgresStatementLoop: the PostgreSQL driver's statement loop, a thread or two sending many tasks' single reads.
import CPostgres
import Foundation
import Strata
import Synchronization

/// The PostgreSQL driver's ``StatementLoop``: the reads that concurrent tasks send through a pool (`find`, `all`,
/// `first`, `count`, …) go out from one or two ``PostgresLoopThread``s, each waiting on its connections' sockets in
/// one `poll`, the way `pgbench -j` drives its clients. Under load a statement costs no thread of its own, no
/// thread hop to start it, and no wake-up of its own: a `poll` often returns several answers, and a freed
/// connection takes the next queued statement at once. Rows are decoded on the caller's thread
/// (``PostgresLoopAnswer``); the loop's threads only send and receive.
///
/// A connection stays with one thread (one for each eight connections, at most one per core), so that when a thread
/// is preempted, the connections of the others go on.
final class PostgresStatementLoop: StatementLoop, Sendable {
    private let dialect = PostgresDialect()
    /// Templates' SQL, its hash and a statement of their shape (for errors), rendered once per pool.
    private let plans = Mutex<[StatementTemplate: (sql: String, hash: Int, shape: Statement)]>([:])
    private let threads: [PostgresLoopThread]
    private let nextThread = Atomic<Int>(0)

    let takesLoneCalls: Bool

    /// A loop for a pool of `capacity` connections; `always`: it runs calls alone too.
    init(capacity: Int, always: Bool) {
        takesLoneCalls = always
        let count = max(1, min(ProcessInfo.processInfo.activeProcessorCount, (capacity + 7) / 8))
        threads = (0..<count).map { _ in PostgresLoopThread() }
    }

    func prepare(template: StatementTemplate?, binds: [DatabaseValue], statement: () throws -> Statement) throws
        -> any LoopStatement
    {
        guard let template else {
            let built = try statement()
            let rendered = try SQLRenderer.render(built, dialect: dialect)
            return try PostgresLoopStatement(
                sql: rendered.sql, sqlHash: rendered.sql.hashValue, binds: rendered.binds, shape: built)
        }
        if let plan = plans.withLock({ $0[template] }) {
            return try PostgresLoopStatement(sql: plan.sql, sqlHash: plan.hash, binds: binds, shape: plan.shape)
        }
        let built = try statement()
        let rendered = try SQLRenderer.render(built, dialect: dialect)
        let hash = rendered.sql.hashValue
        plans.withLock { $0[template] = (rendered.sql, hash, built) }
        return try PostgresLoopStatement(sql: rendered.sql, sqlHash: hash, binds: binds, shape: built)
    }

    func start(_ statement: any LoopStatement, reply: LoopReply, lease: LoopLease) {
        guard let statement = statement as? PostgresLoopStatement,
            let connection = lease.connection as? PostgresConnection
        else {
            lease.release()
            reply(.answered(PostgresLoopAnswer(error: .connectionFailed("not a PostgreSQL connection"))))
            return
        }
        let slot = connection.loopSlot ?? nextThread.wrappingAdd(1, ordering: .relaxed).oldValue % threads.count
        connection.loopSlot = slot
        threads[slot].start(
            PostgresLoopThread.Job(statement: statement, reply: reply, lease: lease, connection: connection))
    }

    func stop() {
        for thread in threads { thread.stop() }
    }

    /// How many times its threads were started, and how many run now (for tests of the idle limit).
    var threadActivity: (started: Int, running: Int) {
        threads.reduce(into: (0, 0)) { sum, thread in
            let activity = thread.activity
            sum.0 += activity.launches
            sum.1 += activity.running ? 1 : 0
        }
    }
}

/// A statement rendered and bound for the loop, on the caller's thread.
final class PostgresLoopStatement: LoopStatement {
    let key: PostgresConnection.Key
    let binds: PostgresBinds
    /// The statement (or one of the template's shape), for the table its errors name.
    let shape: Statement

    init(sql: String, sqlHash: Int, binds: [DatabaseValue], shape: Statement) throws {
        self.binds = try PostgresBinds(binds, table: shape.tableName)
        key = PostgresConnection.Key(sql: sql, types: self.binds.types, sqlHash: sqlHash)
        self.shape = shape
    }
}

extension PostgresDriver: StatementLoopDriver {
    package func makeStatementLoop(capacity: Int) -> (any StatementLoop)? {
        switch options.loop {
        case .off: return nil
        case .auto: return capacity > 1 ? PostgresStatementLoop(capacity: capacity, always: false) : nil
        case .always: return PostgresStatementLoop(capacity: capacity, always: true)
        }
    }
}
