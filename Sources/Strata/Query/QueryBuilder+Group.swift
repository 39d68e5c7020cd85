// QueryBuilder+Group: group(by:), having, distinct and ordering by aggregates; the checks they need before SQL.

/// What a builder groups by, which groups it keeps, and whether its rows are distinct.
struct Grouping {
    var columns: [ColumnRef] = []
    var having: [HavingCondition.Node] = []
    var distinct = false
    /// Whether the groups are the model's rows, for aggregates of an association (see ``AssociationAggregate``).
    var perModel = false

    var isGrouped: Bool { !columns.isEmpty || !having.isEmpty }

    /// Models (`all`, `first`, `forEach`, `values`) cannot come from a grouped query.
    func checkModelRows<M: Model>(_: M.Type) throws(StrataError) {
        guard isGrouped else { return }
        if perModel {
            throw .invalidAggregate(
                model: M.modelName, column: "*",
                reason: "aggregates of an association come with each model: read them with all(with:)")
        }
        throw .invalidAggregate(
            model: M.modelName, column: columns.first?.name ?? "*",
            reason: "a grouped query returns groups, not models: read them with select(…)")
    }
}

extension QueryBuilder {
    /// The aliases of the joins so far, for projections over joined columns.
    var joinAliases: JoinAliases {
        var byKey: [String: String] = [:]
        var byTable: [String: String] = [:]
        for j in joins {
            if byKey[j.key] == nil { byKey[j.key] = j.alias }
            if byTable[j.table] == nil { byTable[j.table] = j.alias }
        }
        return JoinAliases(byKey: byKey, byTable: byTable)
    }

    private func failing(_ e: StrataError) -> Self {
        var copy = self
        copy.error = copy.error ?? e
        return copy
    }

    /// Groups rows by these columns (call again, or with an association, to add more). NULL forms one group on
    /// every driver. Read the groups with ``select(_:)-63y8o``.
    ///
    /// ```swift
    /// let perTeam = try await Member.query(on: db).group(by: \.teamID).select(.column(\.teamID), .count())
    /// ```
    ///
    /// See `having(_:)` (of an aggregate condition) for the SQL a grouped query renders on each backend.
    public func group(by keyPaths: PartialKeyPath<M>...) -> Self {
        var copy = self
        for kp in keyPaths {
            guard let name = M.columnName(for: kp) else {
                return failing(.unknownColumn(model: M.modelName, column: "\(kp)"))
            }
            copy.grouping.columns.append(ColumnRef(name))
        }
        return copy
    }

    /// Groups by a column of a joined association (`join(_:)` it first).
    public func group<A: JoinableAssociation, V>(by association: A, _ kp: KeyPath<A.Target, V>) -> Self
    where A.Owner == M {
        guard let name = A.Target.columnName(for: kp) else {
            return failing(.unknownColumn(model: A.Target.modelName, column: "\(kp)"))
        }
        guard let alias = joinAliases.byKey[association.key] else {
            return failing(.invalidQuery("\(association.key) is not joined; call join(…) first"))
        }
        var copy = self
        copy.grouping.columns.append(ColumnRef(name, table: alias))
        return copy
    }

    /// Keeps the groups matching a condition on aggregates (several calls are joined with AND). Needs
    /// ``group(by:)``; without it the query throws ``StrataError/invalidAggregate(model:column:reason:)``.
    ///
    /// ```swift
    /// .group(by: \.teamID).having(.count() >= 2 && .avg(\.age) > 30)
    /// ```
    ///
    /// ```swift
    /// let prolific = try await Post.query(on: db).group(by: \.userID).having(.count() >= 2)
    ///     .order(.sum(\.views), .descending).select(.column(\.userID), .sum(\.views))
    /// ```
    ///
    /// PostgreSQL casts an integer `SUM` back to `BIGINT` (its own is `NUMERIC`), so a total past Int64 is an
    /// error there too, as on SQLite:
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "user_id", strata_int_value(strata_int_sum("views")) FROM "post" GROUP BY "user_id" HAVING (COUNT(*) >= ?) ORDER BY strata_int_value(strata_int_sum("views")) DESC
    /// -- PostgreSQL
    /// SELECT "user_id", CAST(SUM("views") AS BIGINT) FROM "post" GROUP BY "user_id" HAVING (COUNT(*) >= $1) ORDER BY CAST(SUM("views") AS BIGINT) DESC NULLS LAST
    /// ```
    ///
    /// - Parameter condition: a condition on aggregates (`.count()`, `.sum(\.amount)`, …) or grouped columns.
    /// - Returns: the query with the condition added.
    public func having(_ condition: AggregateCondition<M>) -> Self {
        switch condition.resolve(joinAliases) {
        case .success(let node):
            var copy = self
            copy.grouping.having.append(node)
            return copy
        case .failure(let e): return failing(e)
        }
    }

