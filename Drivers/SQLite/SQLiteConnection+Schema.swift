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
        let tables = try rows(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!'")
        var out: [TableSchema] = []
        for t in tables {
            guard case .text(let name) = t[0] else { continue }
            var sql = ""
            if case .text(let s) = t[1] { sql = s }
            out.append(try describeTable(name, sql: sql))
        }
        return DatabaseSchema(tables: out)
    }

    /// One table from `pragma_table_info`, `pragma_index_list`/`_info` and `pragma_foreign_key_list`.
    private func describeTable(_ name: String, sql: String) throws -> TableSchema {
        var columns: [TableColumn] = []
        for r in try rows(
            #"SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?1) ORDER BY cid"#, [.text(name)])
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
            indexes.append(Index(columns: cols, unique: r[1] == .integer(1), name: index))
        }
        var keys: [ForeignKey] = []
        for r in try rows(
            #"SELECT "table", "from", "to", on_delete FROM pragma_foreign_key_list(?1) ORDER BY id, seq"#, [.text(name)]
        ) {
            guard case .text(let parent) = r[0], case .text(let from) = r[1] else { continue }
            var to = "id"
            if case .text(let t) = r[2] { to = t }
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
        func q(_ name: String) throws -> String { try dialect.quote(name) }
        func table(_ name: String) throws -> TableSchema {
            guard let t = live[table: name] else { throw StrataError.noSuchTable(name) }
            return t
        }
        switch change {
        case .createTable(let schema):
            _ = try renderAndRun(.createTable(schema)) { _ in }
            for index in schema.indexes { _ = try renderAndRun(.createIndex(table: schema.name, index)) { _ in } }
        case .dropTable(let name):
            _ = try rows("DROP TABLE " + q(name))
        case .renameTable(let name, let to):
            _ = try rows("ALTER TABLE " + q(name) + " RENAME TO " + q(to))
        case .addColumn(let name, let column):
            _ = try renderAndRun(.addColumn(table: name, column)) { _ in }
        case .dropColumn(let name, let column):
            var new = try table(name)
            new.columns.removeAll { $0.name == column }
            try rebuild(new)
        case .renameColumn(let name, let column, let to):
            _ = try rows("ALTER TABLE " + q(name) + " RENAME COLUMN " + q(column) + " TO " + q(to))
        case .alterColumn(let name, let column, _, let nullable, _):
            var new = try table(name)
            new.columns = new.columns.map { c in
                var c = c
                if c.name == column { c.isNullable = nullable }
                return c
            }
            try rebuild(new)
        case .addIndex(let name, let index):
            _ = try renderAndRun(.createIndex(table: name, index)) { _ in }
        case .dropIndex(_, let index):
            _ = try rows("DROP INDEX " + q(index))
        case .addForeignKey(let name, let key):
            var new = try table(name)
            new.foreignKeys.append(key)
            try rebuild(new)
        case .dropForeignKey(let name, let column):
            var new = try table(name)
            new.foreignKeys.removeAll { $0.column == column }
            try rebuild(new)
        case .setDefault(let name, let column, let value):
            var new = try table(name)
            guard let p = new.columns.firstIndex(where: { $0.name == column }) else {
                throw StrataError.unknownColumn(model: name, column: column)
            }
            new.columns[p].schemaDefault = value
            new.columns[p].backfill = value
            new.columns[p].defaultExpression = nil
            try rebuild(new)
        }
    }

    /// A retyped column in one rebuild: `temporary`'s values under `column`'s name, at its position, with its
    /// indexes and foreign key, the new type, nullability and default; `temporary` is gone after.
    public func replaceColumn(
        _ column: String, with temporary: String, in table: String, type: ColumnType, nullable: Bool,
        default value: DatabaseValue?, live: DatabaseSchema
    ) throws -> Bool {
        rowidAliases = [:]
        guard var new = live[table: table] else { throw StrataError.noSuchTable(table) }
        new.columns.removeAll { $0.name == temporary }
        guard let p = new.columns.firstIndex(where: { $0.name == column }) else {
            throw StrataError.unknownColumn(model: table, column: column)
        }
        new.columns[p].type = type
        new.columns[p].isNullable = nullable
        new.columns[p].schemaDefault = value
        new.columns[p].backfill = value
        new.columns[p].defaultExpression = nil
        try rebuild(new, sources: [column: temporary])
        return true
    }

    /// SQLite's documented table rebuild (https://sqlite.org/lang_altertable.html#otheralter), inside the open
    /// transaction: save and drop the views (a rename fails while a view names a missing table), create the new
    /// table under a temporary name, copy every row's kept columns (column `c` from `sources[c]` when given),
    /// drop the old table, rename the new one, re-create the indexes, triggers and views (with the triggers on
    /// them), then `PRAGMA foreign_key_check`.
    ///
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` when foreign keys are on (the rebuild needs them
    ///   off, which a migration step does before its transaction); ``StrataError/foreignKeyViolation(table:)``
    ///   when the rebuilt table breaks a foreign key.
    private func rebuild(_ new: TableSchema, sources: [String: String] = [:]) throws {
        if try rows("PRAGMA foreign_keys").first?.first == .integer(1) {
            throw StrataError.unsupported(
                feature:
                    "changing \(new.name) outside a migration step (SQLite rebuilds the table with foreign keys off)",
                driver: "sqlite")
        }
        let q = { (name: String) throws -> String in try self.dialect.quote(name) }
        let triggers = try rows(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1 AND sql IS NOT NULL",
            [.text(new.name)])
        let views = try rows(
            "SELECT name, sql FROM sqlite_master WHERE type = 'view' AND sql IS NOT NULL ORDER BY rowid")
        let viewTriggers = try rows(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL AND tbl_name IN "
                + "(SELECT name FROM sqlite_master WHERE type = 'view') ORDER BY rowid")
        for view in views.reversed() { if case .text(let name) = view[0] { _ = try rows("DROP VIEW " + q(name)) } }
        var temporary = new
        temporary.name = "strata_rebuild_" + new.name
        temporary.indexes = []
        _ = try renderAndRun(.createTable(temporary)) { _ in }
        let columns = try new.columns.map { try q($0.name) }.joined(separator: ", ")
        let values = try new.columns.map { try q(sources[$0.name] ?? $0.name) }.joined(separator: ", ")
        _ = try rows(
            "INSERT INTO " + q(temporary.name) + " (" + columns + ") SELECT " + values + " FROM " + q(new.name))
        _ = try rows("DROP TABLE " + q(new.name))
        _ = try rows("ALTER TABLE " + q(temporary.name) + " RENAME TO " + q(new.name))
        for index in new.indexes { _ = try renderAndRun(.createIndex(table: new.name, index)) { _ in } }
        for trigger in triggers { if case .text(let sql) = trigger[0] { _ = try rows(sql) } }
        for view in views { if case .text(let sql) = view[1] { _ = try rows(sql) } }
        for trigger in viewTriggers { if case .text(let sql) = trigger[0] { _ = try rows(sql) } }
        if !(try rows("SELECT 1 FROM pragma_foreign_key_check(?1) LIMIT 1", [.text(new.name)])).isEmpty {
            throw StrataError.foreignKeyViolation(table: new.name)
        }
    }

    public func willBeginMigrationStep() throws { _ = try rows("PRAGMA foreign_keys = OFF") }

    public func checkMigrationStep() throws {
        if let r = try rows("SELECT \"table\" FROM pragma_foreign_key_check LIMIT 1").first {
            if case .text(let t) = r[0] { throw StrataError.foreignKeyViolation(table: t) }
            throw StrataError.foreignKeyViolation(table: nil)
        }
    }

    public func didEndMigrationStep() { _ = try? rows("PRAGMA foreign_keys = ON") }
}
