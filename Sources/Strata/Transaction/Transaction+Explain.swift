// Transaction+Explain: asks the connection for a query's plan, after the checks every statement passes.

extension Transaction {
    /// The plan of `select` on this connection, as lines of text; refused like the SELECT itself would be.
    package func explain(_ select: Select) throws -> [String] {
        try checkOpen()
        try ValueCheck.check(.select(select))
        try StatementCheck.check(.select(select), schemas: database.knownSchemas)
        return try connection.explain(select)
    }
}
