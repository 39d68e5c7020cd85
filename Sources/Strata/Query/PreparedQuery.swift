// PreparedQuery: a query built, checked and rendered once, then run with its parameters' values.

/// A query built once and run many times, each time with the values of its ``QueryParameter``s.
///
/// ```swift
/// let author = QueryParameter<Int64>("author")
/// let least = QueryParameter<Int64>("least")
/// let popular = try Post.query(on: tx)
///     .where(\.userID == author && \.views >= least)
///     .order(\.views, .descending).limit(20)
///     .prepared()
/// let page = try popular.binding(author, to: 7).binding(least, to: 100).all()
/// ```
///
/// ```sql
/// -- SQLite
/// SELECT "id", "user_id", "title", "views" FROM "post" WHERE (("user_id" = ?) AND ("views" >= ?)) ORDER BY "views" DESC LIMIT ?
/// -- PostgreSQL
/// SELECT "id", "user_id", "title", "views" FROM "post" WHERE (("user_id" = $1) AND ("views" >= $2)) ORDER BY "views" DESC LIMIT $3
/// ```
///
/// A prepared query reads what the same query built with the values in place of its parameters reads, on every
/// driver, and is refused where that query would be. What it saves is the building: on a driver that renders SQL,
/// a run whose values are of the kinds of the last run's binds them into the SQL that run rendered, and the driver
/// runs the statement it prepared for that SQL. The memory driver evaluates the query with the values in place.
///
/// Bind with ``binding(_:to:)``, which returns a copy: one prepared query can be bound and run by many callers at
/// once (a prepared query on a ``Database`` is `Sendable`).
public struct PreparedQuery<M: Model, Executor> {
    let executor: Executor
    let plan: PreparedPlan
    let includes: [@Sendable (inout [M], Transaction) throws -> Void]
    /// The bound values, by the index of the plan's names; NULL where not bound (a parameter never takes NULL: see
    /// ``binding(_:to:)``).
    var values: [DatabaseValue]
    /// The first error met while binding (a name the query does not have, NULL); thrown when the query runs.
    var error: StrataError?

    init(executor: Executor, plan: PreparedPlan, includes: [@Sendable (inout [M], Transaction) throws -> Void]) {
        self.executor = executor
        self.plan = plan
        self.includes = includes
        self.values = Array(repeating: .null, count: plan.names.count)
    }

    /// The names of the query's parameters, in the order the query first uses them.
    public var parameterNames: [String] { plan.names }

    /// The query with `parameter` taking `value` (in place of a value it already took).
    ///
    /// - Parameters:
    ///   - parameter: one of the query's parameters.
    ///   - value: its value; NULL (a nil optional) is refused when the query runs, as a parameter the query does not
    ///     name is: ``StrataError/invalidQuery(_:)``.
    /// - Returns: the query bound.
    public func binding<V: DatabaseValueConvertible>(_ parameter: QueryParameter<V>, to value: V) -> Self {
        var copy = self
        guard let i = plan.names.firstIndex(of: parameter.name) else {
            if copy.error == nil {
                copy.error = .invalidQuery(
                    "the prepared \(M.modelName) query has no parameter \"\(parameter.name)\""
                        + " (its parameters: \(plan.names.map { "\"\($0)\"" }.joined(separator: ", ")))")
            }
            return copy
        }
        let v = value.databaseValue
        if v.isNull, copy.error == nil {
            copy.error = .invalidQuery(
                "parameter \"\(parameter.name)\" of the prepared \(M.modelName) query is bound to NULL, which no"
                    + " comparison matches: test for NULL with == nil or isNull")
        }
        copy.values[i] = v
        return copy
    }

    /// Refuses `count()` of a `distinct()` query, which the builder counts by the key (`COUNT(DISTINCT id)`).
    func refuseDistinctCount() throws(StrataError) {
        guard plan.select.distinct else { return }
        throw .invalidQuery(
            "count() of a prepared distinct() \(M.modelName) query: count it with the query builder's count()")
    }

    /// Every parameter's value, or the first error: a binding's, or a parameter left without a value.
    func boundValues() throws(StrataError) -> [DatabaseValue] {
        if let error { throw error }
        for i in values.indices where values[i].isNull { throw .unboundParameter(plan.names[i]) }
        return values
    }
}

extension PreparedQuery: Sendable where Executor: Sendable {}

extension QueryBuilder {
    /// The query prepared: built once, then checked and rendered at its first run, to run with the values of its
    /// ``QueryParameter``s (see ``PreparedQuery``).
    ///
    /// - Returns: the prepared query; bind each parameter with ``PreparedQuery/binding(_:to:)``.
    /// - Throws: the first error met while building the query, as running it would.
    public func prepared() throws -> PreparedQuery<M, Executor> {
        let select = try selectStatement()
        let plan = PreparedPlan(select: select) { tx, select in
            try QueryBuilder<M, Transaction>(executor: tx).checkNumberStorage(select)
        }
        return PreparedQuery(executor: executor, plan: plan, includes: includes)
    }
}

