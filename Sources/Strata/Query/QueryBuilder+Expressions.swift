// QueryBuilder+Expressions: ORDER BY a computed value, SET a column to one, and the update(set:to:) shorthand.

extension QueryBuilder {
    /// Sorts by a computed value (`order(\.views * 2, .descending)`); NULLs first ascending, last descending.
    public func order<V>(_ e: ColumnExpression<M, V>, _ direction: Ordering.Direction = .ascending) -> Self {
        var copy = self
        switch e.result {
        case .success(let expression): copy.order.append(Ordering(expression: expression, direction))
        case .failure(let error): copy.error = copy.error ?? error
        }
        return copy
    }

    /// Sets a column, in the rows a later ``update()-8oezh`` changes, to a value computed from each row's values
    /// before the update (`set(\.views, to: \.views + 1)`).
    public func set<V>(_ kp: KeyPath<M, V>, to e: ColumnExpression<M, V>) -> Self {
        var copy = self
        guard let name = M.columnName(for: kp) else {
            copy.error = copy.error ?? .unknownColumn(model: M.modelName, column: "\(kp)")
            return copy
        }
        switch e.result {
        case .success(let expression): copy.assignments.append(Assignment(name, expression: expression))
        case .failure(let error): copy.error = copy.error ?? error
        }
        return copy
    }

    /// Sets an optional column to a computed non-optional value (`set(\.note, to: coalesce(\.note, "") + "!")`).
    public func set<V>(_ kp: KeyPath<M, V?>, to e: ColumnExpression<M, V>) -> Self {
        set(kp, to: ColumnExpression<M, V?>(e.result))
    }

    /// Sets a column to another column's value before the update (`set(\.a, to: \.b).set(\.b, to: \.a)` swaps).
    public func set<V>(_ kp: KeyPath<M, V>, to other: KeyPath<M, V>) -> Self {
        set(kp, to: ColumnExpression(other))
    }
}

extension QueryBuilder where Executor == Transaction {
    /// Sets one column of the matching rows to a computed value; returns how many rows changed.
    ///
    /// ```swift
    /// try Post.query(on: tx).where(\.id == 1).update(set: \.views, to: \.views + 1)
    /// ```
    ///
    /// SQLite computes through the checked functions its driver registers (`strata_add`, …), so overflow and
    /// division by zero fail as on PostgreSQL; PostgreSQL reads a NaN result as NULL, as SQLite does:
    ///
    /// ```sql
    /// -- SQLite
    /// UPDATE "post" SET "views" = strata_add("views", ?) WHERE ("id" = ?)
    /// -- PostgreSQL
    /// UPDATE "post" SET "views" = (CASE WHEN ("views" + $1) = CAST('NaN' AS DOUBLE PRECISION) THEN NULL ELSE ("views" + $2) END) WHERE ("id" = $3)
    /// ```
    ///
    /// - Parameters:
    ///   - kp: the column to set.
    ///   - e: the value to set it to, computed from each row's values before the update.
    /// - Returns: the number of rows changed.
    /// - Throws: ``StrataError/arithmeticError(expression:reason:)`` when a row's value divides by zero or
    ///   overflows; no row is changed then.
    @discardableResult
    public func update<V>(set kp: KeyPath<M, V>, to e: ColumnExpression<M, V>) throws -> Int {
        try set(kp, to: e).update()
    }

    /// Sets one optional column of the matching rows to a computed value; returns how many rows changed.
    @discardableResult
    public func update<V>(set kp: KeyPath<M, V?>, to e: ColumnExpression<M, V>) throws -> Int {
        try set(kp, to: e).update()
    }
}

extension QueryBuilder where Executor == Database {
    /// Sets one column of the matching rows to a computed value (see the synchronous form).
    @discardableResult
    nonisolated(nonsending) public func update<V>(set kp: KeyPath<M, V>, to e: ColumnExpression<M, V>) async throws
        -> Int
    {
        try await set(kp, to: e).update()
    }

    /// Sets one optional column of the matching rows to a computed value (see the synchronous form).
    @discardableResult
    nonisolated(nonsending) public func update<V>(set kp: KeyPath<M, V?>, to e: ColumnExpression<M, V>) async throws
        -> Int
    {
        try await set(kp, to: e).update()
    }
}
