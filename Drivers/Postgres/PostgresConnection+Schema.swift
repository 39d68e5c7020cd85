// PostgresConnection+Schema: introspection through pg_catalog, running the core's DDL, the migration lock.
import Foundation
import Strata

extension PostgresConnection: SchemaEditing {
    /// Runs SQL with `$n` binds and returns its rows.
    func rows(_ sql: String, _ binds: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        var out: [[DatabaseValue]] = []
        _ = try run(RenderedSQL(sql: sql, binds: binds), statement: nil) { r in
            out.append((0..<r.columnCount).map { r.value(at: $0) })
        }
        return out
    }

    private static let columnsSQL = """
        SELECT c.relname::text, a.attname::text, format_type(a.atttypid, a.atttypmod)::text, a.attnotnull,
               pg_get_expr(d.adbin, d.adrelid)::text,
               EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary AND a.attnum = ANY(i.indkey)),
               a.attgenerated = 's'
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
        WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
        ORDER BY c.relname, a.attnum
        """

    private static let indexesSQL = """
        SELECT t.relname::text, ic.relname::text, i.indisunique, a.attname::text, (k.opt & 2) <> 0
        FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
        JOIN pg_namespace n ON n.oid = t.relnamespace
        CROSS JOIN LATERAL unnest(i.indkey::int2[], i.indoption::int2[]) WITH ORDINALITY AS k(attnum, opt, ord)
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE n.nspname = current_schema() AND NOT i.indisprimary
        ORDER BY t.relname, ic.relname, k.ord
        """

    private static let keysSQL = """
        SELECT t.relname::text, a.attname::text, p.relname::text, pa.attname::text, con.confdeltype::text,
               con.conname::text, k.i::int8
        FROM pg_constraint con JOIN pg_class t ON t.oid = con.conrelid JOIN pg_class p ON p.oid = con.confrelid
        JOIN pg_namespace n ON n.oid = t.relnamespace
        CROSS JOIN LATERAL generate_subscripts(con.conkey, 1) AS k(i)
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = con.conkey[k.i]
        JOIN pg_attribute pa ON pa.attrelid = p.oid AND pa.attnum = con.confkey[k.i]
        WHERE con.contype = 'f' AND n.nspname = current_schema()
        ORDER BY t.relname, con.conname, k.i
        """

    public func introspect() throws -> DatabaseSchema {
        var order: [String] = []
        var columns: [String: [TableColumn]] = [:]
        for r in try rows(Self.columnsSQL) {
            guard case .text(let table) = r[0], case .text(let name) = r[1], case .text(let declared) = r[2] else {
                continue
            }
            if columns[table] == nil { order.append(table) }
            let type = Self.columnType(declared)
            var parsed: (value: DatabaseValue?, expression: String?) = (nil, nil)
            // A generated column's expression is kept where a default is (pg_attrdef): it is no default.
            let generated = r[6] == .bool(true)
            if !generated, case .text(let d) = r[4] { parsed = Self.parseDefault(d, type: type) }
            var described = TableColumn(
                name: name, type: type, isNullable: r[3] != .bool(true), isPrimaryKey: r[5] == .bool(true),
                schemaDefault: parsed.value)
            described.defaultExpression = parsed.expression
            described.isGenerated = generated
            columns[table, default: []].append(described)
        }
        var indexes: [String: [Index]] = [:]
        for r in try rows(Self.indexesSQL) {
            guard case .text(let table) = r[0], case .text(let name) = r[1], case .text(let column) = r[3] else {
                continue
            }
            let nullsFirst: Set<String> = r[4] == .bool(true) ? [column] : []
            if let i = indexes[table]?.lastIndex(where: { $0.name == name }) {
                indexes[table]?[i].columns.append(column)
                indexes[table]?[i].nullsFirstColumns?.formUnion(nullsFirst)
            } else {
                var index = Index(columns: [column], unique: r[2] == .bool(true), name: name)
                index.nullsFirstColumns = nullsFirst
                indexes[table, default: []].append(index)
            }
        }
        var keys: [String: [ForeignKey]] = [:]
        var lastConstraint: (table: String, name: DatabaseValue)?
        for r in try rows(Self.keysSQL) {
            guard case .text(let table) = r[0], case .text(let column) = r[1], case .text(let parent) = r[2],
                case .text(let referenced) = r[3]
            else { continue }
            // A key of several columns is one constraint with a row per column, in order.
            if let last = lastConstraint, last.table == table, last.name == r[5], let n = keys[table]?.indices.last {
                keys[table]?[n].columns.append(column)
                keys[table]?[n].referencedColumns.append(referenced)
                continue
            }
            lastConstraint = (table, r[5])
            let actions: [String: ForeignKey.Action] = ["r": .restrict, "c": .cascade, "n": .setNull]
            var action = ForeignKey.Action.noAction
            if case .text(let a) = r[4] { action = actions[a] ?? .noAction }
            keys[table, default: []].append(
                ForeignKey(column: column, references: parent, column: referenced, onDelete: action))
        }
        return DatabaseSchema(
            tables: order.map {
                TableSchema(
                    name: $0, columns: columns[$0] ?? [], indexes: indexes[$0] ?? [], foreignKeys: keys[$0] ?? [])
            })
    }

