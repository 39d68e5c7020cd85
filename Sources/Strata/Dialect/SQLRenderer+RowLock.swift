// SQLRenderer+RowLock: the SQL of a transaction's isolation level and of a query's row lock, per dialect.

extension SQLRenderer {
    /// `BEGIN ISOLATION LEVEL …`, or the dialect's plain BEGIN when every transaction is serializable.
    mutating func beginIsolated(_ level: IsolationLevel) throws(StrataError) {
        switch dialect.isolationLevels {
        case .none: throw .unsupported(feature: "isolation level \(level)", driver: dialect.name)
        case .serializableOnly: sql += dialect.beginTransaction
        case .perTransaction: sql += "BEGIN ISOLATION LEVEL " + level.sqlName
        }
    }

    /// ` FOR UPDATE [OF "t"] [NOWAIT | SKIP LOCKED]` after a SELECT, or nothing where the transaction holds
    /// the database's write lock.
    mutating func rowLock(_ lock: RowLock, _ s: Select) throws(StrataError) {
        switch dialect.rowLocks {
        case .none: throw .unsupported(feature: "row locks (\(lock))", driver: dialect.name)
        case .heldByTransaction: return
        case .forClause:
            sql += lock.strength == .update ? " FOR UPDATE" : " FOR SHARE"
            if !s.joins.isEmpty { sql += " OF " + (try q(s.table)) }
            switch lock.wait {
            case .wait: break
            case .noWait: sql += " NOWAIT"
            case .skipLocked: sql += " SKIP LOCKED"
            }
        }
    }
}
