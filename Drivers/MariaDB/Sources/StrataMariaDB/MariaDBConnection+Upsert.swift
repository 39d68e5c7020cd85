// MariaDBConnection+Upsert: ON DUPLICATE KEY UPDATE has no conflict target, so an upsert whose row could conflict on
// another unique key is refused before it runs.
import Strata

extension MariaDBConnection {
    /// Throws ``StrataError/unsupported(feature:driver:)`` when `insert` is an upsert and the table has a unique key
    /// other than the upsert's target that the inserted columns reach: MariaDB would update the row that key matched
    /// where SQLite and PostgreSQL raise a unique violation.
    func checkUpsertTarget(_ insert: Insert) throws {
        guard let conflict = insert.onConflict else { return }
        let sql = """
            SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()
            AND TABLE_NAME = ? AND NON_UNIQUE = 0 ORDER BY INDEX_NAME, SEQ_IN_INDEX
            """
        var keys: [String: [String]] = [:]
        _ = try run(RenderedSQL(sql: sql, binds: [.text(insert.table)]), statement: nil) { r in
            guard case .text(let index) = r.value(at: 0), case .text(let column) = r.value(at: 1) else { return }
            keys[index, default: []].append(column)
        }
        let inserted = Set(insert.columns)
        for (index, columns) in keys.sorted(by: { $0.key < $1.key })
        where Set(columns) != Set(conflict.target) && !inserted.isDisjoint(with: columns) {
            throw StrataError.unsupported(
                feature: "an upsert on \(insert.table) that may conflict on its unique key \(index) "
                    + "(\(columns.joined(separator: ", "))) besides its target (\(conflict.target.joined(separator: ", "))): "
                    + "ON DUPLICATE KEY UPDATE names no target",
                driver: "mariadb")
        }
    }
}
