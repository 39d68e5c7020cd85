// QueryBuilder+Aggregate: the terminal aggregate calls and select(…) of typed tuples or Decodable rows.

extension QueryBuilder where Executor == Transaction {
    /// Each row of a grouped or aggregate query as a typed tuple, one element per item.
    ///
    /// ```swift
    /// let rows = try Order.query(on: tx).group(by: \.customerID).order(.sum(\.amount), .descending)
    ///     .select(.column(\.customerID), .sum(\.amount), .count())   // [(Int64?, Int64?, Int)]
    /// ```
    ///
    /// For `Post.query(on: tx).group(by: \.userID).select(.column(\.userID), .sum(\.views), .count())`:
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "user_id", strata_int_value(strata_int_sum("views")), COUNT(*) FROM "post" GROUP BY "user_id"
    /// -- PostgreSQL
    /// SELECT "user_id", CAST(SUM("views") AS BIGINT), COUNT(*) FROM "post" GROUP BY "user_id"
    /// ```
    ///
    /// - Parameter items: the columns (grouped) and aggregates to read, in order.
    /// - Returns: one tuple per group (or one for the whole query when nothing is grouped).
    ///
    /// - Throws: ``StrataError/invalidAggregate(model:column:reason:)`` before any SQL for a bad grouping;
    ///   ``StrataError/arithmeticError(expression:reason:)`` for an integer sum past Int64.
    @inlinable
    public func select<each V: DatabaseValueConvertible>(_ items: repeat Projection<M, each V>) throws -> [(
        repeat each V
    )] {
        // Inlinable, so the caller's module knows the tuple's type: each value is read from the driver's row by its
        // type's fast read, with no DatabaseValue or array in between (see SelectedItems).
        let selected = try selectedItems(repeat each items)
        var out: [(repeat each V)] = []
        try run(selected) { row in
            var index = 0
            out.append((repeat try selected.read((each V).self, row, &index)))
        }
        return out
    }

    /// The items resolved against the query's joins, with their keys.
    @usableFromInline
    func selectedItems<each V: DatabaseValueConvertible>(_ items: repeat Projection<M, each V>) throws
        -> SelectedItems
    {
        var resolved: [SelectItem] = []
        var keys: [String] = []
        let aliases = joinAliases
        for item in repeat each items {
            resolved.append(try item.resolve(aliases).get())
            keys.append(item.key)
        }
        return SelectedItems(items: resolved, keys: keys, model: M.modelName)
    }

    /// Each row of a grouped or aggregate query decoded as `R`, whose keys are the items' ``Projection/key``s
    /// (`.sum(\.amount).as("total")`); a key matches a column name ignoring case and underscores
    /// (`customerID` reads `customer_id`).
    public func select<R: Decodable, each V: DatabaseValueConvertible>(
        as type: R.Type, _ items: repeat Projection<M, each V>
    ) throws -> [R] {
        let selected = try selectedItems(repeat each items)
        var out: [R] = []
        try run(selected) { row in
            out.append(try AggregateRowDecoder.decode(R.self, row: row, items: selected))
        }
        return out
    }

