// TableSchema: a model's table, columns (in decode order) and indexes.

/// The table a model maps to. The `@Model` macro writes the columns; indexes and foreign keys come
/// from the model's `indexes` and `foreignKeys` when it is migrated.
public struct TableSchema: Sendable, Hashable {
    public var name: String
    /// Columns in the order the model's `init(row:)` reads them and `databaseValues` writes them.
    public var columns: [TableColumn] { didSet { derive() } }
    public var indexes: [Index]
    public var foreignKeys: [ForeignKey]
    /// The column names, in order (kept with the columns, so queries need not rebuild the list).
    public private(set) var columnNames: [String] = []
    /// The position of the primary key column in `columns`, if there is one.
    public private(set) var primaryKeyIndex: Int?
    /// The column names but the primary key's: what an INSERT of a new model names.
    public private(set) var insertColumnNames: [String] = []

    public init(name: String, columns: [TableColumn], indexes: [Index] = [], foreignKeys: [ForeignKey] = []) {
        self.name = name
        self.columns = columns
        self.indexes = indexes
        self.foreignKeys = foreignKeys
        derive()
    }

    private mutating func derive() {
        columnNames = columns.map(\.name)
        primaryKeyIndex = columns.firstIndex(where: \.isPrimaryKey)
        insertColumnNames = columns.filter { !$0.isPrimaryKey }.map(\.name)
    }

    /// The position of a column by name.
    public func index(of column: String) -> Int? { columns.firstIndex { $0.name == column } }
}

/// An index on one or more columns of a table.
public struct Index: Sendable, Hashable {
    public var columns: [String]
    public var isUnique: Bool
    /// The index name; by default `<table>_<columns>_idx` (or `_key` when unique), which dialects
    /// with short identifier limits shorten deterministically.
    public var name: String?

    public init(columns: [String], unique: Bool = false, name: String? = nil) {
        self.columns = columns
        self.isUnique = unique
        self.name = name
    }

    /// The name used in the database for this index on `table`.
    public func resolvedName(table: String) -> String {
        name ?? ([table] + columns + [isUnique ? "key" : "idx"]).joined(separator: "_")
    }
}
