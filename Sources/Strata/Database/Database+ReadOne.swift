// Database+ReadOne: a single read statement, through the driver's statement loop when other calls are in flight.

extension Database {
    /// Runs one read of a fixed shape in autocommit, as `read { tx in try tx.execute(template: …) }` does, but through
    /// the pool's ``StatementLoop`` (PostgreSQL) when other calls hold connections: no thread per statement.
    ///
    /// The rows reach `onRow` on the caller's thread either way.
    ///
    /// A pool without a statement loop (SQLite, memory) and a database without replicas take
    /// ``withConnection(_:)`` at once: every other path comes to that there, through three more async calls
    /// (a lookup's hop cost about 1,000 instructions more).
    @usableFromInline
    nonisolated(nonsending)
        package func readOne(
            template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
            onRow: (any RowReader) throws -> Void
        ) async throws -> Int
    {
        if replicas == nil, pool.statementLoop == nil {
            return try await withConnection(from: pool) { tx in
                try tx.execute(template: template, binds: binds, statement: statement, onRow: onRow)
            }
        }
        let isolation = #isolation  // bound first: `#isolation != nil` inline crashes Swift 6.3's code generation
        return try await readOne(
            fromActor: isolation != nil, check: { try ValueCheck.checkBinds(binds, statement: statement) },
            prepare: { loop in try loop.prepare(template: template, binds: binds, statement: statement) },
            run: { tx in try tx.execute(template: template, binds: binds, statement: statement, onRow: onRow) },
            describe: {
                guard let built = try? statement() else { return ("\(template.kind)", binds) }
                return Self.describe(built)
            },
            onRow: onRow)
    }

    /// Runs `body` on a connection in autocommit, as ``readOne(template:binds:statement:onRow:)`` would, when reads
    /// here take no other way (no replicas to pick from, no statement loop: SQLite, memory); false, running nothing,
    /// when they may. A one-shot find then runs as a find in a transaction does (``Model/find(_:_:)``): its template
    /// is not handed through `readOne`'s closures (a copy of its kind and table name at each step, about 300
    /// instructions a lookup). Not generic, so that `withConnection` is specialized here.
    @usableFromInline
    nonisolated(nonsending)
        package func readOnConnection(_ body: (Transaction) throws -> Void) async throws -> Bool
    {
        guard replicas == nil, pool.statementLoop == nil else { return false }
        try await withConnection(from: pool, body)
        return true
    }

    /// ``readOne(template:binds:statement:onRow:)`` for a SELECT built for this call. A SELECT that locks rows or
    /// streams them runs the ordinary way.
    @usableFromInline
    nonisolated(nonsending)
        package func readOne(_ select: Select, onRow: (any RowReader) throws -> Void) async throws -> Int
    {
        let statement = Statement.select(select)
        guard select.lock == nil, !select.streamsRows else {
            return try await read { tx in try tx.execute(statement, onRow: onRow) }
        }
        let isolation = #isolation  // bound first: `#isolation != nil` inline crashes Swift 6.3's code generation
        return try await readOne(
            fromActor: isolation != nil,
            check: {
                // The checks Transaction.execute runs, before a statement of the loop reaches the connection.
                try ValueCheck.check(statement)
                try StatementCheck.check(statement, schemas: knownSchemas)
            },
            prepare: { loop in try loop.prepare(template: nil, binds: [], statement: { statement }) },
            run: { tx in try tx.execute(statement, onRow: onRow) },
            describe: { Self.describe(statement) },
            onRow: onRow)
    }

    /// A statement's SQL and binds for a log line of the statement loop (PostgreSQL's: rendered as PostgreSQL writes
    /// it).
    private static func describe(_ statement: Statement) -> (sql: String, binds: [DatabaseValue]) {
        guard let rendered = try? SQLRenderer.render(statement, dialect: DescriptionDialect()) else {
            return ("\(statement)", [])
        }
        return (rendered.sql, rendered.binds)
    }

    /// Picks the pool as ``read(_:)`` does (a replica in turn, skipping one that cannot be reached, else the
    /// primary) and runs the statement there.
    nonisolated(nonsending)
        private func readOne(
            fromActor: Bool, check: () throws -> Void, prepare: (any StatementLoop) throws -> any LoopStatement,
            run: (Transaction) throws -> Int, describe: () -> (sql: String, binds: [DatabaseValue]),
            onRow: (any RowReader) throws -> Void
        ) async throws -> Int
    {
        // Statements logged one by one (the caller's logger's too), and calls from an actor (whose state must stay on
        // it: `fromActor`), go the ordinary way. Measured ones (metrics, a slow-statement threshold) stay on the loop.
        if observer.logsStatements || fromActor || Self.callerLogsStatements { return try await read(run) }
        let caller = callerObserver  // read here, in the caller's task
        // Measured on the loop, by the caller's observer when it has one (its logger gets the slow-statement warnings).
        let measuredBy = (caller ?? observer).isActive ? caller ?? observer : nil
        guard let replicas else {
            return try await readOne(
                from: pool, check: check, prepare: prepare, run: run, caller: caller, measuredBy: measuredBy,
                describe: describe, onRow: onRow)
        }
        for member in replicas.inTurn() {
            guard let pool = member.pool() else { continue }
            do {
                let result = try await readOne(
                    from: pool, check: check, prepare: prepare, run: run, caller: caller, measuredBy: measuredBy,
                    describe: describe, onRow: onRow)
                member.answered(logger)
                return result
            } catch let error as StrataError where error.meansUnreachable {
                member.markDown(error, logger: logger)
            }
        }
        return try await readOne(
            from: pool, check: check, prepare: prepare, run: run, caller: caller, measuredBy: measuredBy,
            describe: describe, onRow: onRow)
    }

    nonisolated(nonsending)
        func readOne(
            from pool: ConnectionPool, check: () throws -> Void,
            prepare: (any StatementLoop) throws -> any LoopStatement, run: (Transaction) throws -> Int,
            caller: StatementObserver?, measuredBy: StatementObserver?,
            describe: () -> (sql: String, binds: [DatabaseValue]), onRow: (any RowReader) throws -> Void
        ) async throws -> Int
    {
        guard let loop = pool.statementLoop else { return try await withConnection(from: pool, run) }
        var prepared: (any LoopStatement)?
        return try await pool.runOnLoop(
            loop,
            prepare: {
                if let prepared { return prepared }
                do {
                    try check()
                } catch {
                    measuredBy?.failedBeforeRunning(error)
                    throw error
                }
                let made = try prepare(loop)
                prepared = made
                (owner ?? self).statementCounter.add(1, ordering: .relaxed)
                return made
            },
            // On the caller's thread, as withConnection runs it.
            alone: { lease in try self.run(run, on: lease, observer: caller) },
            onRow: onRow, observer: measuredBy, describe: describe)
    }

}