    /// The number of non-NULL values of a column.
    public func count<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>) throws -> Int {
        try scalar(.count(kp)) ?? 0
    }

    /// The number of distinct non-NULL values of a column.
    ///
    /// ```swift
    /// let authors = try Post.query(on: tx).count(distinct: \.userID)
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT COUNT(DISTINCT "user_id") FROM "post"
    /// -- PostgreSQL
    /// SELECT COUNT(DISTINCT "user_id") FROM "post"
    /// ```
    ///
    /// - Parameter kp: the column.
    /// - Returns: the number of distinct non-NULL values.
    /// - Throws: ``StrataError/invalidAggregate(model:column:reason:)`` for a grouped query, a limit or an offset.
    public func count<V: DatabaseValueConvertible>(distinct kp: KeyPath<M, V>) throws -> Int {
        try scalar(.count(distinct: kp)) ?? 0
    }

    /// The sum of a column over the matching rows, nil when there are none (or all are NULL): `Int64` for
    /// integers, `Double` for doubles, an exact `Decimal` for decimals.
    ///
    /// - Throws: ``StrataError/arithmeticError(expression:reason:)`` when an integer sum passes Int64.
    ///
    /// ```swift
    /// let views = try Post.query(on: tx).where(\.userID == 1).sum(\.views)   // Int64?
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT strata_int_value(strata_int_sum("views")) FROM "post" WHERE ("user_id" = ?)
    /// -- PostgreSQL
    /// SELECT CAST(SUM("views") AS BIGINT) FROM "post" WHERE ("user_id" = $1)
    /// ```
    ///
    /// - Parameter kp: the numeric column.
    /// - Returns: the total, or nil when no row has a value.
    public func sum<V: SummableColumn>(_ kp: KeyPath<M, V>) throws -> V.Sum? {
        try scalar(.sum(kp)) ?? nil
    }

    /// The average of a column as a `Double` (integers too), nil when there are no values.
    public func avg<V: SummableColumn>(_ kp: KeyPath<M, V>) throws -> Double? {
        try scalar(.avg(kp)) ?? nil
    }

    /// The smallest value of a column (code point order for text), nil when there are none.
    public func min<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>) throws -> V? { try scalar(.min(kp)) ?? nil }
    /// The smallest value of an optional column, nil when all are NULL.
    public func min<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>) throws -> V? { try scalar(.min(kp)) ?? nil }
    /// The largest value of a column, nil when there are none.
    public func max<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>) throws -> V? { try scalar(.max(kp)) ?? nil }
    /// The largest value of an optional column, nil when all are NULL.
    public func max<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>) throws -> V? { try scalar(.max(kp)) ?? nil }

    /// The number of distinct rows (`distinct()`): distinct primary keys, which a join may repeat.
    func distinctCount() throws -> Int {
        guard selected == nil else {
            throw StrataError.invalidAggregate(
                model: M.modelName, column: "*", reason: "count() of distinct only(…) columns: use count(distinct:)")
        }
        if M.schema.hasCompositeKey {
            throw StrataError.invalidAggregate(
                model: M.modelName, column: M.schema.primaryKeyColumnNames.joined(separator: ", "),
                reason: "count() of distinct rows counts one key column: a composite key has several")
        }
        var copy = self
        copy.grouping.distinct = false
        let pk = M.primaryKeyColumn
        return try copy.scalar(
            Projection<M, Int>(key: "count") { _ in
                .success(.aggregate(Aggregate(.count, ColumnRef(pk), distinct: true)))
            }
        ) ?? 0
    }

    // MARK: Running

    /// One aggregate over the whole (filtered, joined) query.
    private func scalar<V: DatabaseValueConvertible>(_ item: Projection<M, V>) throws -> V? {
        if grouping.isGrouped {
            throw StrataError.invalidAggregate(
                model: M.modelName, column: item.key, reason: "a grouped query has one value per group: use select(…)")
        }
        guard limit == nil, offset == nil else {
            throw StrataError.invalidAggregate(
                model: M.modelName, column: item.key, reason: "an aggregate takes no limit or offset")
        }
        var copy = self
        copy.order = []
        return try copy.select(item).first
    }

    /// Runs the SELECT of `selected` and hands each row, as the driver reads it, to `body`.
    ///
    /// - Throws: the statement's errors; an integer sum past Int64 as ``StrataError/arithmeticError(expression:reason:)``
    ///   naming the model and the first sum (a driver that stopped on overflow names only its table).
    @usableFromInline
    func run(_ selected: SelectedItems, _ body: (any RowReader) throws -> Void) throws {
        let select = try itemsStatement(selected.items)
        do {
            _ = try executor.execute(.select(select), onRow: body)
        } catch StrataError.arithmeticError(_, let reason) {
            throw StrataError.arithmeticError(
                expression: M.modelName + "." + (Self.sumSummary(selected.items) ?? "sum"), reason: reason)
        }
    }

    /// The summary of the first sum among `items` (an aggregate or a running sum), which an overflow names.
    static func sumSummary(_ items: [SelectItem]) -> String? {
        items.lazy.compactMap { item -> String? in
            switch item {
            case .aggregate(let a) where a.function == .sum: return a.summary
            case .window(let w) where w.function == .sum: return w.summary
            default: return nil
            }
        }.first
    }

    /// The value at `index` of a flat array of rows as `V` (what ``Projection/read(_:)`` does), `index` moved on;
    /// a failure names the item's key (`keys` holds them, row after row of the same width).
    static func decode<V: DatabaseValueConvertible>(
        _ type: V.Type, _ values: [DatabaseValue], _ index: inout Int, _ keys: [String]
    ) throws -> V {
        let v = values[index]
        index += 1
        do {
            return try V(databaseValue: v)
        } catch {
            throw StrataError.decodingFailed(
                model: M.modelName, column: keys[(index - 1) % keys.count], value: v.summary, expected: error.expected)
        }
    }
}

