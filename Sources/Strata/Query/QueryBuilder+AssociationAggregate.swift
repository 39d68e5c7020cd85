// QueryBuilder+AssociationAggregate: each model with aggregates of its related rows, in one grouped LEFT JOIN.

/// How a projection resolves against the query's joins.
typealias ItemResolver = @Sendable (JoinAliases) -> Result<SelectItem, StrataError>

extension QueryBuilder {
    /// The query with the association's LEFT JOIN (once) and one group per owner, or the typed error for a second
    /// has-many path: two joined associations would multiply each other's rows, and so each other's counts.
    func aggregating(_ j: AssociationJoin) -> Self {
        var copy = self
        if copy.error != nil { return copy }
        if let other = joins.first(where: { $0.key != j.key }) {
            copy.error = .invalidQuery(
                "aggregates of \(j.key) on \(M.modelName) beside the join of \(other.key): the joins would multiply "
                    + "each other's rows; aggregate one association per query")
            return copy
        }
        if !joins.contains(where: { $0.key == j.key }) {
            copy = copy.adding(
                j.key, table: j.table, softDeleted: j.softDeleted.map { ($0.table, $0.column) }, j.make)
        }
        if !copy.grouping.perModel {
            if copy.grouping.isGrouped || copy.grouping.distinct {
                let reason = "group by the model's row: drop group(by:) and distinct()"
                copy.error = copy.error ?? .invalidQuery("aggregates of \(j.key) on \(M.modelName) \(reason)")
                return copy
            }
            copy.grouping.columns = M.schema.columns.map { ColumnRef($0.name) }
            copy.grouping.perModel = true
        }
        return copy
    }

    /// Keeps the models whose association aggregates match `condition` (several calls are joined with AND).
    ///
    /// ```swift
    /// let discussed = try await Post.query(on: db).having(.count(Post.comments) > 2).all(with: .count(Post.comments))
    /// ```
    ///
    /// - Parameter condition: a condition on ``AssociationAggregate``s of one association.
    /// - Returns: the query with the association joined, grouped per model and the condition added.
    public func having(_ condition: AssociationCondition<M>) -> Self {
        var copy = self
        for j in condition.joins { copy = copy.aggregating(j) }
        return copy.having(condition.condition)
    }

    /// Sorts models by an aggregate of their related rows (NULLs first ascending, last descending, as for columns).
    ///
    /// - Parameters:
    ///   - item: the aggregate, `.count(Post.comments)` say.
    ///   - direction: ascending (the default) or descending.
    /// - Returns: the query with the association joined, grouped per model and the order term added.
    public func order<V>(_ item: AssociationAggregate<M, V>, _ direction: Ordering.Direction = .ascending) -> Self {
        aggregating(item.join).order(item.projection, direction)
    }

    /// The SELECT of every column of the model, then each aggregate.
    func associationItems(_ projections: [(AssociationJoin, ItemResolver)]) throws -> (QueryBuilder, [SelectItem]) {
        var copy = self
        for (j, _) in projections { copy = copy.aggregating(j) }
        if let error = copy.error { throw error }
        let aliases = copy.joinAliases
        var items = M.schema.columns.map { SelectItem.column(ColumnRef($0.name)) }
        for (_, resolve) in projections { items.append(try resolve(aliases).get()) }
        return (copy, items)
    }
}

extension QueryBuilder where Executor == Transaction {
    /// Each matching model with aggregates of its related rows, in one statement (see ``AssociationAggregate``).
    ///
    /// ```swift
    /// let rows = try Post.query(on: tx).order(\.id).all(with: .count(Post.comments), .sum(Post.comments, of: \.votes))
    /// ```
    ///
    /// - Parameter items: aggregates of one association of the model.
    /// - Returns: one tuple per model: the model, then each aggregate (a count 0, the others nil, without related
    ///   rows).
    /// - Throws: ``StrataError/invalidQuery(_:)`` for aggregates of two associations or beside another join;
    ///   ``StrataError/invalidAggregate(model:column:reason:)`` for a column an aggregate cannot take;
    ///   ``StrataError/arithmeticError(expression:reason:)`` for an integer sum past Int64.
    public func all<each V: DatabaseValueConvertible>(with items: repeat AssociationAggregate<M, each V>) throws
        -> [(M, repeat each V)]
    {
        var projections: [(AssociationJoin, ItemResolver)] = []
        var keys: [String] = []
        for item in repeat each items {
            projections.append((item.join, item.projection.resolve))
            keys.append(item.projection.key)
        }
        let (query, selected) = try associationItems(projections)
        let select = try query.itemsStatement(selected)
        let width = M.schema.columns.count
        let model = M.modelName
        // The models and their aggregates first, then the tuples in one loop (see `select(_:)`: a tuple built per
        // row in the callback costs its generic metadata again).
        var models: [M] = []
        var values: [DatabaseValue] = []
        do {
            try readModels(select, selected, width: width, into: &models, &values)
        } catch StrataError.arithmeticError(_, let reason) {
            // A driver that stopped on overflow names only its table: name the sum.
            let sum = selected.lazy.compactMap { item -> String? in
                if case .aggregate(let a) = item, a.function == .sum { a.summary } else { nil }
            }.first
            throw StrataError.arithmeticError(expression: model + "." + (sum ?? "sum"), reason: reason)
        }
        var out: [(M, repeat each V)] = []
        out.reserveCapacity(models.count)
        var index = 0
        for m in models { out.append((m, repeat try Self.decode((each V).self, values, &index, keys))) }
        return out
    }

    /// Runs the SELECT and appends each row's model to `models` and its normalized aggregates to `values`.
    private func readModels(
        _ select: Select, _ selected: [SelectItem], width: Int, into models: inout [M], _ values: inout [DatabaseValue]
    ) throws {
        let context = RowContext(model: M.self, schema: M.schema, selected: nil, keyring: executor.database.keyring)
        let scope = executor.undoScope
        let model = M.modelName
        let rules = selected.dropFirst(width).map(\.aggregateRule)
        _ = try executor.execute(.select(select)) { reader in
            var m = try M(row: Row(reader: reader, context: context))
            m._persistence.markRead(in: scope)
            models.append(m)
            for (k, rule) in rules.enumerated() {
                let v = reader.value(at: width + k)
                if let rule { values.append(try rule.normalize(v, model: model)) } else { values.append(v) }
            }
        }
    }
}

extension QueryBuilder where Executor == Database {
    /// Each matching model with aggregates of its related rows (see the synchronous `all(with:)`).
    nonisolated(nonsending) public func all<each V: DatabaseValueConvertible>(
        with items: repeat AssociationAggregate<M, each V>
    ) async throws -> [(M, repeat each V)] {
        try await on { try $0.all(with: repeat each items) }
    }
}
