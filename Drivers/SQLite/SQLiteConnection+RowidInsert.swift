// SQLiteConnection+RowidInsert: INSERTs read their keys with last_insert_rowid, not RETURNING; templates
// run their prepared statement without building or rendering SQL.
import CSQLite
import Strata

/// A template's prepared statement and how its keys come back. A class: the hot path hands it around with one
/// retain, where a struct copied its table name and key plan (an enum with arrays) field by field.
final class PreparedTemplate {
    let stmt: OpaquePointer
    let keys: RowidKeys
    /// The table named in constraint errors.
    let table: String?
    /// The template it was prepared for, or nil for a statement run once: compared in place (a constant of a class)
    /// by `cachedPlan(for:)`, where a copy of the last template cost about 150 instructions a statement.
    let template: StatementTemplate?
    /// Whether the statement reads at most one row (``StatementTemplate/readsAtMostOneRow``, a find by key): it is
    /// reset after its first row instead of stepped to its end, as a C caller would (about 200 instructions a find).
    let readsOneRow: Bool

    init(stmt: OpaquePointer, keys: RowidKeys, table: String?, template: StatementTemplate?) {
        self.stmt = stmt
        self.keys = keys
        self.table = table
        self.template = template
        readsOneRow = template?.readsAtMostOneRow ?? false
    }

    /// Whether this plan was prepared for `template`, compared in place (see ``StatementTemplate/isSame(as:)``).
    @inline(__always)
    func serves(_ template: StatementTemplate) -> Bool {
        self.template?.isSame(as: template) ?? false
    }
}

/// The one-column row that hands back an INSERT's rowid key. The driver's own rather than the core's `SingleValueRow`:
/// that row's `@exclusivity(unchecked)` value is not honored where another module sets it, so each key set there paid
/// the dynamic exclusivity check (`swift_beginAccess`, about 75 instructions an insert).
final class SQLiteKeyRow: RowReader {
    /// The key the row holds. Unchecked for exclusivity: the driver sets it, then hands the row to a callback that
    /// reads it, one access at a time on the connection's one thread.
    @exclusivity(unchecked) var key: Int64 = 0

    var columnCount: Int { 1 }

    func value(at index: Int) -> DatabaseValue { .integer(key) }

    func int64(at index: Int) -> Int64? { key }
}

/// How an INSERT's `RETURNING` key is answered without RETURNING.
enum RowidKeys {
    /// Not an INSERT into a rowid table returning its key: rows come from the statement itself.
    case fromStatement
    /// One row: the key is `sqlite3_last_insert_rowid`.
    case lastInsert
    /// `count` rows naming `columns` but not the rowid alias `key`: the keys are read back under the write
    /// lock (see `insertRows`).
    case rows(count: Int, columns: [String], key: String, defaults: [String: DatabaseDefault])
}

/// SQLite runs `INSERT … RETURNING` about 2.5 times slower than a plain INSERT (measured on 3.40:
/// 65 ms against 26 ms for 20,000 rows), so when the returned column is the table's rowid alias the
/// driver inserts plainly and hands back `sqlite3_last_insert_rowid` as the returned row.
extension SQLiteConnection {
    public func execute(_ statement: Statement, onRow: (any RowReader) throws -> Void) throws -> Int {
        switch statement {
        case .insert:
            guard let prepared = try plan(for: statement, template: nil) else { break }
            defer { if prepared.owned { sqlite3_finalize(prepared.plan.stmt) } }
            return try run(prepared.plan, prepared.binds, onRow: onRow)
        case .dropTable(let table):
            forgetSchema()
            return try drop(table, statement)
        case .createTable, .addColumn, .createIndex:
            forgetSchema()
        default: break
        }
        return try renderAndRun(statement, onRow: onRow)
    }

