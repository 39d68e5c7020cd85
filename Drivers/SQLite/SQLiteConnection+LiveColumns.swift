// SQLiteConnection+LiveColumns: a table's declared columns, their affinity and collation, for checked mapping.
import CSQLite
import Strata

extension SQLiteConnection {
    /// The columns `pragma_table_xinfo` lists (generated ones included), with what each column's affinity reads into correctly.
    public func liveColumns(of table: String) throws -> [LiveColumn]? {
        var found: [(name: String, type: String, notNull: Bool, pk: Bool)] = []
        let sql = "SELECT name, type, \"notnull\", pk FROM pragma_table_xinfo(?1) WHERE hidden IN (0, 2, 3)"
        _ = try run(RenderedSQL(sql: sql, binds: [.text(table)]), statement: nil) { r in
            guard case .text(let name) = r.value(at: 0) else { return }
            let type: String
            if case .text(let t) = r.value(at: 1) { type = t } else { type = "" }
            found.append((name, type, r.value(at: 2) == .integer(1), r.value(at: 3) != .integer(0)))
        }
        guard !found.isEmpty else { return nil }
        return found.map { c in
            let collation = collation(of: c.name, in: table)
            var live = LiveColumn(
                name: c.name, declaredType: c.type, isNullable: !c.notNull && !c.pk, collation: collation,
                reads: Self.reads(declaredType: c.type, collation: collation))
            live.isPrimaryKey = c.pk
            return live
        }
    }

    /// The tables of the main database, SQLite's own left out, and so are FTS5 indexes (virtual tables) and
    /// their shadow tables.
    public func liveTables() throws -> [String] {
        var names: [String] = []
        let sql =
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' "
            + "AND name IN (SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table') ORDER BY name"
        _ = try run(RenderedSQL(sql: sql, binds: []), statement: nil) { r in
            if case .text(let n) = r.value(at: 0) { names.append(n) }
        }
        return names
    }

    /// The single-column foreign keys `pragma_foreign_key_list` lists (the referenced column defaults to the key).
    public func liveForeignKeys(of table: String) throws -> [LiveForeignKey] {
        var rows: [(id: Int64, column: String, table: String, to: String?)] = []
        let sql = "SELECT id, \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?1)"
        _ = try run(RenderedSQL(sql: sql, binds: [.text(table)]), statement: nil) { r in
            guard case .integer(let id) = r.value(at: 0), case .text(let from) = r.value(at: 1),
                case .text(let target) = r.value(at: 2)
            else { return }
            var to: String?
            if case .text(let t) = r.value(at: 3) { to = t }
            rows.append((id, from, target, to))
        }
        let single = Dictionary(grouping: rows, by: \.id).values.filter { $0.count == 1 }.compactMap(\.first)
        return single.sorted { $0.id < $1.id }.map {
            LiveForeignKey(column: $0.column, referencedTable: $0.table, referencedColumn: $0.to ?? "id")
        }
    }

    /// The column's collation from `sqlite3_table_column_metadata`, or nil when the library cannot say.
    private func collation(of column: String, in table: String) -> String? {
        var type: UnsafePointer<CChar>?
        var collation: UnsafePointer<CChar>?
        var notNull: Int32 = 0
        var pk: Int32 = 0
        var autoincrement: Int32 = 0
        let rc = sqlite3_table_column_metadata(
            handle, "main", table, column, &type, &collation, &notNull, &pk, &autoincrement)
        guard rc == SQLITE_OK, let collation else { return nil }
        return String(cString: collation)
    }

    /// What a column of `declaredType` reads into, by SQLite's affinity rules (section 3.1 of its datatype page).
    static func reads(declaredType: String, collation: String?) -> Set<ColumnType> {
        let t = declaredType.uppercased()
        if t.contains("INT") { return [.integer, .bool, .double, .decimal, .date] }
        if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
            // Decimal text compares as numbers only under Strata's collation; otherwise as text.
            let decimal: Set<ColumnType> = collation == SQLiteDecimalCollation.name ? [.decimal] : []
            return Set<ColumnType>([.text, .date, .uuid, .json]).union(decimal)
        }
        if t.isEmpty { return Set(ColumnType.allCases) }
        if t.contains("BLOB") { return [.blob, .uuid] }
        if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") { return [.double, .decimal, .date] }
        let numeric: Set<ColumnType> = [.integer, .bool, .double, .decimal, .date]  // NUMERIC affinity
        // A declared type that names no number (JSON, TIME, GEOMETRY…) holds what other tools write there: text, blobs.
        let numbers = ["NUM", "DEC", "BOOL", "DATE", "MONEY"]
        return numbers.contains(where: t.contains) ? numeric : numeric.union([.text, .json, .blob])
    }
}
