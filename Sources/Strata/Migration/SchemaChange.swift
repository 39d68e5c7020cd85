// SchemaChange: one operation on a database's schema, as a plain value a migration step lists.
import Foundation

/// One change to a database's schema. A migration step lists them; ``Transaction/apply(_:)`` runs one,
/// checked against the live schema first, on every driver (SQLite rebuilds a table for what it cannot `ALTER`).
public enum SchemaChange: Sendable, Hashable {
    /// Creates a table with its indexes and foreign keys.
    case createTable(TableSchema)
    /// Drops a table and its rows.
    case dropTable(String)
    /// Renames a table; foreign keys that reference it follow.
    case renameTable(String, to: String)
    /// Adds a column; existing rows get its ``TableColumn/backfill`` (or NULL).
    case addColumn(table: String, TableColumn)
    /// Drops a column, with the indexes and the foreign key that use it.
    case dropColumn(table: String, column: String)
    /// Renames a column; indexes and foreign keys follow.
    case renameColumn(table: String, column: String, to: String)
    /// Changes a column's type and nullability. Existing values are converted (see ``ValueConversion``); NULLs
    /// become `fill` when the column turns NOT NULL.
    case alterColumn(table: String, column: String, type: ColumnType, nullable: Bool, fill: DatabaseValue?)
    /// Creates an index.
    case addIndex(table: String, Index)
    /// Drops the index named `name` of a table.
    case dropIndex(table: String, name: String)
    /// Adds a foreign key to a table; existing rows must satisfy it.
    case addForeignKey(table: String, ForeignKey)
    /// Drops the foreign key on a column.
    case dropForeignKey(table: String, column: String)
    /// Sets a column's constant `DEFAULT` (nil drops it); existing rows keep their values.
    case setDefault(table: String, column: String, to: DatabaseValue?)
    /// Sets a column's computed default (see ``DatabaseDefault``; nil drops it); existing rows keep their values.
    case setDatabaseDefault(table: String, column: String, to: DatabaseDefault?)

    /// The table the change applies to.
    public var table: String {
        switch self {
        case .createTable(let t): return t.name
        case .dropTable(let t), .renameTable(let t, _): return t
        case .addColumn(let t, _), .dropColumn(let t, _), .renameColumn(let t, _, _), .alterColumn(let t, _, _, _, _),
            .addIndex(let t, _), .dropIndex(let t, _), .addForeignKey(let t, _), .dropForeignKey(let t, _),
            .setDefault(let t, _, _), .setDatabaseDefault(let t, _, _):
            return t
        }
    }
}

extension SchemaChange: CustomStringConvertible {
    /// One line a person can read; also what a step's checksum is computed from, so it is stable.
    public var description: String {
        switch self {
        case .createTable(let t):
            var parts = t.columns.map { Self.describe($0, fill: false) }  // a fill only matters when adding
            parts += t.foreignKeys.map(Self.describe)
            var s = "create table \(t.name) (" + parts.joined(separator: ", ") + ")"
            for i in t.indexes { s += "; " + Self.describe(i, table: t.name) }
            return s
        case .dropTable(let t): return "drop table \(t)"
        case .renameTable(let t, let to): return "rename table \(t) to \(to)"
        case .addColumn(let t, let c): return "add column \(t).\(Self.describe(c))"
        case .dropColumn(let t, let c): return "drop column \(t).\(c)"
        case .renameColumn(let t, let c, let to): return "rename column \(t).\(c) to \(to)"
        case .alterColumn(let t, let c, let type, let nullable, let fill):
            return "alter column \(t).\(c) to \(type.rawValue)\(nullable ? "" : " not null")"
                + (fill.map { " (fill NULLs with \(Self.literal($0)))" } ?? "")
        case .addIndex(let t, let i): return Self.describe(i, table: t)
        case .dropIndex(let t, let n): return "drop index \(n) on \(t)"
        case .addForeignKey(let t, let k): return "add \(Self.describe(k)) to \(t)"
        case .dropForeignKey(let t, let c): return "drop foreign key \(t).\(c)"
        case .setDefault(let t, let c, let value):
            return value.map { "set default of \(t).\(c) to \(Self.literal($0))" } ?? "drop default of \(t).\(c)"
        case .setDatabaseDefault(let t, let c, let value):
            return value.map { "set default of \(t).\(c) to \($0.expressionName)" } ?? "drop default of \(t).\(c)"
        }
    }

    /// A column; its fill (which may be evaluated anew each run, as `Date()` is) only when `fill`.
    static func describe(_ c: TableColumn, fill: Bool = true) -> String {
        var s = "\(c.name) \(c.type.rawValue)"
        if c.isPrimaryKey { return s + " primary key" }
        if !c.isNullable { s += " not null" }
        if let d = c.schemaDefault { s += " default \(literal(d))" }
        if fill, let b = c.backfill, b != c.schemaDefault { s += " fill \(literal(b))" }
        return s
    }

    /// A value as it reads in a plan: `0`, `1.5`, `true`, `'text'` (quotes doubled), `NULL`.
    static func literal(_ v: DatabaseValue) -> String {
        switch v {
        case .null: return "NULL"
        case .bool(let b): return "\(b)"
        case .integer(let i): return "\(i)"
        case .double(let d): return "\(d)"
        case .text(let t), .json(let t): return "'" + t.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let b): return "x'" + b.map { String(format: "%02x", $0) }.joined() + "'"
        case .date(let d): return "'\(DateText.format(d))'"
        case .decimal(let d): return "\(d)"
        case .uuid(let u): return "'\(u.uuidString.lowercased())'"
        }
    }

    static func describe(_ k: ForeignKey) -> String {
        guard k.isComposite else {
            return
                "foreign key \(k.column) references \(k.referencedTable)(\(k.referencedColumn)) on delete \(k.onDelete.rawValue)"
        }
        return "foreign key (\(k.columns.joined(separator: ", "))) references \(k.referencedTable)("
            + "\(k.referencedColumns.joined(separator: ", "))) on delete \(k.onDelete.rawValue)"
    }

    static func describe(_ i: Index, table: String) -> String {
        "add \(i.isUnique ? "unique " : "")index \(i.resolvedName(table: table)) on \(table)("
            + i.columns.joined(separator: ", ") + ")"
    }
}
