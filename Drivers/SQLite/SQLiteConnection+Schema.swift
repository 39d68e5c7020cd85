// SQLiteConnection+Schema: introspection through PRAGMAs, and schema changes (a table rebuild where ALTER falls short).
import Foundation
import Strata

extension SQLiteConnection: SchemaEditing {
    /// Runs SQL with `?N` binds and returns its rows.
    func rows(_ sql: String, _ binds: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        var out: [[DatabaseValue]] = []
        _ = try run(RenderedSQL(sql: sql, binds: binds), statement: nil) { r in
            out.append((0..<r.columnCount).map { r.value(at: $0) })
        }
        return out
    }

    public func introspect() throws -> DatabaseSchema {
        // Ordinary tables only: an FTS5 index (a virtual table) and its shadow tables are the index's own.
        let tables = try rows(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!' "
                + "AND name IN (SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table')")
        var out: [TableSchema] = []
        for t in tables {
            guard case .text(let name) = t[0] else { continue }
            var sql = ""
            if case .text(let s) = t[1] { sql = s }
            out.append(try describeTable(name, sql: sql))
        }
        return DatabaseSchema(tables: out)
    }

    /// One table from `pragma_table_xinfo` (generated columns marked), `pragma_index_list`/`_info` and `pragma_foreign_key_list`.
    private func describeTable(_ name: String, sql: String) throws -> TableSchema {
        var columns: [TableColumn] = []
        for r in try rows(
            #"SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?1) "#
                + "WHERE hidden IN (0, 2, 3) ORDER BY cid", [.text(name)])
        {
            guard case .text(let column) = r[0] else { continue }
            var declared = ""
            if case .text(let d) = r[1] { declared = d.uppercased() }
            let isPK = r[4] != .integer(0)
            let quoted = try dialect.quote(column)
            let type: ColumnType
            if declared.contains("INT") {
                type = !isPK && sql.contains(quoted + " IN (0, 1)") ? .bool : .integer
            } else if declared.contains("REAL") || declared.contains("FLOA") || declared.contains("DOUB") {
                type = .double
            } else if declared.contains("BLOB") || declared.isEmpty {
                type = .blob
            } else if sql.contains(quoted + " TEXT COLLATE \"\(SQLiteDecimalCollation.name)\"") {
                type = .decimal
            } else if declared.contains("TEXT") || declared.contains("CHAR") || declared.contains("CLOB") {
                type = .text
            } else {
                type = .decimal
            }
            var parsed: (value: DatabaseValue?, expression: String?) = (nil, nil)
            if case .text(let d) = r[3] { parsed = Self.parseDefault(d, type: type) }
            var described = TableColumn(
                name: column, type: type, isNullable: r[2] == .integer(0), isPrimaryKey: isPK,
                schemaDefault: parsed.value)
            described.defaultExpression = parsed.expression
            described.isGenerated = r[5] == .integer(2) || r[5] == .integer(3)
            columns.append(described)
        }
        var indexes: [Index] = []
        for r in try rows(
            #"SELECT name, "unique" FROM pragma_index_list(?1) WHERE origin = 'c' ORDER BY name"#, [.text(name)])
        {
            guard case .text(let index) = r[0] else { continue }
            let cols = try rows("SELECT name FROM pragma_index_info(?1) ORDER BY seqno", [.text(index)]).compactMap {
                if case .text(let c) = $0[0] { return c }
                return nil
            }
            // An index on an expression (a JSON path) names no column: not one the schema's indexes describe.
            guard !cols.isEmpty else { continue }
            indexes.append(Index(columns: cols, unique: r[1] == .integer(1), name: index))
        }
        var keys: [ForeignKey] = []
        var lastID: DatabaseValue?
        for r in try rows(
            #"SELECT "table", "from", "to", on_delete, id FROM pragma_foreign_key_list(?1) ORDER BY id, seq"#,
            [.text(name)]
        ) {
            guard case .text(let parent) = r[0], case .text(let from) = r[1] else { continue }
            var to = "id"
            if case .text(let t) = r[2] { to = t }
            // A key of several columns is one id with a row per column, in order (seq).
            if let lastID, lastID == r[4], !keys.isEmpty {
                keys[keys.count - 1].columns.append(from)
                keys[keys.count - 1].referencedColumns.append(to)
                continue
            }
            lastID = r[4]
            var action = ForeignKey.Action.noAction
            if case .text(let a) = r[3] { action = ForeignKey.Action(rawValue: a) ?? .noAction }
            keys.append(ForeignKey(column: from, references: parent, column: to, onDelete: action))
        }
        return TableSchema(name: name, columns: columns, indexes: indexes, foreignKeys: keys)
    }

    /// A DEFAULT as `pragma_table_info` shows it: a constant (`'text'`, `42`, `(1.5)`, `TRUE`), or an
    /// expression the database computes (`CURRENT_TIMESTAMP`, `datetime('now')`), spelled by
    /// ``ColumnDefault/expression(_:)``.
    static func parseDefault(_ text: String, type: ColumnType) -> (value: DatabaseValue?, expression: String?) {
        var s = Substring(text)
        while s.hasPrefix("(") && s.hasSuffix(")") { s = s.dropFirst().dropLast() }
        if s.hasPrefix("'") && s.hasSuffix("'") && s.count >= 2 {
            let inner = String(s.dropFirst().dropLast())
            if !inner.replacingOccurrences(of: "''", with: "").contains("'") {
                return (.text(inner.replacingOccurrences(of: "''", with: "'")), nil)
            }
        }
        switch s.uppercased() {
        case "NULL": return (nil, nil)
        case "TRUE": return (.bool(true), nil)
        case "FALSE": return (.bool(false), nil)
        default: break
        }
        if let i = Int64(s) { return (type == .bool && (i == 0 || i == 1) ? .bool(i == 1) : .integer(i), nil) }
        if let d = Double(s) { return (.double(d), nil) }
        return (nil, ColumnDefault.expression(text))
    }

    public func apply(_ change: SchemaChange, live: DatabaseSchema) throws {
        rowidAliases = [:]
        switch change {
        case .dropColumn(let name, let column):
            try dropColumn(column, from: name)
        case .alterColumn(let name, let column, _, let nullable, _):
            try rebuild(name) { text in
                try text.editColumn(column, table: name) { c in
                    c.remove(["NOT NULL", "NULL"])
                    if !nullable { c.append("NOT NULL") }
                }
            }
        case .addForeignKey(let name, let key):
            let clause = " " + (try SQLRenderer.foreignKeyClause(key, dialect: dialect))
            try rebuild(name) { $0.definitions.append(clause) }
        case .dropForeignKey(let name, let column):
            try rebuild(name) { try $0.removeForeignKeys(on: column, table: name) }
        case .addColumn(let name, let column) where column.isGenerated || column.databaseDefault != nil:
            // `ALTER TABLE … ADD COLUMN` cannot add a STORED generated column, nor a column whose default is an
            // expression: the rebuilt table gets its definition after the last column's, and the copy computes
            // it for every row (the default: the time of the migration).
            let prefix = "ALTER TABLE " + (try dialect.quote(name)) + " ADD COLUMN "
            let sql = try SQLRenderer.render(.addColumn(table: name, column), dialect: dialect).sql
            let definition = " " + String(sql.dropFirst(prefix.count))
            try rebuild(name) { text in
                let last = text.definitions.lastIndex { SQLiteColumnText($0) != nil } ?? (text.definitions.count - 1)
                text.definitions.insert(definition, at: last + 1)
            }
        case .setDefault(let name, let column, let value):
            let literal = try value.map {
                try SQLRenderer.defaultLiteral($0, dialect: dialect, table: name, column: column)
            }
            try rebuild(name) { text in
                try text.editColumn(column, table: name) { c in
                    c.remove(["DEFAULT"])
                    if let literal { c.append("DEFAULT " + literal) }
                }
            }
        case .setDatabaseDefault(let name, let column, let value):
            let expression = value.map(dialect.databaseDefaultSQL)
            try rebuild(name) { text in
                try text.editColumn(column, table: name) { c in
                    c.remove(["DEFAULT"])
                    if let expression { c.append("DEFAULT " + expression) }
                }
            }
        case .createTable, .dropTable, .renameTable, .addColumn, .renameColumn, .addIndex, .dropIndex:
            for sql in try SQLRenderer.statements(for: change, dialect: dialect) ?? [] { _ = try rows(sql) }
        }
    }

    /// Drops a column with SQLite's own `ALTER TABLE … DROP COLUMN`, which keeps everything else of the table.
    /// SQLite refuses a column with a UNIQUE constraint (dropped with the column, as on PostgreSQL, by a rebuild
    /// without its definition); a column other parts of the schema use (a CHECK, a generated column, an index
    /// expression, a view, a trigger) is refused.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming what SQLite would not drop.
    private func dropColumn(_ column: String, from table: String) throws {
        do {
            for sql in try SQLRenderer.statements(for: .dropColumn(table: table, column: column), dialect: dialect)
                ?? []
            {
                _ = try rows(sql)
            }
        } catch let native as StrataError {
            do {
                try rebuild(table) { try $0.removeColumn(column, table: table) }
            } catch {
                throw StrataError.invalidQuery(
                    "cannot drop \(table).\(column): the schema still uses it (SQLite: \(native); rebuilding: \(error))"
                )
            }
        }
    }

    /// A retyped column in one rebuild: `temporary`'s values under `column`'s name, at its place in the table's
    /// own text, with the new type (and Strata's type CHECK and collation for it), nullability and default, every
    /// other constraint kept; `temporary` is gone after.
    public func replaceColumn(
        _ column: String, with temporary: String, in table: String, type: ColumnType, nullable: Bool,
        default value: DatabaseValue?, live: DatabaseSchema
    ) throws -> Bool {
        rowidAliases = [:]
        guard let old = live[table: table]?.column(named: column) else {
            throw StrataError.unknownColumn(model: table, column: column)
        }
        let quoted = try dialect.quote(column)
        let literal = try value.map {
            try SQLRenderer.defaultLiteral($0, dialect: dialect, table: table, column: column)
        }
        try rebuild(table, sources: [column: temporary]) { text in
            try text.removeColumn(temporary, table: table)
            try text.editColumn(column, table: table) { c in
                if let check = dialect.typeCheck(old.type, column: quoted) { c.removeCheck(check) }
                if old.type == .decimal { c.removeCollation(SQLiteDecimalCollation.name) }
                c.remove(["NOT NULL", "NULL", "DEFAULT"])
                c.replaceType(with: dialect.sqlType(type))
                if !nullable { c.append("NOT NULL") }
                if let literal { c.append("DEFAULT " + literal) }
                if let check = dialect.typeCheck(type, column: quoted) { c.append("CHECK (" + check + ")") }
            }
        }
        return true
    }

    /// SQLite's documented table rebuild (https://sqlite.org/lang_altertable.html#otheralter), inside the open
    /// transaction, from the table's own CREATE TABLE text as `edit` changes it, so that everything the step
    /// does not change stays as it was (UNIQUE, CHECK, COLLATE, AUTOINCREMENT, computed defaults, generated
    /// columns, declared types, `WITHOUT ROWID`, a non-STRICT table staying so): save and drop the views (a
    /// rename fails while a view names a missing table), create the new table under a temporary name, copy every
    /// row's stored columns (column `c` from `sources[c]` when given), drop the old table, rename the new one,
    /// re-create its indexes (partial and expression ones too), its triggers, the views and the triggers of other
    /// tables and views (a body naming the table would fail the rename; they are dropped first) from their saved
    /// text, put the AUTOINCREMENT counter back, then `PRAGMA foreign_key_check`.
    ///
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` when foreign keys are on (the rebuild needs them
    ///   off, which a migration step does before its transaction) or the table's text cannot be read;
    ///   ``StrataError/foreignKeyViolation(table:)`` when the rebuilt table breaks a foreign key; the database's
    ///   errors when the edited text or a saved index, trigger or view no longer holds.
    private func rebuild(
        _ name: String, sources: [String: String] = [:], edit: (inout SQLiteTableText) throws -> Void
    ) throws {
        rowidAliases = [:]
        if try foreignKeysEnforced() {
            throw StrataError.unsupported(
                feature: "changing \(name) outside a migration step (SQLite rebuilds the table with foreign keys off)",
                driver: "sqlite")
        }
        let q = { (name: String) throws -> String in try self.dialect.quote(name) }
        guard
            case .text(let sql) = try rows(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1", [.text(name)]
            ).first?.first,
            var text = SQLiteTableText(sql)
        else {
            throw StrataError.unsupported(
                feature: "rebuilding \(name) (its CREATE TABLE text could not be read)", driver: "sqlite")
        }
        try edit(&text)
        let temporary = "strata_rebuild_" + name
        text.head = "CREATE TABLE " + (try q(temporary)) + " "
        let indexes = try rows(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL ORDER BY rowid",
            [.text(name)])
        let triggers = try rows(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1 AND sql IS NOT NULL ORDER BY rowid",
            [.text(name)])
        let views = try rows(
            "SELECT name, sql FROM sqlite_master WHERE type = 'view' AND sql IS NOT NULL ORDER BY rowid")
        // Triggers of other tables and views: a body that names the table would fail the rename.
        let otherTriggers = try rows(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL AND tbl_name <> ?1 "
                + "ORDER BY rowid", [.text(name)])
        var sequence: DatabaseValue?
        if try !rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").isEmpty {
            sequence = try rows("SELECT seq FROM sqlite_sequence WHERE name = ?1", [.text(name)]).first?.first
        }
        for trigger in otherTriggers {
            if case .text(let name) = trigger[0] { _ = try rows("DROP TRIGGER IF EXISTS " + q(name)) }
        }
        for view in views.reversed() { if case .text(let name) = view[0] { _ = try rows("DROP VIEW " + q(name)) } }
        _ = try rows(text.sql)
        let stored = "SELECT name FROM pragma_table_xinfo(?1) WHERE hidden = 0 ORDER BY cid"
        let old = Set(
            try rows(stored, [.text(name)]).compactMap { r -> String? in
                if case .text(let c) = r[0] { return c.lowercased() }
                return nil
            })
        var columns: [String] = []
        var values: [String] = []
        for r in try rows(stored, [.text(temporary)]) {
            guard case .text(let c) = r[0] else { continue }
            let source = sources[c] ?? c
            guard old.contains(source.lowercased()) else { continue }
            columns.append(try q(c))
            values.append(try q(source))
        }
        _ = try rows(
            "INSERT INTO " + q(temporary) + " (" + columns.joined(separator: ", ") + ") SELECT "
                + values.joined(separator: ", ") + " FROM " + q(name))
        _ = try rows("DROP TABLE " + q(name))
        _ = try rows("ALTER TABLE " + q(temporary) + " RENAME TO " + q(name))
        for index in indexes { if case .text(let sql) = index[0] { _ = try rows(sql) } }
        for trigger in triggers { if case .text(let sql) = trigger[0] { _ = try rows(sql) } }
        for view in views { if case .text(let sql) = view[1] { _ = try rows(sql) } }
        for trigger in otherTriggers { if case .text(let sql) = trigger[1] { _ = try rows(sql) } }
        if let sequence {
            _ = try rows("DELETE FROM sqlite_sequence WHERE name IN (?1, ?2)", [.text(name), .text(temporary)])
            _ = try rows("INSERT INTO sqlite_sequence (name, seq) VALUES (?1, ?2)", [.text(name), sequence])
        }
        try refillFullTextIndexes(of: name)
        if !(try rows("SELECT 1 FROM pragma_foreign_key_check(?1) LIMIT 1", [.text(name)])).isEmpty {
            throw StrataError.foreignKeyViolation(table: name)
        }
    }

    /// Fills again every FTS5 index of a rebuilt table from its rows (its triggers came back with the table's
    /// others): the copy gave a table whose key is not its rowid new rowids, which the index must read.
    private func refillFullTextIndexes(of table: String) throws {
        guard dialect.fullTextIndex == .fts5 else { return }
        for r in try rows("SELECT name FROM pragma_table_xinfo(?1) WHERE hidden = 0", [.text(table)]) {
            guard case .text(let column) = r[0], dialect.fullTextIndexTable(table: table, column: column) != nil,
                let sql = try SQLRenderer.fullTextIndexFillSQL(table: table, column: column, dialect: dialect)
            else { continue }
            _ = try rows(sql)
        }
    }

    /// Whether this connection enforces foreign keys now (off in a migration step).
    func foreignKeysEnforced() throws -> Bool { try rows("PRAGMA foreign_keys").first?.first == .integer(1) }

    public func willBeginMigrationStep() throws { _ = try rows("PRAGMA foreign_keys = OFF") }

    public func checkMigrationStep() throws {
        if let r = try rows("SELECT \"table\" FROM pragma_foreign_key_check LIMIT 1").first {
            if case .text(let t) = r[0] { throw StrataError.foreignKeyViolation(table: t) }
            throw StrataError.foreignKeyViolation(table: nil)
        }
    }

    public func didEndMigrationStep() { _ = try? rows("PRAGMA foreign_keys = ON") }
}