    /// DROP TABLE IF EXISTS `table`, refused as PostgreSQL refuses it while another table's foreign key references
    /// the table: SQLite would first delete its rows, cascading into that table's rows (or failing on them).
    /// Outside a transaction foreign keys are off for the drop, so that a table whose rows reference each other
    /// through a RESTRICT key drops with them, as on the other backends (inside one, SQLite refuses it).
    ///
    /// - Throws: ``StrataError/tableReferenced(_:by:)``.
    private func drop(_ table: String, _ statement: Statement) throws -> Int {
        let keys = try rows(
            "SELECT m.name, f.\"table\" FROM sqlite_master m, pragma_foreign_key_list(m.name) f "
                + "WHERE m.type = 'table' AND f.\"table\" = ?1 COLLATE NOCASE",
            [.text(table)])
        var selfReferencing = false
        for key in keys {
            guard case .text(let other) = key[0] else { continue }
            if other.lowercased() != table.lowercased() { throw StrataError.tableReferenced(table, by: other) }
            selfReferencing = true
        }
        guard selfReferencing, sqlite3_get_autocommit(handle) != 0, try foreignKeysEnforced() else {
            return try renderAndRun(statement, onRow: { _ in })
        }
        _ = try rows("PRAGMA foreign_keys = OFF")
        defer { _ = try? rows("PRAGMA foreign_keys = ON") }
        return try renderAndRun(statement, onRow: { _ in })
    }

    /// Runs a template's prepared statement with `binds`; prepares it on first use.
    public func execute(
        template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        if let plan = cachedPlan(for: template) {
            // In use: the same template runs from inside its own row callback; take the general path.
            if isInUse(plan.stmt) { return try execute(try statement(), onRow: onRow) }
            return try run(plan, binds, onRow: onRow)
        }
        let built = try statement()
        guard let prepared = try plan(for: built, template: template) else { return try execute(built, onRow: onRow) }
        assert(prepared.binds == binds, "template binds differ from the statement's")
        defer { if prepared.owned { sqlite3_finalize(prepared.plan.stmt) } }
        if !prepared.owned {
            templateStatements[template] = prepared.plan
            (previousPlan, lastPlan) = (lastPlan, prepared.plan)
        }
        return try run(prepared.plan, binds, onRow: onRow)
    }

    /// Prepares a SELECT, UPDATE, DELETE or INSERT (whose returned key is read back without RETURNING
    /// when the table's rowid allows); nil for other statements. `owned` as for `prepare(_:)`.
    private func plan(
        for statement: Statement, template: StatementTemplate?
    ) throws -> (plan: PreparedTemplate, binds: [DatabaseValue], owned: Bool)? {
        switch statement {
        case .insert(var insert):
            let keys = try rowidKeys(for: insert)
            if case .fromStatement = keys {} else { insert.returning = nil }
            let (stmt, binds, owned) = try prepare(.insert(insert))
            return (PreparedTemplate(stmt: stmt, keys: keys, table: insert.table, template: template), binds, owned)
        case .select, .update, .delete:
            let (stmt, binds, owned) = try prepare(statement)
            let plan = PreparedTemplate(
                stmt: stmt, keys: .fromStatement, table: statement.tableName, template: template)
            return (plan, binds, owned)
        default:
            return nil
        }
    }

    /// Steps a prepared plan and hands back its keys, holding its statement so that nothing prepared
    /// meanwhile (the statements `insertRows` runs) can evict it.
    private func run(_ plan: PreparedTemplate, _ binds: [DatabaseValue], onRow: (any RowReader) throws -> Void) throws
        -> Int
    {
        try holding(plan.stmt) {
            switch plan.keys {
            case .fromStatement:
                return try step(plan.stmt, binds, table: plan.table, firstRowOnly: plan.readsOneRow, onRow: onRow)
            case .lastInsert:
                let changed = try step(plan.stmt, binds, table: plan.table) { _ in }
                // A conflict clause of the table's own (`ON CONFLICT IGNORE`) or a trigger's RAISE(IGNORE) inserts
                // nothing, and last_insert_rowid is then another row's: no key comes back, as RETURNING would.
                guard changed > 0 else { return 0 }
                keyRow.key = sqlite3_last_insert_rowid(handle)
                try onRow(keyRow)
                return changed
            case .rows(let count, let columns, let key, let defaults):
                let table = plan.table ?? ""
                return try insertRows(
                    plan.stmt, binds, count: count, into: table, columns: columns, key: key, defaults: defaults,
                    onRow: onRow)
            }
        }
    }

