// MariaDBConnection+InsertIDs: an INSERT's new keys read from the insert id the server sends with its OK, not from
// the rows a RETURNING clause sends back, where InnoDB assigns them consecutively.
import CMariaDB
import Strata

extension MariaDBConnection {
    /// The SQL to run instead of `sql`, without its `RETURNING` clause, when the keys an `INSERT … RETURNING key`
    /// asks for can be computed from the insert id instead (see ``insertReadingIDs(_:statement:known:onRow:)``);
    /// nil when they cannot. All of this must hold:
    /// 1. InnoDB assigns each statement's keys consecutively: `innodb_autoinc_lock_mode` is 0 or 1 (1, MariaDB's
    ///    default, reserves all the values a multi-row `INSERT … VALUES` needs at once, its row count being known;
    ///    2, which Galera requires, interleaves concurrent statements' values, so RETURNING is kept there). Each
    ///    value is then the previous one plus `auto_increment_increment`, both read once when the connection opens.
    /// 2. The statement is a plain INSERT (no upsert clause), returning the table's `AUTO_INCREMENT` column, which
    ///    it gives no value: every row's key is generated, and the first is the insert id
    ///    (`mysql_stmt_insert_id`).
    /// 3. Every row is stored: a plain INSERT stores all its rows or fails (MariaDB has no rule or trigger that
    ///    skips a row); the count is checked all the same.
    func insertIDPlan(_ statement: Statement?, sql: String) throws -> String? {
        guard autoIncrementStep != nil, case .insert(let insert)? = statement, insert.onConflict == nil,
            let key = insert.returning, !insert.columns.contains(key)
        else { return nil }
        let suffix = " RETURNING " + (try dialect.quote(key))
        guard sql.hasSuffix(suffix), try autoIncrementColumn(of: insert.table) == key else { return nil }
        return String(sql.dropLast(suffix.count))
    }

    /// Runs an INSERT whose `RETURNING` clause ``insertIDPlan(_:sql:)`` removed (`rendered`), and hands `onRow`
    /// each row's key, in row order: the insert id, then each next one `auto_increment_increment` further.
    func insertReadingIDs(
        _ rendered: RenderedSQL, statement: Statement, known: MariaDBStatement?, onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        let table = statement.tableName
        let changed = try perform(rendered, statement: statement, known: known) { _ in }
        let first = Int64(bitPattern: lastInsertID)
        if case .insert(let insert) = statement, !insert.rows.isEmpty, changed != insert.rows.count {
            throw StrataError.insertIgnored(table: table ?? insert.table)
        }
        guard changed > 0 else { return 0 }
        guard first > 0, let step = autoIncrementStep else {
            throw StrataError.divergence(
                statement: "INSERT INTO \(table ?? "?")", details: "MariaDB sent no insert id for \(changed) rows")
        }
        let row = KeyRow()
        for k in 0..<Int64(changed) {
            row.key = first + k * step
            try onRow(row)
        }
        return changed
    }

    /// The name of `table`'s `AUTO_INCREMENT` column, or nil; cached per table until a schema change through the
    /// driver (as the unique keys are).
    func autoIncrementColumn(of table: String) throws -> String? {
        try schemaFact(\.autoIncrementByTable, table: table) {
            let sql = """
                SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
                AND EXTRA LIKE '%auto_increment%'
                """
            var column: String?
            for r in try rows(sql, [.text(table)]) {
                if case .text(let name) = r[0] { column = name }
            }
            return column
        }
    }

    /// The step between consecutive generated keys when InnoDB assigns a statement's keys consecutively (lock mode
    /// 0 or 1), or nil (lock mode 2, or the variables could not be read).
    static func autoIncrementStep(_ connection: MariaDBConnection) -> Int64? {
        guard let r = try? connection.rows("SELECT @@innodb_autoinc_lock_mode, @@auto_increment_increment").first,
            r.count == 2, case .integer(let mode) = r[0], case .integer(let step) = r[1], mode <= 1, step > 0
        else { return nil }
        return step
    }
}

/// One generated key, as the single column of a row.
private final class KeyRow: RowReader {
    var key: Int64 = 0
    var columnCount: Int { 1 }
    func value(at index: Int) -> DatabaseValue { .integer(key) }
    func int64(at index: Int) -> Int64? { key }
}
