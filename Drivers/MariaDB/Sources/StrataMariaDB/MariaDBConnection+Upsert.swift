// MariaDBConnection+Upsert: ON DUPLICATE KEY UPDATE has no conflict target, so an upsert whose row could conflict on
// another unique key (or that keeps a stored row) runs row by row: lock and read the target, then INSERT or UPDATE.
import Strata

extension MariaDBConnection {
    /// Whether `insert` is an upsert the single `INSERT … ON DUPLICATE KEY UPDATE` cannot run as SQLite and
    /// PostgreSQL's `ON CONFLICT (target)` do, so ``runUpsertByRow(_:onRow:)`` runs it instead:
    ///
    /// - the table has a unique key other than the target that the inserted columns reach: MariaDB would update
    ///   the row that key matched, where the others raise a unique violation;
    /// - it keeps the stored row (`DO NOTHING`) and returns a column: MariaDB's `RETURNING` would hand back the kept
    ///   row too, where the others return inserted and updated rows only (the change history records what is
    ///   returned as written).
    func upsertRunsByRow(_ insert: Insert) throws -> Bool {
        guard let conflict = insert.onConflict else { return false }
        if case .nothing = conflict.action, insert.returning != nil { return true }
        let inserted = Set(insert.columns)
        return try uniqueKeys(of: insert.table).values.contains { columns in
            Set(columns) != Set(conflict.target) && !inserted.isDisjoint(with: columns)
        }
    }

    /// The unique keys of `table` (index name to columns, in key order), read from `information_schema` once per
    /// table and kept until a schema change through the driver (``MariaDBSchemaChanges``): a migration, DDL or raw
    /// SQL that is not a query or a row write, on any of its connections, clears every table's.
    func uniqueKeys(of table: String) throws -> [String: [String]] {
        try schemaFact(\.uniqueKeysByTable, table: table) {
            let sql = """
                SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()
                AND TABLE_NAME = ? AND NON_UNIQUE = 0 ORDER BY INDEX_NAME, SEQ_IN_INDEX
                """
            var keys: [String: [String]] = [:]
            for r in try rows(sql, [.text(table)]) {
                guard case .text(let index) = r[0], case .text(let column) = r[1] else { continue }
                keys[index, default: []].append(column)
            }
            return keys
        }
    }

    /// Runs an upsert as `ON CONFLICT (target)` does, one row at a time in input order, inside a savepoint (or a
    /// transaction of its own in autocommit) so that a failure leaves the table as it was:
    ///
    /// 1. `SELECT <returning> FROM t WHERE target = ? FOR UPDATE` locks the stored row, or, where there is none,
    ///    the gap its key would go in (InnoDB's next-key lock), so a concurrent insert of the key waits;
    /// 2. no stored row (or a NULL in the target, which never conflicts): a plain `INSERT … RETURNING`, where a
    ///    conflict on another unique key is error 1062, a typed unique violation naming that key's columns;
    /// 3. a stored row: `UPDATE t SET c = ?, v = v + 1 WHERE target = ?` of the columns the upsert updates, or
    ///    nothing for `DO NOTHING`.
    ///
    /// `onRow` gets the returned column of each inserted and updated row, in input order, never of a kept one (as
    /// PostgreSQL's `RETURNING`): the core reads a kept row's key itself.
    ///
    /// - Returns: the rows inserted or updated.
    func runUpsertByRow(_ insert: Insert, onRow: (any RowReader) throws -> Void) throws -> Int {
        guard let conflict = insert.onConflict else { return 0 }
        let inTransaction = isInTransaction
        try exec(inTransaction ? "SAVEPOINT strata_upsert" : "START TRANSACTION", table: insert.table)
        do {
            var changed = 0
            for row in insert.rows { changed += try upsertRow(row, of: insert, conflict, onRow: onRow) }
            try exec(inTransaction ? "RELEASE SAVEPOINT strata_upsert" : "COMMIT", table: insert.table)
            return changed
        } catch {
            if !isBroken {
                try? exec(
                    inTransaction ? "ROLLBACK TO SAVEPOINT strata_upsert" : "ROLLBACK", table: insert.table)
                if inTransaction { try? exec("RELEASE SAVEPOINT strata_upsert", table: insert.table) }
            }
            throw error
        }
    }

    /// Upserts one row (see ``runUpsertByRow(_:onRow:)``); 1 when it was inserted or updated, 0 when kept.
    private func upsertRow(
        _ row: [DatabaseValue], of insert: Insert, _ conflict: OnConflict, onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        let q = { (name: String) in "`" + name.replacingOccurrences(of: "`", with: "``") + "`" }
        let value = { (column: String) -> DatabaseValue in
            insert.columns.firstIndex(of: column).map { row[$0] } ?? .null
        }
        let key = conflict.target.map(value)
        let whereKey = conflict.target.map { q($0) + " = ?" }.joined(separator: " AND ")
        let table = q(insert.table)
        // A concurrent transaction may insert the key between the lock and the INSERT where the isolation level
        // takes no gap lock (READ COMMITTED): the INSERT's conflict on the target then sends the row round again.
        for attempt in 0..<2 {
            if !key.contains(.null) {
                let select =
                    "SELECT " + (insert.returning.map(q) ?? "1") + " FROM " + table + " WHERE " + whereKey
                    + " FOR UPDATE"
                var stored: DatabaseValue?
                _ = try perform(RenderedSQL(sql: select, binds: key), statement: nil, table: insert.table) { r in
                    stored = r.value(at: 0)
                }
                if let stored {
                    guard case .update(let set, let increment) = conflict.action else { return 0 }
                    var assignments: [String] = []
                    var binds: [DatabaseValue] = []
                    for c in set {
                        let v = value(c)
                        if v == .null, let fill = insert.defaults[c] {
                            assignments.append(q(c) + " = " + dialect.databaseDefaultSQL(fill))
                        } else {
                            assignments.append(q(c) + " = ?")
                            binds.append(v)
                        }
                    }
                    for c in increment { assignments.append(q(c) + " = " + q(c) + " + 1") }
                    let update =
                        "UPDATE " + table + " SET " + assignments.joined(separator: ", ") + " WHERE "
                        + whereKey
                    _ = try perform(
                        RenderedSQL(sql: update, binds: binds + key), statement: nil, table: insert.table,
                        onRow: { _ in })
                    if insert.returning != nil { try onRow(StoredValueRow(stored)) }
                    return 1
                }
            }
            var plain = insert
            plain.rows = [row]
            plain.onConflict = nil
            let statement = Statement.insert(plain)
            do {
                return try perform(
                    try SQLRenderer.render(statement, dialect: dialect), statement: statement, onRow: onRow)
            } catch StrataError.uniqueViolation(_, let columns)
                where attempt == 0 && !key.contains(.null) && Set(columns) == Set(conflict.target)
            {
                continue
            }
        }
        return 0
    }
}

/// One returned column's value, handed to the core the way a `RETURNING` row is.
final class StoredValueRow: RowReader {
    private let stored: DatabaseValue
    init(_ stored: DatabaseValue) { self.stored = stored }
    var columnCount: Int { 1 }
    func value(at index: Int) -> DatabaseValue { stored }
}
