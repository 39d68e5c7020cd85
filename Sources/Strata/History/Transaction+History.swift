// Transaction+History: records the writes to history-tracked tables in the same transaction as the writes.

extension Statement {
    /// The table an INSERT, UPDATE or DELETE writes, or nil for any other statement.
    var writtenTable: String? {
        switch self {
        case .insert(let i): return i.table
        case .update(let u): return u.table
        case .delete(let d): return d.table
        default: return nil
        }
    }
}

extension Transaction {
    /// The open transaction's token in the change history: taken at its first tracked write, kept for the
    /// transaction's other writes, and taken again when the savepoint that took it was rolled back (the clock's
    /// increment went with it).
    func writeToken() throws -> Int64 {
        if let taken = historyTokenTaken, taken.scope?.isUndone != true { return taken.token }
        let token = try HistoryLog.takeToken(self)
        historyTokenTaken = (token, undoScope)
        return token
    }

    /// Runs a write of a history-tracked table and records the rows it wrote, in one transaction (a transaction
    /// of its own in autocommit). The keys come from the statement itself (an INSERT that gives them), from
    /// `RETURNING` (an INSERT that does not, an upsert), or from a SELECT of the rows an UPDATE or DELETE matches,
    /// run just before it in the same transaction (`FOR UPDATE` where the dialect locks rows).
    func executeRecordingHistory(_ statement: Statement, key: String, onRow: (any RowReader) throws -> Void)
        throws -> Int
    {
        guard depth > 0 else {
            return try savepoint { try $0.executeRecordingHistory(statement, key: key, onRow: onRow) }
        }
        switch statement {
        case .insert(var insert):
            var keys: [DatabaseValue] = []
            let operation = HistoryChange.Operation(insert.onConflict)
            let changed: Int
            if insert.onConflict == nil, let k = insert.columns.firstIndex(of: key),
                insert.rows.allSatisfy({ $0[k] != .null })
            {
                changed = try executeUnrecorded(statement, onRow: onRow)
                keys = insert.rows.map { $0[k] }
            } else if insert.returning == key {
                changed = try executeUnrecorded(statement) { r in
                    keys.append(r.value(at: 0))
                    try onRow(r)
                }
            } else if insert.returning == nil {
                insert.returning = key
                changed = try executeUnrecorded(.insert(insert)) { r in keys.append(r.value(at: 0)) }
            } else {
                throw StrataError.unsupported(
                    feature: "history of an INSERT returning \(insert.returning ?? "") on \(insert.table)",
                    driver: driverName)
            }
            try HistoryLog.record(self, table: insert.table, keys: keys, operation: operation, columns: insert.columns)
            return changed
        case .update(let update):
            let keys = try matchedKeys(update.table, key: key, filter: update.filter)
            let changed = try executeUnrecorded(statement, onRow: onRow)
            if changed > 0 {
                try HistoryLog.record(
                    self, table: update.table, keys: keys, operation: .update, columns: update.assignments.map(\.column)
                )
            }
            return changed
        case .delete(let delete):
            let keys = try matchedKeys(delete.table, key: key, filter: delete.filter)
            let changed = try executeUnrecorded(statement, onRow: onRow)
            if changed > 0 {
                try HistoryLog.record(self, table: delete.table, keys: keys, operation: .delete, columns: [])
            }
            return changed
        default:
            return try executeUnrecorded(statement, onRow: onRow)
        }
    }

    /// Runs a templated INSERT (or upsert) of a history-tracked table, which returns the key of each row it
    /// wrote, and records those rows.
    func executeRecordingHistory(
        template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement, key: String,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        let built = try statement()
        guard depth > 0, case .insert(let insert) = built, insert.returning == key else {
            return try executeRecordingHistory(built, key: key, onRow: onRow)
        }
        var keys: [DatabaseValue] = []
        let changed = try executeUnrecorded(template: template, binds: binds, statement: { built }) { r in
            keys.append(r.value(at: 0))
            try onRow(r)
        }
        try HistoryLog.record(
            self, table: insert.table, keys: keys, operation: HistoryChange.Operation(insert.onConflict),
            columns: insert.columns)
        return changed
    }

    /// The keys of the rows `filter` matches, locked where the dialect locks rows, so that the write that follows
    /// changes the same rows.
    private func matchedKeys(_ table: String, key: String, filter: SQLExpression?) throws -> [DatabaseValue] {
        if let filter, case .compare(.equal, .column(let c), .value(let v)) = filter.node, c == key {
            return [v]
        }
        var select = Select(table: table, selection: .columns([key]), filter: filter)
        if let dialect = (connection as? any SQLConnection)?.dialect, dialect.rowLocks == .forClause {
            select.lock = RowLock(.update)
        }
        var keys: [DatabaseValue] = []
        _ = try executeUnrecorded(.select(select)) { keys.append($0.value(at: 0)) }
        return keys
    }
}

extension HistoryChange.Operation {
    /// What an INSERT with this conflict clause does to the rows it returns: an upsert that updates on conflict
    /// may have updated them; a plain INSERT, or one that does nothing on conflict, returns inserted rows only.
    init(_ onConflict: OnConflict?) {
        if case .update? = onConflict?.action { self = .upsert } else { self = .insert }
    }
}
