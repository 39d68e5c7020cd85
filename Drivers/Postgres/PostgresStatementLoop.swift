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
    private let plans = Mutex<TemplatePlans>(TemplatePlans())
    /// The raw SQL prepared last, its count of values and its plan: a server sending one raw `SELECT` from many tasks
    /// renders it, hashes it and reads its first keyword once (each about 1,000 to 10,000 instructions a statement),
    /// not on every call.
    private let lastRaw = Mutex<(sql: String, count: Int, plan: PostgresLoopPlan)?>(nil)
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
            let plan = PostgresLoopPlan(sql: rendered.sql, shape: built)
            return try PostgresLoopStatement(plan: plan, binds: rendered.binds)
        }
        if let plan = plans.withLock({ $0.plan(for: template) }) {
            return try PostgresLoopStatement(plan: plan, binds: binds)
        }
        let built = try statement()
        let plan = PostgresLoopPlan(sql: try SQLRenderer.render(built, dialect: dialect).sql, shape: built)
        plans.withLock { $0.keep(plan, for: template) }
        return try PostgresLoopStatement(plan: plan, binds: binds)
    }

    func prepareRaw(_ sql: String, binds: [DatabaseValue]) throws -> any LoopStatement {
        // The same raw SQL with as many values renders alike and binds the values as they are: its plan is reused.
        let count = binds.count
        if let plan = lastRaw.withLock({ last in last.flatMap { $0.count == count && $0.sql == sql ? $0.plan : nil } })
        {
            return try PostgresLoopStatement(plan: plan, binds: binds, solo: true)
        }
        let rendered = try SQLRenderer.renderRaw(sql, binds, dialect: dialect)
        let plan = PostgresLoopPlan(sql: rendered.sql, shape: nil)
        lastRaw.withLock { $0 = (sql, count, plan) }
        return try PostgresLoopStatement(plan: plan, binds: rendered.binds, solo: true)
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

/// The loop's plans of templates, and the one found last: many tasks sending the same find match it in place
/// (``StatementTemplate/isSame(as:)``) instead of hashing the template's table name (about 400 instructions a
/// statement).
struct TemplatePlans {
    private var byTemplate: [StatementTemplate: PostgresLoopPlan] = [:]
    private var last: (template: StatementTemplate, plan: PostgresLoopPlan)?

    /// The plan of `template`, if one was made.
    mutating func plan(for template: StatementTemplate) -> PostgresLoopPlan? {
        if let last, last.template.isSame(as: template) { return last.plan }
        guard let plan = byTemplate[template] else { return nil }
        last = (template, plan)
        return plan
    }

    /// Keeps `plan` for `template`.
    mutating func keep(_ plan: PostgresLoopPlan, for template: StatementTemplate) {
        byTemplate[template] = plan
        last = (template, plan)
    }
}

/// A statement's SQL (its hash computed once) and a statement of its shape, for the table its errors name: one per
/// template, shared by the statements made from it (the loop's, and a connection's own template plans).
final class PostgresLoopPlan: Sendable {
    let sql: String
    let sqlHash: Int
    /// Nil for raw SQL (its errors name no table).
    let shape: Statement?
    /// What the connection asks of the statement, worked out once.
    let traits: StatementTraits

    init(sql: String, shape: Statement?) {
        self.sql = sql
        sqlHash = sql.hashValue
        self.shape = shape
        traits = StatementTraits(shape, sql: sql)
    }
}

/// What a connection asks of a statement before running it: the table its errors name, whether it runs in its own
/// savepoint inside a transaction (``StatementSavepoints``), whether its rows stream, whether it gives an explicit
/// key. A template's plan keeps them: read from the statement on every call, they copied its SELECT or INSERT out of
/// the enum each time (about 850 instructions a lookup).
struct StatementTraits: Sendable {
    let table: String?
    let writes: Bool
    let streamsRows: Bool
    let hasExplicitKey: Bool
    /// Whether it changes a schema (see ``PostgresSchemaEpoch``).
    let changesSchema: Bool

    init(_ statement: Statement?, sql: String) {
        table = statement?.tableName
        writes = StatementSavepoints.needed(for: statement, sql: sql)
        switch statement {
        case .createTable?, .createIndex?, .dropTable?, .addColumn?: changesSchema = true
        case nil: changesSchema = writes && PostgresConnection.isDDL(sql)
        default: changesSchema = false
        }
        if case .select(let select)? = statement { streamsRows = select.streamsRows } else { streamsRows = false }
        if case .insert(let insert)? = statement {
            hasExplicitKey = insert.explicitKey != nil
        } else {
            hasExplicitKey = false
        }
    }
}

/// A statement rendered and bound for the loop, on the caller's thread.
final class PostgresLoopStatement: LoopStatement {
    let key: PostgresConnection.Key
    let binds: PostgresBinds
    let plan: PostgresLoopPlan

    /// Whether it is sent in a group of its own (raw SQL, which may write through a function it calls: an error
    /// later in a shared group would undo that after its answer was given).
    let solo: Bool

    /// The statement (or one of the template's shape), for the table its errors name; nil for raw SQL.
    var shape: Statement? { plan.shape }

    init(plan: PostgresLoopPlan, binds: [DatabaseValue], solo: Bool = false) throws {
        self.binds = try PostgresBinds(binds, table: plan.shape?.tableName)
        key = PostgresConnection.Key(sql: plan.sql, types: self.binds.types, sqlHash: plan.sqlHash)
        self.plan = plan
        self.solo = solo
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
