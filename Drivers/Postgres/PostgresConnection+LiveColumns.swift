// PostgresConnection+LiveColumns: a table's declared columns, types and collations, for checked mapping.
import Strata

extension PostgresConnection {
    /// The columns of `table` in the current schema, from `pg_attribute`, with their collation (the database's
    /// own `datcollate` where the column uses the default).
    public func liveColumns(of table: String) throws -> [LiveColumn]? {
        let sql = """
            SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
                   CASE WHEN co.collname = 'default' THEN (SELECT datcollate::text FROM pg_database
                        WHERE datname = current_database()) ELSE co.collname::text END,
                   EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary
                           AND a.attnum = ANY (i.indkey))
            FROM pg_attribute a JOIN pg_class cl ON cl.oid = a.attrelid
            JOIN pg_namespace n ON n.oid = cl.relnamespace AND n.nspname = current_schema()
            LEFT JOIN pg_collation co ON co.oid = a.attcollation
            WHERE cl.relname = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
            """
        var columns: [LiveColumn] = []
        _ = try run(RenderedSQL(sql: sql, binds: [.text(table)]), statement: nil) { r in
            guard case .text(let name) = r.value(at: 0), case .text(let type) = r.value(at: 1) else { return }
            var collation: String?
            if case .text(let c) = r.value(at: 3) { collation = c }
            var live = LiveColumn(
                name: name, declaredType: type, isNullable: r.value(at: 2) == .bool(true), collation: collation,
                reads: Self.reads(declaredType: type))
            live.isPrimaryKey = r.value(at: 4) == .bool(true)
            columns.append(live)
        }
        return columns.isEmpty ? nil : columns
    }

    /// The ordinary tables of the current schema.
    public func liveTables() throws -> [String] {
        var names: [String] = []
        let sql = "SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
        _ = try run(RenderedSQL(sql: sql, binds: []), statement: nil) { r in
            if case .text(let n) = r.value(at: 0) { names.append(n) }
        }
        return names
    }

    /// The single-column foreign keys of `table` in the current schema.
    public func liveForeignKeys(of table: String) throws -> [LiveForeignKey] {
        let sql = """
            SELECT a.attname::text, t.relname::text, ra.attname::text
            FROM pg_constraint c JOIN pg_class cl ON cl.oid = c.conrelid
            JOIN pg_namespace n ON n.oid = cl.relnamespace AND n.nspname = current_schema()
            JOIN pg_class t ON t.oid = c.confrelid
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
            JOIN pg_attribute ra ON ra.attrelid = c.confrelid AND ra.attnum = c.confkey[1]
            WHERE c.contype = 'f' AND cl.relname = $1 AND array_length(c.conkey, 1) = 1 ORDER BY c.conname
            """
        var keys: [LiveForeignKey] = []
        _ = try run(RenderedSQL(sql: sql, binds: [.text(table)]), statement: nil) { r in
            guard case .text(let column) = r.value(at: 0), case .text(let target) = r.value(at: 1),
                case .text(let to) = r.value(at: 2)
            else { return }
            keys.append(LiveForeignKey(column: column, referencedTable: target, referencedColumn: to))
        }
        return keys
    }

    /// What a column of the PostgreSQL type `declaredType` (as `format_type` spells it) reads into.
    static func reads(declaredType: String) -> Set<ColumnType> {
        let t = declaredType.lowercased()
        if ["bigint", "integer", "smallint"].contains(t) { return [.integer, .double, .decimal, .date] }
        if t.hasPrefix("numeric") { return [.decimal, .double] }
        if t == "double precision" || t == "real" { return [.double, .decimal, .date] }
        if t == "text" || t.hasPrefix("character") || t == "citext" || t == "name" { return [.text] }
        if t == "boolean" { return [.bool] }
        if t.hasPrefix("timestamp") || t == "date" { return [.date] }
        if t == "uuid" { return [.uuid] }
        if t == "json" || t == "jsonb" { return [.json] }
        if t == "bytea" { return [.blob] }
        // Every other type (time, interval, inet, arrays…) comes back as its text output.
        return [.text]
    }
}
