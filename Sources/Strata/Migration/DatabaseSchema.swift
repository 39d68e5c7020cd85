// DatabaseSchema: the live schema of a database as one value, read the same way from every driver.

/// Every table of a database with its columns, primary key, indexes and foreign keys, as the driver reports
/// them (``Transaction/introspect()``).
///
/// Each table is a ``TableSchema``: columns in their stored order with type, nullability and constant default,
/// the primary key flagged on its column, indexes with their names, and foreign keys with their `ON DELETE`
/// action. Types are what the backend can tell apart: SQLite stores text, dates, UUIDs and JSON all as `TEXT`,
/// so its introspection reports them as ``ColumnType/text``.
public struct DatabaseSchema: Sendable, Hashable {
    /// The tables, sorted by name.
    public var tables: [TableSchema]

    /// A schema of these tables (sorted by name).
    public init(tables: [TableSchema]) {
        self.tables = tables.sorted { $0.name < $1.name }
    }

    /// The table named `name`, if it exists.
    public subscript(table name: String) -> TableSchema? { tables.first { $0.name == name } }

    /// The table names, sorted.
    public var tableNames: [String] { tables.map(\.name) }

    /// Every foreign key of another table that references `table`, with the referencing table's name.
    public func references(to table: String) -> [(table: String, key: ForeignKey)] {
        tables.flatMap { t in t.foreignKeys.filter { $0.referencedTable == table }.map { (t.name, $0) } }
    }
}

extension TableSchema {
    /// The column named `name`, if any.
    public func column(named name: String) -> TableColumn? { columns.first { $0.name == name } }
}
