// HistoryLog: the strata_history and strata_history_clock tables, and how a transaction writes to them.
import Foundation

/// The change history's storage, in two tables every driver creates from these schemas:
///
/// - `strata_history`: one row per row written — `id` (automatic, the order within a transaction), `token`
///   (the writing transaction's), `table_name`, `row_key` (the primary key as text), `operation` (`insert`,
///   `update`, `delete`, `upsert`), `columns` (the columns set, comma-separated), `changed_at`.
/// - `strata_history_clock`: one row (`id` 1) holding `token`, the last token handed out, and `database_id`, a
///   random id that tokens carry so that a token from another database is refused.
///
/// A transaction takes its token at its first tracked write by incrementing the clock row, whose row lock it
/// then holds until it ends: a second writer of tracked tables waits there, so tokens are handed out in commit
/// order on every driver, and a reader that has seen token n has seen every transaction below n.
enum HistoryLog {
    static let table = "strata_history"
    static let clock = "strata_history_clock"

    static let schema = TableSchema(
        name: table,
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
            TableColumn(name: "token", type: .integer, isNullable: false),
            TableColumn(name: "table_name", type: .text, isNullable: false),
            TableColumn(name: "row_key", type: .text, isNullable: false),
            TableColumn(name: "operation", type: .text, isNullable: false),
            TableColumn(name: "columns", type: .text, isNullable: false),
            TableColumn(name: "changed_at", type: .date, isNullable: false),
        ])

    static let clockSchema = TableSchema(
        name: clock,
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
            TableColumn(name: "token", type: .integer, isNullable: false),
            TableColumn(name: "database_id", type: .text, isNullable: false),
        ])

    /// The template of a one-row INSERT into the history.
    static let oneRow = StatementTemplate(HistoryLog.self, .insertRowsReturningKey(1), table: table)

    static let clockRow = SQLExpression.compare(.equal, .column("id"), .value(.integer(1)))

    /// Creates both tables and the clock's row unless they exist.
    static func ensureTables(_ tx: Transaction) throws {
        if try tx.columns(of: table) == nil {
            _ = try tx.execute(.createTable(schema))
            _ = try tx.execute(.createIndex(table: table, Index(columns: ["token"], name: "strata_history_token")))
        }
        if try tx.columns(of: clock) == nil { _ = try tx.execute(.createTable(clockSchema)) }
        var rows = 0
        _ = try tx.execute(.select(Select(table: clock, selection: .columns(["id"]), filter: clockRow))) { _ in
            rows += 1
        }
        if rows == 0 {
            _ = try tx.execute(
                .insert(
                    Insert(
                        table: clock, columns: ["id", "token", "database_id"],
                        rows: [[.integer(1), .integer(0), .text(UUID().uuidString.lowercased())]])))
        }
    }

    /// The clock: the last token handed out and committed (as this transaction sees it) and the database's id.
    static func readClock(_ tx: Transaction) throws -> (token: Int64, database: String) {
        guard try tx.columns(of: clock) != nil else {
            throw StrataError.invalidArgument(
                "since", reason: "this database keeps no change history: migrate a model with tracksHistory first")
        }
        var found: (Int64, String)?
        let select = Select(table: clock, selection: .columns(["token", "database_id"]), filter: clockRow)
        _ = try tx.execute(.select(select)) { r in
            found = (r.int64(at: 0) ?? 0, r.string(at: 1) ?? "")
        }
        guard let found else { throw StrataError.noSuchTable(clock) }
        return found
    }

    /// The token of the open transaction: taken at its first tracked write (incrementing the clock, whose row lock
    /// is held until the transaction ends), and taken again when the savepoint that took it was rolled back.
    static func takeToken(_ tx: Transaction) throws -> Int64 {
        let bump = Assignment("token", expression: .arithmetic(.add, .column("token"), .value(.integer(1))))
        let changed = try tx.executeUnrecorded(.update(Update(table: clock, assignments: [bump], filter: clockRow)))
        guard changed == 1 else { throw StrataError.noSuchTable(clock) }
        var token: Int64?
        _ = try tx.executeUnrecorded(.select(Select(table: clock, selection: .columns(["token"]), filter: clockRow))) {
            token = $0.int64(at: 0)
        }
        guard let token else { throw StrataError.noSuchTable(clock) }
        return token
    }

    /// A key as the history stores it.
    static func keyText(_ value: DatabaseValue) -> String {
        switch value {
        case .integer(let v): return String(v)
        case .text(let s): return s
        case .uuid(let u): return u.uuidString.lowercased()
        default: return "\(value)"
        }
    }

    /// Writes one history row per key, in as few statements as the bind limit allows.
    static func record(
        _ tx: Transaction, table: String, keys: [DatabaseValue], operation: HistoryChange.Operation,
        columns: [String]
    ) throws {
        guard !keys.isEmpty else { return }
        let token = try tx.writeToken()
        let now = DatabaseValue.roundedToMicroseconds(Date())
        let names = ["token", "table_name", "row_key", "operation", "columns", "changed_at"]
        let fixed: [DatabaseValue] = [.integer(token), .text(table)]
        let tail: [DatabaseValue] = [
            .text(operation.rawValue), .text(columns.joined(separator: ",")), .date(now),
        ]
        if keys.count == 1 {
            // One row, the common case (a save): a template, which a connection prepares once and reuses.
            let row = fixed + [.text(keyText(keys[0]))] + tail
            _ = try tx.executeUnrecorded(
                template: oneRow, binds: row,
                statement: { .insert(Insert(table: HistoryLog.table, columns: names, rows: [row])) }, onRow: { _ in })
            return
        }
        let perStatement = max(1, tx.connection.maxBindParameters / names.count)
        var start = 0
        while start < keys.count {
            let end = min(start + perStatement, keys.count)
            let rows = keys[start..<end].map { fixed + [.text(keyText($0))] + tail }
            _ = try tx.executeUnrecorded(.insert(Insert(table: HistoryLog.table, columns: names, rows: rows)))
            start = end
        }
    }
}
