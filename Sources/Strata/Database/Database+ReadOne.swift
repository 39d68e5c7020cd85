// Database+ReadOne: a single read statement, through the driver's statement loop when other calls are in flight.

extension Database {
    /// Runs one read of a fixed shape in autocommit, as `read { tx in try tx.execute(template: …) }` does, but through
    /// the pool's ``StatementLoop`` (PostgreSQL) when other calls hold connections: no thread per statement.
    ///
    /// The rows reach `onRow` on the caller's thread either way.
    nonisolated(nonsending)
        package func readOne(
            template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
            onRow: (any RowReader) throws -> Void
        ) async throws -> Int
    {
        let isolation = #isolation  // bound first: `#isolation != nil` inline crashes Swift 6.3's code generation
        return try await readOne(
            fromActor: isolation != nil, check: { try ValueCheck.checkBinds(binds, statement: statement) },
            prepare: { loop in try loop.prepare(template: template, binds: binds, statement: statement) },
            run: { tx in try tx.execute(template: template, binds: binds, statement: statement, onRow: onRow) },
            onRow: onRow)
    }

    /// ``readOne(template:binds:statement:onRow:)`` for a SELECT built for this call. A SELECT that locks rows or
    /// streams them runs the ordinary way.
    nonisolated(nonsending)
        package func readOne(_ select: Select, onRow: (any RowReader) throws -> Void) async throws -> Int
    {
        let statement = Statement.select(select)
        guard select.lock == nil, !select.streamsRows else {
            return try await read { tx in try tx.execute(statement, onRow: onRow) }
        }
        let isolation = #isolation  // bound first: `#isolation != nil` inline crashes Swift 6.3's code generation
        return try await readOne(
            fromActor: isolation != nil, check: { try ValueCheck.check(statement) },
            prepare: { loop in try loop.prepare(template: nil, binds: [], statement: { statement }) },
            run: { tx in try tx.execute(statement, onRow: onRow) },
            onRow: onRow)
    }

    /// Picks the pool as ``read(_:)`` does (a replica in turn, skipping one that cannot be reached, else the
    /// primary) and runs the statement there.
    nonisolated(nonsending)
        private func readOne(
            fromActor: Bool, check: () throws -> Void, prepare: (any StatementLoop) throws -> any LoopStatement,
            run: (Transaction) throws -> Int, onRow: (any RowReader) throws -> Void
        ) async throws -> Int
    {
        // Logged or measured statements (the caller's logger's too), and calls from an actor (whose state must stay on
        // it: `fromActor`), go the ordinary way.
        if observer.isActive || fromActor || Self.callerLogsStatements { return try await read(run) }
        guard let replicas else {
            return try await readOne(from: pool, check: check, prepare: prepare, run: run, onRow: onRow)
        }
        for member in replicas.inTurn() {
            guard let pool = member.pool() else { continue }
            do {
                let result = try await readOne(from: pool, check: check, prepare: prepare, run: run, onRow: onRow)
                member.answered(logger)
                return result
            } catch let error as StrataError where error.meansUnreachable {
                member.markDown(error, logger: logger)
            }
        }
        return try await readOne(from: pool, check: check, prepare: prepare, run: run, onRow: onRow)
    }

    nonisolated(nonsending)
        private func readOne(
            from pool: ConnectionPool, check: () throws -> Void,
            prepare: (any StatementLoop) throws -> any LoopStatement, run: (Transaction) throws -> Int,
            onRow: (any RowReader) throws -> Void
        ) async throws -> Int
    {
        guard let loop = pool.statementLoop else { return try await withConnection(from: pool, run) }
        var prepared: (any LoopStatement)?
        return try await pool.runOnLoop(
            loop,
            prepare: {
                if let prepared { return prepared }
                try check()
                let made = try prepare(loop)
                prepared = made
                (owner ?? self).statementCounter.add(1, ordering: .relaxed)
                return made
            },
            alone: { lease in try self.run(run, on: lease) },  // on the caller's thread, as withConnection runs it
            onRow: onRow)
    }

}
