// QueryBuilder+Explain: the backend's plan for the query, as text.

extension QueryBuilder where Executor == Transaction {
    /// The backend's plan for the query's SELECT, one line per step: SQLite's `EXPLAIN QUERY PLAN`, PostgreSQL's
    /// `EXPLAIN`, and on the memory driver the primary key, index or scan it reads the rows through.
    ///
    /// ```swift
    /// let plan = try Post.query(on: tx).where(\.userID == 7).explain()
    /// // SQLite:     SEARCH post USING INDEX post_user_id (user_id=?)
    /// // PostgreSQL: Bitmap Heap Scan on post … Bitmap Index Scan on post_user_id …
    /// // memory:     SEARCH post USING INDEX post_user_id (user_id)
    /// ```
    ///
    /// The text is the backend's own and differs between drivers and versions: read it, log it, or check that
    /// it names an index; do not parse it. Nothing is read from the table.
    ///
    /// - Returns: the plan, its lines joined by newlines.
    /// - Throws: the errors running the query would throw before reaching the database;
    ///   ``StrataError/unsupported(feature:driver:)`` on a driver that cannot show a plan; database errors.
    public func explain() throws -> String {
        try executor.explainText(try selectStatement())
    }
}

extension QueryBuilder where Executor == Database {
    /// The backend's plan for the query (see the synchronous `explain()`).
    nonisolated(nonsending) public func explain() async throws -> String {
        try await on { try $0.explain() }
    }
}