extension QueryBuilder where Executor == Database {
    /// Each row of a grouped or aggregate query as a typed tuple (see the synchronous ``select(_:)``).
    @inlinable
    nonisolated(nonsending) public func select<each V: DatabaseValueConvertible>(_ items: repeat Projection<M, each V>)
        async throws
        -> [(repeat each V)]
    {
        try await on { try $0.select(repeat each items) }
    }

    /// Each row of a grouped or aggregate query decoded as `R` (see the synchronous ``select(as:_:)``).
    nonisolated(nonsending) public func select<R: Decodable, each V: DatabaseValueConvertible>(
        as type: R.Type, _ items: repeat Projection<M, each V>
    )
        async throws -> [R]
    {
        try await on { try $0.select(as: type, repeat each items) }
    }

    /// The number of non-NULL values of a column.
    nonisolated(nonsending) public func count<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V> & Sendable) async throws
        -> Int
    {
        try await on { try $0.count(kp) }
    }

    /// The number of distinct non-NULL values of a column.
    nonisolated(nonsending) public func count<V: DatabaseValueConvertible>(distinct kp: KeyPath<M, V> & Sendable)
        async throws -> Int
    {
        try await on { try $0.count(distinct: kp) }
    }

    /// The sum of a column, nil for no values (see the synchronous ``sum(_:)``).
    nonisolated(nonsending) public func sum<V: SummableColumn>(_ kp: KeyPath<M, V> & Sendable) async throws -> V.Sum? {
        try await on { try $0.sum(kp) }
    }

    /// The average of a column as a `Double`, nil for no values.
    nonisolated(nonsending) public func avg<V: SummableColumn>(_ kp: KeyPath<M, V> & Sendable) async throws -> Double? {
        try await on { try $0.avg(kp) }
    }

    /// The smallest value of a column, nil when there are none.
    nonisolated(nonsending) public func min<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V> & Sendable) async throws
        -> V?
    {
        try await on { try $0.min(kp) }
    }

    /// The smallest value of an optional column, nil when all are NULL.
    nonisolated(nonsending) public func min<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?> & Sendable) async throws
        -> V?
    {
        try await on { try $0.min(kp) }
    }

    /// The largest value of a column, nil when there are none.
    nonisolated(nonsending) public func max<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V> & Sendable) async throws
        -> V?
    {
        try await on { try $0.max(kp) }
    }

    /// The largest value of an optional column, nil when all are NULL.
    nonisolated(nonsending) public func max<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?> & Sendable) async throws
        -> V?
    {
        try await on { try $0.max(kp) }
    }
}
