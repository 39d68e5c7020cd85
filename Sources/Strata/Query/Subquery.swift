// Subquery: one column of another query, for `where(_:in:)`, `notIn` and comparisons with a scalar subquery.

/// One column of a query over some model, used inside another query (never run on its own).
///
/// ```swift
/// let open = Project.query(on: db).where(\.open == true).select(\.userID)
/// let owners = try await User.query(on: db).where(\.id, in: open).all()
/// // SELECT … FROM "user" WHERE ("id" IN (SELECT "user_id" FROM "project" WHERE ("open" = ?)))
/// ```
///
/// Compared with `==`, `<`, … it is a scalar subquery: the value of its first row (by its order), or NULL
/// when it has none (rendered with `LIMIT 1`, so every backend reads the same row).
public struct Subquery<Value>: Sendable {
    let result: Result<Select, StrataError>

    init(_ result: Result<Select, StrataError>) { self.result = result }
}

extension QueryBuilder {
    /// This query's rows reduced to one column, as a subquery for another query.
    public func select<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>) -> Subquery<V> {
        guard let name = M.columnName(for: kp) else {
            return Subquery(.failure(.unknownColumn(model: M.modelName, column: "\(kp)")))
        }
        return Subquery(
            subquerySelect().map { s in
                var one = s
                one.selection = .columns([name])
                return one
            })
    }

    /// The SELECT this query would run (its `only(…)` columns, or all), for use as a subquery.
    func subquerySelect() -> Result<Select, StrataError> {
        do {
            return .success(try selectStatement())
        } catch let error as StrataError {
            return .failure(error)
        } catch {
            return .failure(.invalidQuery("\(error)"))
        }
    }

    private func addingSubquery(_ column: KeyPath<M, some Any>, _ select: Result<Select, StrataError>, negated: Bool)
        -> Self
    {
        self.where(Condition<M>.inSubquery(column, select, negated: negated))
    }

    /// Keeps rows whose column is among the subquery's values (none when it has no rows).
    public func `where`<V>(_ kp: KeyPath<M, V>, in subquery: Subquery<V>) -> Self {
        addingSubquery(kp, subquery.result, negated: false)
    }
    /// Keeps rows whose optional column is among the subquery's values.
    ///
    /// ```swift
    /// let popular = Post.query(on: db).where(\.views > 100).select(\.userID)
    /// let authors = try await User.query(on: db).where(\.id, in: popular).all()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", "name", "age" FROM "user" WHERE ("id" IN (SELECT "user_id" FROM "post" WHERE ("views" > ?)))
    /// -- PostgreSQL
    /// SELECT "id", "name", "age" FROM "user" WHERE ("id" IN (SELECT "user_id" FROM "post" WHERE ("views" > $1)))
    /// ```
    ///
    /// - Parameters:
    ///   - kp: the optional column.
    ///   - subquery: one column of another query, made with `select(_:)`.
    /// - Returns: the query with the condition added.
    public func `where`<V>(_ kp: KeyPath<M, V?>, in subquery: Subquery<V>) -> Self {
        addingSubquery(kp, subquery.result, negated: false)
    }
    /// Keeps rows whose column is among the subquery's (optional) values.
    public func `where`<V>(_ kp: KeyPath<M, V>, in subquery: Subquery<V?>) -> Self {
        addingSubquery(kp, subquery.result, negated: false)
    }
    /// Keeps rows whose column is none of the subquery's values (all when it has no rows; none when one of
    /// its values is NULL, as SQL's `NOT IN` does on every backend).
    public func `where`<V>(_ kp: KeyPath<M, V>, notIn subquery: Subquery<V>) -> Self {
        addingSubquery(kp, subquery.result, negated: true)
    }
    /// Keeps rows whose optional column is none of the subquery's values.
    public func `where`<V>(_ kp: KeyPath<M, V?>, notIn subquery: Subquery<V>) -> Self {
        addingSubquery(kp, subquery.result, negated: true)
    }
    /// Keeps rows whose column is none of the subquery's (optional) values.
    public func `where`<V>(_ kp: KeyPath<M, V>, notIn subquery: Subquery<V?>) -> Self {
        addingSubquery(kp, subquery.result, negated: true)
    }

    /// Keeps rows whose column is among the values of another query's one column, chosen with `only(_:)`.
    ///
    /// - Throws: (when the query runs) ``StrataError/invalidQuery(_:)`` naming both models and the columns
    ///   when `query` does not select exactly one column, before any SQL is sent.
    public func `where`<V, O: Model, E>(_ kp: KeyPath<M, V>, in query: QueryBuilder<O, E>) -> Self {
        addingSubquery(kp, query.singleColumn(for: M.self, kp), negated: false)
    }

    /// Keeps rows whose column is none of the values of another query's one column (see `where(_:in:)`).
    public func `where`<V, O: Model, E>(_ kp: KeyPath<M, V>, notIn query: QueryBuilder<O, E>) -> Self {
        addingSubquery(kp, query.singleColumn(for: M.self, kp), negated: true)
    }

    /// This query as a one-column subquery, or the error naming the models and columns when it selects more.
    func singleColumn<Outer: Model>(for outer: Outer.Type, _ kp: PartialKeyPath<Outer>) -> Result<Select, StrataError> {
        let columns = selected ?? M.schema.columnNames
        guard columns.count == 1 else {
            let target = "\(Outer.modelName).\(Outer.columnName(for: kp) ?? "\(kp)")"
            return .failure(
                .invalidQuery(
                    "the subquery on \(M.modelName) for \(target) selects \(columns.count) columns "
                        + "(\(columns.joined(separator: ", "))); select exactly one, e.g. .only(\\.userID)"))
        }
        return subquerySelect()
    }
}

