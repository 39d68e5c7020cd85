// QueryBuilder+CommonTable: a query that reads the rows of another query over its model, named in a WITH clause.

extension QueryBuilder {
    /// Reads the rows of `query`, named `name` in a WITH clause, instead of the model's table: this query's
    /// filters, order, paging, grouping and subqueries then apply to those rows.
    ///
    /// ```swift
    /// let recent = Post.query(on: db).where(\.views > 100)
    /// let top = try await Post.query(on: db).with("recent", recent).order(\.title).limit(5).all()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// WITH "recent" AS (SELECT "id", "user_id", "title", "views" FROM "post" WHERE ("views" > ?)) SELECT "id",
    ///   "user_id", "title", "views" FROM "recent" AS "post" ORDER BY "title" ASC LIMIT ?
    /// -- PostgreSQL
    /// WITH "recent" AS (SELECT "id", "user_id", "title", "views" FROM "post" WHERE ("views" > $1)) SELECT "id",
    ///   "user_id", "title", "views" FROM "recent" AS "post" ORDER BY "title" COLLATE "C" ASC LIMIT $2
    /// ```
    ///
    /// The named query may be filtered, ordered, paged, grouped into distinct rows, or be a set operation; this
    /// query reads the columns it selects (its `only(…)` list, unless this query has its own). A query with a
    /// WITH query used as a subquery (`where(\.id, in: …select(\.id))`) carries its WITH clause with it.
    ///
    /// - Parameters:
    ///   - name: the rows' name: neither the model's table nor a table the named query reads.
    ///   - query: a query over the same model, on any executor (only its statement is used).
    /// - Returns: a query over the named rows.
    /// - Throws: (when the query runs) ``StrataError/invalidQuery(_:)`` naming the WITH query and the model's
    ///   table, when the name is empty or names a table read, when this query selects a column the named query
    ///   does not, has joins or a row lock, or is a set operation, or when the named query takes a row lock.
    public func with<E>(_ name: String, _ query: QueryBuilder<M, E>) -> Self {
        var out = self
        do {
            var named = try query.selectStatement()
            named.tag = nil  // the tag of the whole statement is this query's
            out.commonTable = CommonTable(name, named)
            if out.selected == nil { out.selected = query.selected }
        } catch let error as StrataError {
            out.error = out.error ?? error
        } catch {
            out.error = out.error ?? .invalidQuery("\(error)")
        }
        return out
    }
}
