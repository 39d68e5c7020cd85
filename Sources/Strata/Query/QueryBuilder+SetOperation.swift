// QueryBuilder+SetOperation: union, unionAll, intersect and except of two queries over one model.

extension QueryBuilder {
    /// The rows of this query or `other`, each distinct row once (NULL equal to NULL): SQL's `UNION`.
    ///
    /// Both queries read the same columns (all, or the same `only(…)` list) and take no order, limit or offset:
    /// order and page the combined rows by calling `order(_:_:)`, ``limit(_:)`` and ``offset(_:)`` after
    /// `union`. A `where` after it filters the combined rows. Without an order the rows come in no set order.
    ///
    /// ```swift
    /// let picked = try await User.query(on: db).where(\.age < 18)
    ///     .union(User.query(on: db).where(\.name == "Ann"))
    ///     .order(\.name).limit(10).all()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", "name", "age" FROM (SELECT "id", "name", "age" FROM "user" WHERE ("age" < ?) UNION SELECT "id",
    ///   "name", "age" FROM "user" WHERE ("name" = ?)) AS "strata_set" ORDER BY "name" ASC LIMIT ?
    /// -- PostgreSQL
    /// SELECT "id", "name", "age" FROM (SELECT "id", "name", "age" FROM "user" WHERE ("age" < $1) UNION SELECT "id",
    ///   "name", "age" FROM "user" WHERE ("name" = $2)) AS "strata_set" ORDER BY "name" COLLATE "C" ASC LIMIT $3
    /// ```
    ///
    /// Operators chain left to right on every backend: `a.union(b).intersect(c)` is `(a ∪ b) ∩ c`.
    ///
    /// - Parameter other: a query over the same model, on any executor (only its statement is used).
    /// - Returns: a query over the combined rows.
    /// - Throws: (when the query runs) ``StrataError/invalidQuery(_:)`` naming the operator, the branch (1 is the
    ///   leftmost) and the model's table, when the branches select different columns or one has an order, a limit,
    ///   an offset or a row lock.
    public func union<E>(_ other: QueryBuilder<M, E>) -> Self { combined(.union, other) }

    /// The rows of this query and of `other`, duplicates kept: SQL's `UNION ALL` (see ``union(_:)``).
    public func unionAll<E>(_ other: QueryBuilder<M, E>) -> Self { combined(.unionAll, other) }

    /// The distinct rows found by both this query and `other`: SQL's `INTERSECT` (see ``union(_:)``).
    public func intersect<E>(_ other: QueryBuilder<M, E>) -> Self { combined(.intersect, other) }

    /// The distinct rows of this query that `other` does not find: SQL's `EXCEPT` (see ``union(_:)``).
    public func except<E>(_ other: QueryBuilder<M, E>) -> Self { combined(.except, other) }

    /// A query over the rows of this one combined with `other`'s: the same chain extended when this query is a
    /// set operation with nothing added after it, else a new one whose first branch is this query.
    private func combined<E>(_ kind: SetOperator, _ other: QueryBuilder<M, E>) -> Self {
        var out = Self(executor: executor)
        out.tag = tag
        out.selected = selected
        do {
            var right = try other.selectStatement()
            right.tag = nil  // the tag of the whole statement is this query's
            if var chain = compound, isBareCompound {
                chain.rest.append(SetOperation(kind, right))
                out.compound = chain
            } else {
                var left = try selectStatement()
                left.tag = nil
                out.compound = Compound(left, [SetOperation(kind, right)])
            }
        } catch let error as StrataError {
            out.error = error
        } catch {
            out.error = .invalidQuery("\(error)")
        }
        return out
    }

    /// Whether this query is a set operation with no filter, order, paging, grouping or lock added after it.
    private var isBareCompound: Bool {
        compound != nil && filters.isEmpty && order.isEmpty && limit == nil && offset == nil && joins.isEmpty
            && !grouping.isGrouped && !grouping.distinct && lock == nil
    }
}
