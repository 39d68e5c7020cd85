// MariaDBConnection+SchemaEditing: introspection through information_schema, running the core's DDL, the migration lock.
import Foundation
import Strata

extension MariaDBConnection: SchemaEditing {
    /// Runs SQL with `?` binds and returns its rows.
    func rows(_ sql: String, _ binds: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        var out: [[DatabaseValue]] = []
        _ = try run(RenderedSQL(sql: sql, binds: binds), statement: nil) { r in
            out.append((0..<r.columnCount).map { r.value(at: $0) })
        }
        return out
    }

    private static let columnsSQL = """
        SELECT c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE, c.COLUMN_DEFAULT, c.COLUMN_KEY, c.EXTRA
        FROM information_schema.COLUMNS c JOIN information_schema.TABLES t
          ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME AND t.TABLE_TYPE = 'BASE TABLE'
        WHERE c.TABLE_SCHEMA = DATABASE() ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION
        """

    private static let indexesSQL = """
        SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, COLUMN_NAME FROM information_schema.STATISTICS
        WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME <> 'PRIMARY' ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX
        """

    private static let keysSQL = """
        SELECT k.TABLE_NAME, k.COLUMN_NAME, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME, r.DELETE_RULE,
               k.CONSTRAINT_NAME, k.ORDINAL_POSITION
        FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.REFERENTIAL_CONSTRAINTS r
          ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME
         AND r.TABLE_NAME = k.TABLE_NAME
        WHERE k.TABLE_SCHEMA = DATABASE() ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION
        """

    private static let checksSQL = """
        SELECT TABLE_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()
        """

    /// Whether a `KEY_COLUMN_USAGE.ORDINAL_POSITION` is 1: the first column of its key.
    private static func isFirstKeyColumn(_ position: DatabaseValue) -> Bool {
        position == .integer(1) || position == .text("1")
    }

    public func introspect() throws -> DatabaseSchema {
        var jsonColumns = Set<String>()  // `table NUL column` of LONGTEXT columns checked by JSON_VALID
        for r in try rows(Self.checksSQL) {
            guard case .text(let table) = r[0], case .text(let clause) = r[1] else { continue }
            // The column is quoted as the session's sql_mode quotes names: `"c"` under ANSI_QUOTES (the driver's
            // sessions), `` `c` `` otherwise.
            guard clause.lowercased().hasPrefix("json_valid(") else { continue }
            let quoted = clause.dropFirst("json_valid(".count)
            guard let quote = quoted.first, quote == "`" || quote == "\"", let end = quoted.lastIndex(of: quote),
                end > quoted.startIndex
            else { continue }
            let name = quoted[quoted.index(after: quoted.startIndex)..<end]
            let doubled = String(quote) + String(quote)
            jsonColumns.insert(table + "\0" + name.replacingOccurrences(of: doubled, with: String(quote)))
        }
        var order: [String] = []
        var columns: [String: [TableColumn]] = [:]
        for r in try rows(Self.columnsSQL) {
            guard case .text(let table) = r[0], case .text(let name) = r[1], case .text(let declared) = r[2] else {
                continue
            }
            if columns[table] == nil { order.append(table) }
            var type = Self.columnType(declared)
            if type == .text, jsonColumns.contains(table + "\0" + name) { type = .json }
            var parsed: (value: DatabaseValue?, expression: String?) = (nil, nil)
            var generated = false
            if case .text(let extra) = r[6] { generated = extra.uppercased().contains("GENERATED") }
            if !generated, case .text(let d) = r[4] { parsed = Self.parseDefault(d, type: type) }
            var described = TableColumn(
                name: name, type: type, isNullable: r[3] == .text("YES"), isPrimaryKey: r[5] == .text("PRI"),
                schemaDefault: parsed.value)
            described.defaultExpression = parsed.expression
            described.isGenerated = generated
            columns[table, default: []].append(described)
        }
        var keys: [String: [ForeignKey]] = [:]
        var keyIndexes = Set<String>()  // `table NUL index` of the indexes MariaDB made for a foreign key
        for r in try rows(Self.keysSQL) {
            guard case .text(let table) = r[0], case .text(let column) = r[1], case .text(let parent) = r[2],
                case .text(let referenced) = r[3]
            else { continue }
            let actions: [String: ForeignKey.Action] = [
                "RESTRICT": .restrict, "CASCADE": .cascade, "SET NULL": .setNull,
            ]
            var action = ForeignKey.Action.noAction
            if case .text(let a) = r[4] { action = actions[a] ?? .noAction }
            // A key of several columns (to a composite key) comes as one row per column, in key order.
            if !Self.isFirstKeyColumn(r[6]), let last = keys[table]?.indices.last {
                keys[table]?[last].columns.append(column)
                keys[table]?[last].referencedColumns.append(referenced)
                continue
            }
            keys[table, default: []].append(
                ForeignKey(column: column, references: parent, column: referenced, onDelete: action))
            keyIndexes.insert(table + "\0" + column)
            if case .text(let constraint) = r[5] { keyIndexes.insert(table + "\0" + constraint) }
        }
        var indexes: [String: [Index]] = [:]
        for r in try rows(Self.indexesSQL) {
            guard case .text(let table) = r[0], case .text(let name) = r[1], case .text(let column) = r[3] else {
                continue
            }
            if let i = indexes[table]?.lastIndex(where: { $0.name == name }) {
                indexes[table]?[i].columns.append(column)
            } else {
                indexes[table, default: []].append(Index(columns: [column], unique: r[2] == .integer(0), name: name))
            }
        }
        // The index MariaDB adds by itself under a foreign key (named after its first column or its constraint, over
        // the key's columns) is no index of the model's.
        for (table, list) in indexes {
            let keyColumns = Set((keys[table] ?? []).map(\.columns))
            indexes[table] = list.filter { index in
                !(!index.isUnique && keyIndexes.contains(table + "\0" + (index.name ?? ""))
                    && keyColumns.contains(index.columns))
            }
        }
        return DatabaseSchema(
            tables: order.map {
                TableSchema(
                    name: $0, columns: columns[$0] ?? [], indexes: indexes[$0] ?? [], foreignKeys: keys[$0] ?? [])
            })
    }