    /// The Strata type of a type `format_type` names.
    static func columnType(_ declared: String) -> ColumnType {
        switch declared {
        case "bigint", "integer", "smallint": return .integer
        case "double precision", "real": return .double
        case "bytea": return .blob
        case "boolean": return .bool
        case "uuid": return .uuid
        case "jsonb", "json": return .json
        default:
            if declared.hasPrefix("timestamp") || declared == "date" { return .date }
            if declared.hasPrefix("numeric") { return .decimal }
            return .text
        }
    }

    /// A DEFAULT as `pg_get_expr` shows it: a constant (`'text'::text`, `'-1'::integer`, `42`, `1.50`, `true`),
    /// or an expression the database computes (`now()`, `CURRENT_TIMESTAMP`, `nextval('…'::regclass)`), spelled
    /// by ``ColumnDefault/expression(_:)``.
    static func parseDefault(_ text: String, type: ColumnType) -> (value: DatabaseValue?, expression: String?) {
        var s = Substring(text)
        while s.hasPrefix("(") && s.hasSuffix(")") { s = s.dropFirst().dropLast() }
        if s.hasPrefix("'"), let end = s.dropFirst().lastIndex(of: "'") {
            let rest = s[s.index(after: end)...]
            let inner = String(s[s.index(after: s.startIndex)..<end])
            guard rest.isEmpty || rest.hasPrefix("::"), !inner.replacingOccurrences(of: "''", with: "").contains("'")
            else { return (nil, ColumnDefault.expression(text)) }
            let literal = inner.replacingOccurrences(of: "''", with: "'")
            switch type {
            case .integer: return (Int64(literal).map(DatabaseValue.integer) ?? .text(literal), nil)
            case .double: return (Double(literal).map(DatabaseValue.double) ?? .text(literal), nil)
            default: return (.text(literal), nil)
            }
        }
        if let cast = s.range(of: "::") { s = s[..<cast.lowerBound] }
        switch s {
        case "NULL": return (nil, nil)
        case "true": return (.bool(true), nil)
        case "false": return (.bool(false), nil)
        default: break
        }
        if type == .decimal, Double(s) != nil, let d = Decimal(string: String(s)) { return (.decimal(d), nil) }
        if type == .double, let d = Double(s) { return (.double(d), nil) }
        if let i = Int64(s) { return (.integer(i), nil) }
        if let d = Double(s) { return (.double(d), nil) }
        return (nil, ColumnDefault.expression(text))
    }

    public func apply(_ change: SchemaChange, live: DatabaseSchema) throws {
        var change = change
        switch change {
        case .addIndex(let name, var index) where index.nullsFirstColumns == nil:
            // Unless read from the database: NULLS FIRST on the columns that can hold NULL, as migration creates them.
            let nullable = Set(try liveColumns(of: name)?.filter(\.isNullable).map(\.name) ?? [])
            index.nullsFirstColumns = Set(index.columns.filter(nullable.contains))
            change = .addIndex(table: name, index)
        case .dropForeignKey(let name, let column):
            // The constraint's own name, which a table Strata did not create may not share.
            for r in try rows(Self.keysSQL) where r[0] == .text(name) && r[1] == .text(column) && r[6] == .integer(1) {
                if case .text(let constraint) = r[5] {
                    _ = try rows(SQLRenderer.dropConstraint(constraint, table: name, dialect: dialect))
                }
            }
            return
        default: break
        }
        guard let statements = try SQLRenderer.statements(for: change, dialect: dialect) else {
            throw StrataError.unsupported(feature: "\(change)", driver: "postgres")
        }
        for sql in statements { _ = try rows(sql) }
    }

    /// The table's constraints (but NOT NULL ones), indexes and triggers (but internal ones), each with its
    /// definition as the catalog prints it, so one re-created differently (a partial index made plain) counts too.
    public func schemaObjects(of table: String) throws -> Set<String> {
        let sql = """
            SELECT 'constraint ' || conname || ': ' || pg_get_constraintdef(oid) FROM pg_constraint
              WHERE conrelid = $1::text::regclass AND contype <> 'n'
            UNION ALL SELECT 'index ' || c.relname || ': ' || pg_get_indexdef(i.indexrelid)
              FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = $1::text::regclass
            UNION ALL SELECT 'trigger ' || tgname || ': ' || pg_get_triggerdef(oid) FROM pg_trigger
              WHERE tgrelid = $1::text::regclass AND NOT tgisinternal
            """
        var out = Set<String>()
        for r in try rows(sql, [.text(try dialect.quote(table))]) {
            if case .text(let name) = r[0] { out.insert(name) }
        }
        return out
    }

    /// Waits for any other connection's migration step to commit: a lock held until this transaction ends. The
    /// transaction first turns READ COMMITTED, before any statement takes a snapshot, so that once the lock is
    /// granted the step sees what the step that held it committed, whatever `default_transaction_isolation` the
    /// server, the role or the URL sets (under REPEATABLE READ or SERIALIZABLE the snapshot would be the lock
    /// statement's own, taken before the wait, and the step would run again). On an engine without advisory locks
    /// (CockroachDB) the step holds the lease ``willBeginMigrationStep()`` took before the transaction began instead.
    public func lockForMigration() throws {
        _ = try rows("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
        guard engine.hasAdvisoryLocks else { return }
        _ = try rows("SELECT pg_advisory_xact_lock(7304939516071110000)")
    }
}
