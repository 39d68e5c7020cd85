// MariaDBConnection+Schema: the live schema of the current database, read from information_schema.
import Strata

extension MariaDBConnection {
    /// The columns of `table` in the current database, in order.
    public func liveColumns(of table: String) throws -> [LiveColumn]? {
        let sql = """
            SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLLATION_NAME, COLUMN_KEY FROM information_schema.COLUMNS
            WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION
            """
        let columns = try rows(sql, [.text(table)]).compactMap { r -> LiveColumn? in
            guard case .text(let name) = r[0], case .text(let type) = r[1] else { return nil }
            var collation: String?
            if case .text(let c) = r[3] { collation = c }
            var live = LiveColumn(
                name: name, declaredType: type, isNullable: r[2] == .text("YES"), collation: collation,
                reads: Self.reads(declaredType: type))
            live.isPrimaryKey = r[4] == .text("PRI")
            return live
        }
        return columns.isEmpty ? nil : columns
    }

    /// The base tables of the current database.
    public func liveTables() throws -> [String] {
        let sql = """
            SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() \
            AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME
            """
        return try rows(sql, []).compactMap { if case .text(let n) = $0[0] { return n } else { return nil } }
    }

    /// The single-column foreign keys of `table` in the current database.
    public func liveForeignKeys(of table: String) throws -> [LiveForeignKey] {
        let sql = """
            SELECT k.COLUMN_NAME, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME
            FROM information_schema.KEY_COLUMN_USAGE k
            WHERE k.TABLE_SCHEMA = DATABASE() AND k.TABLE_NAME = ? AND k.REFERENCED_TABLE_NAME IS NOT NULL
            AND (SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE o WHERE o.TABLE_SCHEMA = k.TABLE_SCHEMA
                 AND o.TABLE_NAME = k.TABLE_NAME AND o.CONSTRAINT_NAME = k.CONSTRAINT_NAME) = 1
            ORDER BY k.CONSTRAINT_NAME
            """
        return try rows(sql, [.text(table)]).compactMap { r in
            guard case .text(let c) = r[0], case .text(let t) = r[1], case .text(let to) = r[2] else { return nil }
            return LiveForeignKey(column: c, referencedTable: t, referencedColumn: to)
        }
    }

    /// The columns of index `index` on `table`, in key order (for a unique violation's typed error).
    func indexColumns(table: String, index: String) throws -> [String] {
        let sql = """
            SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()
            AND TABLE_NAME = ? AND INDEX_NAME = ? ORDER BY SEQ_IN_INDEX
            """
        // The key may come qualified (`t.k`) from MariaDB 10.5 on.
        let name = index.split(separator: ".").last.map(String.init) ?? index
        return try rows(sql, [.text(table), .text(name)]).compactMap {
            if case .text(let n) = $0[0] { return n } else { return nil }
        }
    }

    /// What a column of the MariaDB type `declaredType` (as `COLUMN_TYPE` spells it) reads into.
    static func reads(declaredType: String) -> Set<ColumnType> {
        let t = declaredType.lowercased()
        if t.hasPrefix("tinyint(1)") { return [.bool, .integer] }
        if t.hasPrefix("bigint") || t.hasPrefix("int") || t.hasPrefix("smallint") || t.hasPrefix("mediumint")
            || t.hasPrefix("tinyint")
        {
            return [.integer, .double, .decimal, .date]
        }
        if t.hasPrefix("decimal") { return [.decimal, .double] }
        if t.hasPrefix("double") || t.hasPrefix("float") { return [.double, .decimal, .date] }
        if t.hasPrefix("datetime") || t.hasPrefix("timestamp") || t == "date" { return [.date] }
        if t.hasSuffix("blob") || t.hasPrefix("varbinary") || t.hasPrefix("binary") { return [.blob, .uuid] }
        if t.hasPrefix("char(36)") { return [.uuid, .text] }
        // Text compares as text ('2.98' >= '10'): no number type reads from it, so a Decimal, Int64 or Double
        // property over it is refused up front, and a query comparing it as a number before it runs.
        if t.hasSuffix("text") || t.hasPrefix("varchar") || t.hasPrefix("char") { return [.text, .date, .uuid, .json] }
        return [.text]
    }
}