    /// How `insert`'s returned key can be answered without RETURNING.
    private func rowidKeys(for insert: Insert) throws -> RowidKeys {
        // An upsert returns updated rows too, whose keys last_insert_rowid does not know.
        guard insert.onConflict == nil else { return .fromStatement }
        guard let key = insert.returning, try isRowidAlias(key, of: insert.table) else { return .fromStatement }
        if insert.rows.count == 1 { return .lastInsert }
        // Only when no row names its own key: explicit keys come back through RETURNING.
        if insert.rows.count > 1 && !insert.columns.contains(key) {
            return .rows(count: insert.rows.count, columns: insert.columns, key: key, defaults: insert.defaults)
        }
        return .fromStatement
    }

    /// The plan of a template run before; the last two found by hashing are checked first, without hashing (a loop
    /// of saves or finds runs one template over and over; a save that reads back a generated column, two, which stay
    /// where they are: swapping them on each statement retained and released both, about 80 instructions).
    private func cachedPlan(for template: StatementTemplate) -> PreparedTemplate? {
        if let plan = lastPlan, plan.serves(template) { return plan }
        if let plan = previousPlan, plan.serves(template) { return plan }
        guard let plan = templateStatements[template] else { return nil }
        (previousPlan, lastPlan) = (lastPlan, plan)
        return plan
    }

    /// Forgets what was learnt about tables (rowid aliases, template plans): the schema may have changed.
    func forgetSchema() {
        rowidAliases.removeAll()
        templateStatements.removeAll()
        (lastPlan, previousPlan) = (nil, nil)
    }

    /// Raw SQL other than a plain `SELECT` (``RawSelect/isPlain(_:)``) may change the schema, so it forgets which keys
    /// are rowid aliases and the template plans; `PRAGMA case_sensitive_like` puts SQLite's own LIKE back, so Strata's
    /// is registered again after it.
    public func executeRaw(_ sql: String, _ binds: [DatabaseValue], onRow: (any RowReader) throws -> Void) throws -> Int
    {
        // A plain SELECT changes neither the schema nor a pragma: the template plans and what is known of the tables
        // stay (forgotten, each raw SELECT made the next find and save of every model prepare its statement again).
        let plain = RawSelect.isPlain(sql)
        if !plain { forgetSchema() }
        defer { if !plain, sql.lowercased().contains("case_sensitive_like") { SQLiteLike.register(on: handle) } }
        return try run(try SQLRenderer.renderRaw(sql, binds, dialect: dialect), statement: nil, onRow: onRow)
    }

    /// Whether `column` is the rowid alias of `table` (`INTEGER PRIMARY KEY` of a rowid table), cached
    /// until the next schema change through this connection.
    func isRowidAlias(_ column: String, of table: String) throws -> Bool {
        let key = table + "\u{0}" + column
        if let known = rowidAliases[key] { return known }
        var pkColumns: [(name: String, type: String)] = []
        let info = RenderedSQL(sql: "SELECT name, type FROM pragma_table_info(?1) WHERE pk > 0", binds: [.text(table)])
        _ = try run(info, statement: nil) { r in
            if case .text(let name) = r.value(at: 0), case .text(let type) = r.value(at: 1) {
                pkColumns.append((name, type))
            }
        }
        var withoutRowid = false
        let list = RenderedSQL(sql: "SELECT wr FROM pragma_table_list(?1)", binds: [.text(table)])
        _ = try run(list, statement: nil) { r in
            if case .integer(let wr) = r.value(at: 0), wr != 0 { withoutRowid = true }
        }
        let alias =
            !withoutRowid && pkColumns.count == 1 && pkColumns[0].name == column
            && pkColumns[0].type.uppercased() == "INTEGER"
        rowidAliases[key] = alias
        return alias
    }
}
