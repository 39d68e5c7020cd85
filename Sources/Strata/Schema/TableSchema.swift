// TableSchema: a model's table, columns (in decode order) and indexes.

/// The table a model maps to. The `@Model` macro writes the columns; indexes and foreign keys come
/// from the model's `indexes` and `foreignKeys` when it is migrated.
public struct TableSchema: Sendable, Hashable {
    /// The schema's parts and what is derived from them, shared by every copy: reading a model's
    /// `schema` on a hot path costs one retain, not one per array.
    @usableFromInline
    final class Storage: Sendable {
        @usableFromInline let name: String
        @usableFromInline let columns: [TableColumn]
        @usableFromInline let indexes: [Index]
        @usableFromInline let foreignKeys: [ForeignKey]
        @usableFromInline let columnNames: [String]
        @usableFromInline let primaryKeyIndex: Int?
        @usableFromInline let insertColumnNames: [String]
        /// Whether any column has a ``ColumnRole`` (so `save` has something to fill in).
        @usableFromInline let hasRoles: Bool

        @usableFromInline
        init(name: String, columns: [TableColumn], indexes: [Index], foreignKeys: [ForeignKey]) {
            self.name = name
            self.columns = columns
            self.indexes = indexes
            self.foreignKeys = foreignKeys
            columnNames = columns.map(\.name)
            primaryKeyIndex = columns.firstIndex(where: \.isPrimaryKey)
            insertColumnNames = columns.filter { !$0.isPrimaryKey }.map(\.name)
            hasRoles = columns.contains { $0.role != nil }
        }
    }

    @usableFromInline var storage: Storage

    public init(name: String, columns: [TableColumn], indexes: [Index] = [], foreignKeys: [ForeignKey] = []) {
        storage = Storage(name: name, columns: columns, indexes: indexes, foreignKeys: foreignKeys)
    }

    @inlinable public var name: String {
        get { storage.name }
        set { storage = Storage(name: newValue, columns: columns, indexes: indexes, foreignKeys: foreignKeys) }
    }

    /// Columns in the order the model's `init(row:)` reads them and `databaseValues` writes them.
    @inlinable public var columns: [TableColumn] {
        get { storage.columns }
        set { storage = Storage(name: name, columns: newValue, indexes: indexes, foreignKeys: foreignKeys) }
    }

    @inlinable public var indexes: [Index] {
        get { storage.indexes }
        set { storage = Storage(name: name, columns: columns, indexes: newValue, foreignKeys: foreignKeys) }
    }

    @inlinable public var foreignKeys: [ForeignKey] {
        get { storage.foreignKeys }
        set { storage = Storage(name: name, columns: columns, indexes: indexes, foreignKeys: newValue) }
    }

    /// The column names, in order (kept with the columns, so queries need not rebuild the list).
    @inlinable public var columnNames: [String] { storage.columnNames }
    /// The position of the primary key column in `columns`, if there is one.
    @inlinable public var primaryKeyIndex: Int? { storage.primaryKeyIndex }
    /// The column names but the primary key's: what an INSERT of a new model names.
    @inlinable public var insertColumnNames: [String] { storage.insertColumnNames }

    /// Whether a column has a ``ColumnRole``: timestamps or a version that `save` fills in.
    @inlinable public var hasColumnRoles: Bool { storage.hasRoles }
    /// The column with this role, if any.
    public func column(withRole role: ColumnRole) -> (index: Int, name: String)? {
        columns.firstIndex { $0.role == role }.map { ($0, columns[$0].name) }
    }

    /// The position of a column by name.
    public func index(of column: String) -> Int? { columns.firstIndex { $0.name == column } }

    public static func == (lhs: TableSchema, rhs: TableSchema) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.name == rhs.name && lhs.columns == rhs.columns && lhs.indexes == rhs.indexes
                && lhs.foreignKeys == rhs.foreignKeys)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(columns)
        hasher.combine(indexes)
        hasher.combine(foreignKeys)
    }
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
