// Transaction+Prepared: runs a prepared query: its remembered SQL with the values bound, or the query substituted.

extension Transaction {
    /// Runs `plan`'s SELECT with `values` (by the index of its names) and hands each row to `onRow`.
    ///
    /// On a connection that renders SQL, values that render alike at the generations the plan's SQL was checked at
    /// are bound into that SQL, and only the checks a value can fail run (``ValueCheck``): the statement's shape
    /// passed the others. Otherwise the SELECT runs with the values in place, through every check, as an unprepared
    /// query would, and its SQL is remembered for the next run.
    func runPrepared(_ plan: PreparedPlan, values: [DatabaseValue], onRow: (any RowReader) throws -> Void) throws
        -> Int
    {
        guard let sql = sqlConnection, let (dialect, dialectName) = sqlDialect else {
            return try runSubstituted(plan, values, onRow: onRow)
        }
        return try withRendering(
            plan, values, dialect: dialect, dialectName: dialectName, locksRows: true,
            substituted: { select in try runSubstituted(select, plan, onRow: onRow) },
            bound: { rendering, binds in
                try runRendered(RenderedSQL(sql: rendering.sql, binds: binds), shape: rendering.shape, on: sql, onRow)
            })
    }

    /// The plan of `plan`'s SELECT with `values`, its lines joined by newlines (see `explainText(_:)`).
    func explainPrepared(_ plan: PreparedPlan, values: [DatabaseValue]) throws -> String {
        guard let sql = sqlConnection, let (dialect, dialectName) = sqlDialect, let syntax = dialect.explainSyntax
        else {
            let select = plan.substituted(values)
            try plan.recheck(self, select)
            return try explainText(select)
        }
        return try withRendering(
            plan, values, dialect: dialect, dialectName: dialectName, locksRows: false,
            substituted: { select in
                try plan.recheck(self, select)
                return try explainText(select)
            },
            bound: { rendering, binds in
                var plan = PlanText()
                let explained = RenderedSQL(sql: rendering.explaining(prefix: syntax.prefix), binds: binds)
                _ = try runRendered(explained, shape: nil, on: sql) { r in
                    if let line = syntax.line(of: r) { plan.append(line) }
                }
                return plan.text
            })
    }

    /// Runs `plan` with `values` on a connection that renders SQL in `dialect`: `bound` with the SQL the plan
    /// remembered and its binds, when `values` render alike at the generations it was checked at, after the checks
    /// a value can fail (and, for a read that `locksRows`, the row lock's); else `substituted` with the SELECT with
    /// the values in place, whose SQL the plan then remembers.
    private func withRendering<T>(
        _ plan: PreparedPlan, _ values: [DatabaseValue], dialect: any Dialect, dialectName: String, locksRows: Bool,
        substituted: (Select) throws -> T, bound: (PreparedPlan.Rendering, [DatabaseValue]) throws -> T
    ) throws -> T {
        let schemas = database.knownSchemas.generation
        let textColumns = database.textStoredColumns.generation.load(ordering: .sequentiallyConsistent)
        guard
            let rendering = plan.rendering(
                for: values, dialect: dialectName, schemas: schemas, textColumns: textColumns)
        else {
            let select = plan.substituted(values)
            let result = try substituted(select)
            if let rendered = try? SQLRenderer.render(.select(select), dialect: dialect) {
                plan.remember(
                    rendered, of: select, values: values, dialect: dialect, schemas: schemas, textColumns: textColumns)
            }
            return result
        }
        // The binds in the array finds keep (see `takeKeyBinds()`): no array allocated per run.
        var binds = takeKeyBinds()
        defer { putBackKeyBinds(&binds) }
        rendering.fill(&binds, values)
        try checkBeforeRunning {
            try checkOpen()
            if abortedDepth != nil { try checkNotAborted(nil) }
            try ValueCheck.checkBinds(binds) { .select(plan.substituted(values)) }
            if locksRows, let shape = rendering.shape { try checkRowLock(shape) }
        }
        return try bound(rendering, binds)
    }

    /// Runs the checks made before a statement reaches the driver; a refusal is reported to the observer as one made
    /// before running, as for any statement.
    @inline(__always)
    private func checkBeforeRunning(_ checks: () throws -> Void) throws {
        guard observer.isActive else { return try checks() }
        do {
            try checks()
        } catch {
            observer.failedBeforeRunning(error)
            throw error
        }
    }

    /// Runs `plan`'s SELECT with `values` in place, as an unprepared query (the memory driver evaluates it).
    private func runSubstituted(_ plan: PreparedPlan, _ values: [DatabaseValue], onRow: (any RowReader) throws -> Void)
        throws -> Int
    {
        try runSubstituted(plan.substituted(values), plan, onRow: onRow)
    }

    private func runSubstituted(_ select: Select, _ plan: PreparedPlan, onRow: (any RowReader) throws -> Void) throws
        -> Int
    {
        try plan.recheck(self, select)
        return try execute(.select(select), onRow: onRow)
    }

    /// Runs SQL the checks passed for on `sql`, measured and logged as a SELECT; `shape` is what the driver reads of
    /// the statement (nil for an EXPLAIN).
    private func runRendered(
        _ rendered: RenderedSQL, shape: Statement?, on sql: any SQLConnection,
        _ onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        database.statementCounter.add(1, ordering: .relaxed)
        guard observer.isActive else {
            return try running { try sql.run(rendered, statement: shape, onRow: onRow) }
        }
        let start = observer.start()
        var returned = 0
        let changed: Int
        do {
            changed = try running {
                try sql.run(rendered, statement: shape) { row in
                    returned &+= 1
                    try onRow(row)
                }
            }
        } catch {
            observer.failed(.select, start: start, error: error, describe: { (rendered.sql, rendered.binds) })
            throw error
        }
        observer.finished(
            .select, start: start, returned: returned, changed: changed, describe: { (rendered.sql, rendered.binds) })
        return changed
    }
}
