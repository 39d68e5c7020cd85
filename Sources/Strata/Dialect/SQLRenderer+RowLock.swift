// SQLRenderer+RowLock: the SQL of a transaction's isolation level and of a query's row lock, per dialect.

extension SQLRenderer {
    /// `BEGIN ISOLATION LEVEL …`, or the dialect's plain BEGIN when every transaction is serializable.
    ///
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` where the dialect has no isolation levels, or begins
    ///   at one in several statements (``IsolationBeginSyntax/setTransactionThenStart``: see
    ///   ``beginStatements(_:dialect:)``).
    mutating func beginIsolated(_ level: IsolationLevel) throws(StrataError) {
        let statements = try Self.beginStatements(level, dialect: dialect)
        guard statements.count == 1 else {
            throw .unsupported(feature: "isolation level \(level) in one statement", driver: dialect.name)
        }
        sql += statements[0]
    }

    /// The statements that open a transaction at `level`, in order: one on SQLite (`BEGIN IMMEDIATE`) and
    /// PostgreSQL (`BEGIN ISOLATION LEVEL SERIALIZABLE`), two where the dialect sets the level first
    /// (``IsolationBeginSyntax/setTransactionThenStart``: `SET TRANSACTION ISOLATION LEVEL SERIALIZABLE`,
    /// `START TRANSACTION`). ``SQLConnection/renderAndRun(_:onRow:)`` runs them for ``Statement/beginIsolated(_:)``.
    ///
    /// ```swift
    /// try SQLRenderer.beginStatements(.repeatableRead, dialect: PostgresDialect())
    /// // ["BEGIN ISOLATION LEVEL REPEATABLE READ"]
    /// ```
    ///
    /// - Parameters:
    ///   - level: the isolation level asked for.
    ///   - dialect: the dialect whose ``Dialect/isolationLevels`` and ``Dialect/isolationBegin`` apply.
    /// - Returns: the statements, without binds.
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` where ``Dialect/isolationLevels`` is
    ///   ``IsolationSupport/none``.
    public static func beginStatements(_ level: IsolationLevel, dialect: any Dialect) throws(StrataError) -> [String] {
        switch dialect.isolationLevels {
        case .none: throw .unsupported(feature: "isolation level \(level)", driver: dialect.name)
        case .serializableOnly: return [dialect.beginTransaction]
        case .perTransaction:
            switch dialect.isolationBegin {
            case .beginIsolationLevel: return ["BEGIN ISOLATION LEVEL " + level.sqlName]
            case .setTransactionThenStart:
                return ["SET TRANSACTION ISOLATION LEVEL " + level.sqlName, "START TRANSACTION"]
            }
        }
    }

    /// ` FOR UPDATE [OF "t"] [NOWAIT | SKIP LOCKED]` after a SELECT (or the dialect's ``RowLockClauseSyntax``), or
    /// nothing where the transaction holds the database's write lock.
    mutating func rowLock(_ lock: RowLock, _ s: Select) throws(StrataError) {
        switch dialect.rowLocks {
        case .none: throw .unsupported(feature: "row locks (\(lock))", driver: dialect.name)
        case .heldByTransaction: return
        case .forClause:
            switch (lock.strength, dialect.rowLockClause) {
            case (.update, _): sql += " FOR UPDATE"
            case (.share, .forShareOf): sql += " FOR SHARE"
            case (.share, .lockInShareMode): sql += " LOCK IN SHARE MODE"
            }
            if !s.joins.isEmpty && dialect.rowLockClause == .forShareOf { sql += " OF " + (try q(s.table)) }
            switch lock.wait {
            case .wait: break
            case .noWait: sql += " NOWAIT"
            case .skipLocked: sql += " SKIP LOCKED"
            }
        }
    }
}