extension PreparedQuery where Executor == Transaction {
    /// All matching models.
    public func all() throws -> [M] {
        var out: [M] = []
        try fetch(plan, into: &out)
        for load in includes { try load(&out, executor) }
        return out
    }

    /// The first matching model, or nil (the query limited to one row).
    public func first() throws -> M? {
        var out: [M] = []
        try fetch(plan.firstRowPlan(), into: &out)
        for load in includes { try load(&out, executor) }
        return out.first
    }

    /// The number of matching rows (respecting the limit and offset), as the query builder's `count()` counts them.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` for a `distinct()` query (count it with the builder's `count()`),
    ///   and what `all()` throws.
    public func count() throws -> Int {
        try refuseDistinctCount()
        var n = 0
        _ = try executor.runPrepared(plan.countPlan(), values: try boundValues()) {
            n = QueryBuilder<M, Transaction>.count(in: $0)
        }
        return n
    }

    /// The backend's plan for the query with its values (see the query builder's `explain()`).
    public func explain() throws -> String {
        try executor.explainPrepared(plan, values: try boundValues())
    }

    /// Runs `plan` with the bound values and appends each decoded model to `out`.
    private func fetch(_ plan: PreparedPlan, into out: inout [M]) throws {
        guard case .columns(let columns) = plan.select.selection else { return }
        let values = try boundValues()
        let context = RowContext(model: M.self, schema: M.schema, selected: columns, keyring: executor.database.keyring)
        let scope = executor.undoScope
        _ = try executor.runPrepared(plan, values: values) { reader in
            out.append(try M(row: Row(reader: reader, context: context)))
            out[out.count - 1]._persistence.markRead(in: scope)
        }
    }
}

extension PreparedQuery where Executor == Database {
    /// The same query bound to a transaction's handle.
    private func on(_ tx: Transaction) -> PreparedQuery<M, Transaction> {
        var q = PreparedQuery<M, Transaction>(executor: tx, plan: plan, includes: includes)
        q.values = values
        q.error = error
        return q
    }

    /// All matching models (on a replica when the database has some; see ``Database/read(_:)``).
    nonisolated(nonsending) public func all() async throws -> [M] {
        if let select = try loopSelect(plan) { return try await readOne(select) }
        return try await executor.read { tx in try on(tx).all() }
    }

    /// The first matching model, or nil.
    nonisolated(nonsending) public func first() async throws -> M? {
        let plan = plan.firstRowPlan()
        if let select = try loopSelect(plan) { return try await readOne(select).first }
        return try await executor.read { tx in try on(tx).first() }
    }

    /// The number of matching rows (see the synchronous `count()`).
    nonisolated(nonsending) public func count() async throws -> Int {
        try refuseDistinctCount()
        let plan = plan.countPlan()
        guard let select = try loopSelect(plan, decodesModels: false) else {
            return try await executor.read { tx in try on(tx).count() }
        }
        var n = 0
        _ = try await executor.readOne(select) { n = QueryBuilder<M, Database>.count(in: $0) }
        return n
    }

    /// The SELECT of `plan` with the bound values in place, when the run joins the pool's statement loop
    /// (PostgreSQL's, see ``Database/readOne(_:onRow:)``) as the builder's one-shot reads do: on a loop, a read
    /// pipelined with the other tasks' costs the server and the client less than a connection of its own, where a
    /// prepared run would save the rendering. Nil for every other run: no loop (SQLite, memory), eager loading, a
    /// model whose columns the numbers-stored-as-text check has not read yet, a read of other tables.
    private func loopSelect(_ plan: PreparedPlan, decodesModels: Bool = true) throws -> Select? {
        guard executor.pool.statementLoop != nil, includes.isEmpty || !decodesModels else { return nil }
        let known = (executor.owner ?? executor).textStoredColumns.lookup(model: ObjectIdentifier(M.self))
        guard known?.isEmpty == true else { return nil }
        let select = plan.substituted(try boundValues())
        return select.readsOtherTables ? nil : select
    }

    /// The models `select` reads, through the statement loop.
    nonisolated(nonsending) private func readOne(_ select: Select) async throws -> [M] {
        guard case .columns(let columns) = select.selection else { return [] }
        let context = RowContext(model: M.self, schema: M.schema, selected: columns, keyring: executor.keyring)
        var out: [M] = []
        _ = try await executor.readOne(select) { reader in
            out.append(try M(row: Row(reader: reader, context: context)))
            out[out.count - 1]._persistence.markStored()
        }
        return out
    }

    /// The backend's plan for the query with its values (see the query builder's `explain()`).
    nonisolated(nonsending) public func explain() async throws -> String {
        try await executor.read { tx in try on(tx).explain() }
    }
}