extension Condition {
    static func inSubquery(_ kp: PartialKeyPath<M>, _ select: Result<Select, StrataError>, negated: Bool)
        -> Condition
    {
        switch select {
        case .failure(let e): return Condition(error: e)
        case .success(let s): return Condition(kp) { .inSubquery($0, s, negated: negated) }
        }
    }

    static func scalar<V>(_ op: ComparisonOperator, _ kp: KeyPath<M, V>, _ sub: Subquery<V>) -> Condition {
        switch sub.result {
        case .failure(let e): return Condition(error: e)
        case .success(let s): return Condition(kp) { .compare(op, $0, .scalarSubquery(s)) }
        }
    }
}

/// `column = (SELECT … LIMIT 1)`; unknown (no match) when the subquery has no row.
public func == <M, V>(lhs: KeyPath<M, V>, rhs: Subquery<V>) -> Condition<M> { .scalar(.equal, lhs, rhs) }
/// `column <> (SELECT … LIMIT 1)`.
public func != <M, V>(lhs: KeyPath<M, V>, rhs: Subquery<V>) -> Condition<M> { .scalar(.notEqual, lhs, rhs) }
/// `column < (SELECT … LIMIT 1)`.
public func < <M, V>(lhs: KeyPath<M, V>, rhs: Subquery<V>) -> Condition<M> { .scalar(.less, lhs, rhs) }
/// `column <= (SELECT … LIMIT 1)`.
public func <= <M, V>(lhs: KeyPath<M, V>, rhs: Subquery<V>) -> Condition<M> { .scalar(.lessOrEqual, lhs, rhs) }
/// `column > (SELECT … LIMIT 1)`.
public func > <M, V>(lhs: KeyPath<M, V>, rhs: Subquery<V>) -> Condition<M> { .scalar(.greater, lhs, rhs) }
/// `column >= (SELECT … LIMIT 1)`.
public func >= <M, V>(lhs: KeyPath<M, V>, rhs: Subquery<V>) -> Condition<M> { .scalar(.greaterOrEqual, lhs, rhs) }
