// Transaction+Isolation: opening the outermost transaction at a chosen isolation level.

extension Transaction {
    /// Runs `body` in a transaction at `isolation` or a stronger level the driver grants (see ``IsolationLevel``).
    ///
    /// - Throws: ``StrataError/transactionMisuse(_:)`` inside a transaction (a savepoint cannot change the
    ///   level), ``StrataError/unsupported(feature:driver:)`` when the driver can grant no level at least as
    ///   strong, and what `body` throws (after rolling back).
    func transaction<T>(isolation: IsolationLevel, _ body: (Transaction) throws -> T) throws -> T {
        guard depth == 0 else {
            throw StrataError.transactionMisuse(
                "isolation \(isolation) asked for inside a transaction; only the outermost transaction sets it")
        }
        guard let granted = connection.isolation(serving: isolation) else {
            throw StrataError.unsupported(feature: "isolation level \(isolation)", driver: driverName)
        }
        return try scope(isolation: (isolation, granted), body)
    }

    /// Runs `body` in a transaction at `isolation` (nil: the driver's default) where a failed statement does what
    /// `policy` says (see ``FailedStatementPolicy``).
    func transaction<T>(
        isolation: IsolationLevel?, onFailedStatement policy: FailedStatementPolicy, _ body: (Transaction) throws -> T
    ) throws -> T {
        guard depth == 0 else {
            throw StrataError.transactionMisuse(
                "onFailedStatement asked for inside a transaction; only the outermost transaction sets it")
        }
        guard let isolation else { return try scope(isolation: nil, onFailedStatement: policy, body) }
        guard let granted = connection.isolation(serving: isolation) else {
            throw StrataError.unsupported(feature: "isolation level \(isolation)", driver: driverName)
        }
        return try scope(isolation: (isolation, granted), onFailedStatement: policy, body)
    }

    /// Refuses a row lock outside a transaction, where it would end with its own statement.
    func checkRowLock(_ statement: Statement) throws(StrataError) {
        guard depth == 0, case .select(let s) = statement, let lock = s.lock else { return }
        throw .transactionMisuse(
            "\(lock) on \(s.table) outside a transaction: the lock would end with the statement; "
                + "run the query inside db.transaction { … }")
    }
}
