// Transaction+Explain: asks the connection for a query's plan, after the checks every statement passes.

extension Transaction {
    /// The plan of `select` on this connection as `QueryBuilder.explain()` returns it, its lines joined by newlines;
    /// refused like the SELECT itself would be. A SQL connection appends the lines to one string as it reads them.
    package func explainText(_ select: Select) throws -> String {
        try checkOpen()
        try ValueCheck.check(select: select)
        // The statement check and the rendering a SELECT of the same shape would have: an explain of the query the
        // connection ran last (or explained last) is checked and rendered once.
        try checkExplained(select)
        defer { endNotedCheck() }
        if let sql = sqlConnection { return try sql.explainText(select) }
        let lines = try connection.explain(select)
        return lines.count == 1 ? lines[0] : lines.joined(separator: "\n")
    }
}