    /// Returns each distinct row once (`SELECT DISTINCT`): distinct models of a join, distinct `values(_:)`,
    /// distinct ``select(_:)-63y8o`` tuples. Ordering is then only by what is selected.
    ///
    /// ```swift
    /// let names = try await User.query(on: db).distinct().values(\.name)
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT DISTINCT "name" FROM "user"
    /// -- PostgreSQL
    /// SELECT DISTINCT "name" FROM "user"
    /// ```
    ///
    /// - Returns: the query, returning each distinct row once.
    public func distinct() -> Self {
        var copy = self
        copy.grouping.distinct = true
        return copy
    }

    /// Sorts groups by an aggregate or a grouped column: `.order(.sum(\.amount), .descending)`.
    /// NULLs come first ascending and last descending, as for columns.
    public func order<V: DatabaseValueConvertible>(
        _ item: Projection<M, V>, _ direction: Ordering.Direction = .ascending
    ) -> Self {
        switch item.resolve(joinAliases) {
        case .success(.aggregate(let a)):
            var copy = self
            copy.order.append(Ordering(a, direction))
            return copy
        case .success(.column(let c)):
            var copy = self
            var ordering = Ordering(c.name, direction, table: c.table)
            ordering.isText = item.isText
            copy.order.append(ordering)
            return copy
        case .success(.window(let w)):
            return failing(
                .invalidQuery("ORDER BY \(w.summary) of \(M.modelName): read the window through a WITH query"))
        case .success(.expression(let e)):
            var copy = self
            copy.order.append(Ordering(expression: e, direction))
            return copy
        case .failure(let e): return failing(e)
        }
    }

    // MARK: Statements

    /// The SELECT of `items`, after the checks that name the model and column of a bad query.
    ///
    /// - Throws: ``StrataError/invalidAggregate(model:column:reason:)`` for `having` without `group(by:)`, a
    ///   column neither grouped nor aggregated (selected or ordered by), or, with `distinct()`, an order by
    ///   something not selected.
    func itemsStatement(_ items: [SelectItem]) throws -> Select {
        if let error { throw error }
        let g = grouping
        if let first = g.having.first, g.columns.isEmpty {
            let item = HavingCondition(first).items.first
            throw StrataError.invalidAggregate(
                model: M.modelName, column: item.map(Self.label) ?? "*", reason: "having(…) needs group(by:)")
        }
        let aggregated = !g.columns.isEmpty || items.contains { if case .aggregate = $0 { true } else { false } }
        if aggregated {
            for case .column(let c) in items where !g.columns.contains(c) {
                throw StrataError.invalidAggregate(
                    model: M.modelName, column: Self.label(.column(c)),
                    reason: "selected but neither grouped nor aggregated: add it to group(by:)")
            }
            for case .expression(let e) in items {
                throw StrataError.invalidAggregate(
                    model: M.modelName, column: e.summary,
                    reason: "a value computed per row (a JSON path) is neither grouped nor aggregated")
            }
            for o in order where o.aggregate == nil && !g.columns.contains(ColumnRef(o.column, table: o.table)) {
                throw StrataError.invalidAggregate(
                    model: M.modelName, column: o.column, reason: "ordered by but not grouped: add it to group(by:)")
            }
        }
        if g.distinct {
            for o in order {
                let item = o.aggregate.map(SelectItem.aggregate) ?? .column(ColumnRef(o.column, table: o.table))
                guard items.contains(item) else {
                    throw StrataError.invalidAggregate(
                        model: M.modelName, column: Self.label(item),
                        reason: "distinct() rows can only be ordered by what they select")
                }
            }
        }
        var s = Select(
            table: M.schema.name, selection: .items(items), joins: joinClauses, filter: filter, order: order,
            limit: limit, offset: offset)
        s.groupBy = g.columns
        s.having = g.having.isEmpty ? nil : HavingCondition(g.having.count == 1 ? g.having[0] : .and(g.having))
        s.distinct = g.distinct
        try checkNumberStorage(s)
        return try sealingEncrypted(s)
    }

    static func label(_ item: SelectItem) -> String {
        switch item {
        case .column(let c): return c.table.map { $0 + "." + c.name } ?? c.name
        case .aggregate(let a): return a.summary
        case .window(let w): return w.summary
        case .expression(let e): return e.summary
        }
    }
}