    /// The Strata type of a `COLUMN_TYPE`.
    static func columnType(_ declared: String) -> ColumnType {
        let t = declared.lowercased()
        if t.hasPrefix("tinyint(1)") { return .bool }
        if t.hasPrefix("bigint") || t.hasPrefix("int") || t.hasPrefix("smallint") || t.hasPrefix("mediumint")
            || t.hasPrefix("tinyint")
        {
            return .integer
        }
        if t.hasPrefix("double") || t.hasPrefix("float") { return .double }
        if t.hasPrefix("decimal") { return .decimal }
        if t.hasPrefix("datetime") || t.hasPrefix("timestamp") || t == "date" { return .date }
        if t.hasPrefix("char(36)") { return .uuid }
        if t.hasSuffix("blob") || t.hasPrefix("varbinary") || t.hasPrefix("binary") { return .blob }
        return .text
    }

    /// A `COLUMN_DEFAULT` as MariaDB 10.2+ shows it: `NULL`, a quoted literal (`'a''b'`), a number, or an
    /// expression (`current_timestamp(6)`), spelled by ``ColumnDefault/expression(_:)``.
    static func parseDefault(_ text: String, type: ColumnType) -> (value: DatabaseValue?, expression: String?) {
        if text == "NULL" { return (nil, nil) }
        if text.hasPrefix("'") && text.hasSuffix("'") && text.count >= 2 {
            var literal = ""
            var chars = Array(text.dropFirst().dropLast())[...]
            while let c = chars.popFirst() {
                if c == "'" || c == "\\", let next = chars.popFirst() {
                    switch (c, next) {
                    case ("\\", "n"): literal.append("\n")
                    case ("\\", "t"): literal.append("\t")
                    case ("\\", "r"): literal.append("\r")
                    case ("\\", "0"): literal.append("\0")
                    default: literal.append(next)
                    }
                } else {
                    literal.append(c)
                }
            }
            switch type {
            case .integer: return (Int64(literal).map(DatabaseValue.integer) ?? .text(literal), nil)
            case .double: return (Double(literal).map(DatabaseValue.double) ?? .text(literal), nil)
            case .decimal: return (DecimalText.parse(literal).map(DatabaseValue.decimal) ?? .text(literal), nil)
            default: return (.text(literal), nil)
            }
        }
        switch type {
        case .bool where text == "0" || text == "1": return (.bool(text == "1"), nil)
        case .decimal: if let d = DecimalText.parse(text) { return (.decimal(d), nil) }
        case .double: if let d = Double(text) { return (.double(d), nil) }
        default: break
        }
        if let i = Int64(text) { return (.integer(i), nil) }
        if let d = Double(text) { return (.double(d), nil) }
        return (nil, ColumnDefault.expression(text))
    }

    /// Runs the change's DDL. Each DDL statement commits the open transaction; a transaction that was open is begun
    /// again after it, so the writes that follow (a migration step's transforms) can still be rolled back.
    public func apply(_ change: SchemaChange, live: DatabaseSchema) throws {
        let inTransaction = isInTransaction
        defer {
            // A failure here leaves the connection broken (`failure(table:)`), which the pool replaces.
            if inTransaction && !isInTransaction { _ = try? exec(dialect.beginTransaction) }
        }
        if case .dropForeignKey(let name, let column) = change {
            // The constraint's own name, which a table Strata did not create may not share.
            for r in try rows(Self.keysSQL)
            where r[0] == .text(name) && r[1] == .text(column) && Self.isFirstKeyColumn(r[6]) {
                if case .text(let constraint) = r[5] {
                    _ = try rows(SQLRenderer.dropForeignKey(constraint, table: name, dialect: dialect))
                }
            }
            return
        }
        guard let statements = try SQLRenderer.statements(for: change, dialect: dialect) else {
            throw StrataError.unsupported(feature: "\(change)", driver: "mariadb")
        }
        for sql in statements { _ = try rows(sql) }
    }

    /// Waits for any other connection's migration step on this database: a named lock, held until the step ends
    /// (``didEndMigrationStep()``), at most the lock-wait timeout.
    public func lockForMigration() throws {
        let got = try rows(
            "SELECT GET_LOCK(CONCAT('strata_migrate.', DATABASE()), ?)", [.integer(Int64(lockWaitSeconds))])
        guard got.first?.first == .integer(1) else { throw StrataError.busy }
    }

    public func didEndMigrationStep() {
        _ = try? rows("SELECT RELEASE_LOCK(CONCAT('strata_migrate.', DATABASE()))")
    }
}
