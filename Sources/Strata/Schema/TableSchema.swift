// TableSchema: a model's table, columns (in decode order) and indexes.
import Synchronization

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
        /// The positions of the key columns, in column order: one for a single-column key, two or more for a
        /// composite key (then ``primaryKeyIndex`` is nil).
        @usableFromInline let primaryKeyIndexes: [Int]
        @usableFromInline let insertColumnNames: [String]
        /// Every column name but the generated columns'.
        @usableFromInline let writtenColumnNames: [String]
        /// The positions of the generated columns.
        @usableFromInline let generatedColumns: [Int]
        /// The columns with a database default, by name (see ``DatabaseDefault``).
        @usableFromInline let databaseDefaults: [String: DatabaseDefault]
        /// The positions of the columns an insert's row reads back: the generated ones and those with a database
        /// default.
        @usableFromInline let readBackColumns: [Int]
        /// Whether any column has a ``ColumnRole`` (so `save` has something to fill in).
        @usableFromInline let hasRoles: Bool
        /// The indexes of the `@Encrypted` columns (see ``TableColumn/encryption``).
        @usableFromInline let encryptedColumns: [Int]
        /// Whether any column is encrypted (so writes seal values and reads open them).
        @usableFromInline let hasEncryptedColumns: Bool
        /// The encrypted columns' identities for the model that last asked (see `TableSchema.sealedColumns(of:)`).
        let sealedColumns = Mutex<SealedColumns?>(nil)
        /// Key paths found equal (`==`) to a column's without being the same instance, with the column's position
        /// (see `TableSchema.index(of:)`).
        let keyPathAliases = Mutex<KeyPathAliases>(KeyPathAliases())
        /// ``columnNames`` and then a recursive walk's default depth column (`Recursion/defaultDepthColumn`): the
        /// selection of `allWithDepth()`, made once.
        let columnNamesAndDepth: [String]
        /// The names of ``readBackColumns``, in that order: the columns an insert's read-back SELECT lists.
        let readBackColumnNames: [String]
        /// For each column, its position in the read-back SELECT's row, or -1.
        @usableFromInline let readBackLayout: [Int]
        /// Whether the read-back columns decode by their types alone (no date format, no encryption, a key path
        /// or a setter to set), so an insert reads them back by a template SELECT of those columns.
        @usableFromInline let readsBackByTemplate: Bool
        /// The setters of ``readBackColumns``, in that order, when every one of them has one (see
        /// ``TableColumn/readBack(_:)``) and all set the same model; else empty, and the values are set through the
        /// columns' key paths.
        @usableFromInline let readBackSetters: [AnyColumnSetter]
        /// Whether the read-back can fail on the values it reads (see ``ReadBackTotality``): a save inside a caller's
        /// transaction whose read-back cannot takes no savepoint.
        @usableFromInline let readBackTotality: ReadBackTotality
        /// Whether a save of the model changes nothing of it but its key and persistence state: a key of one column,
        /// no ``ColumnRole`` to fill in, no column read back (see ``Model/save(_:insertIfMissing:)``).
        @usableFromInline let saveChangesKeyAndStateOnly: Bool

        @usableFromInline
        init(name: String, columns given: [TableColumn], indexes: [Index], foreignKeys: [ForeignKey]) {
            self.name = name
            let keys = given.indices.filter { given[$0].isPrimaryKey }
            var columns = given
            // The columns of a composite key are NOT NULL: none of them is assigned by the database.
            if keys.count > 1 { for k in keys { columns[k].isNullable = false } }
            self.columns = columns
            primaryKeyIndexes = keys
            self.indexes = indexes.map { index in
                guard index.nullsFirstColumns == nil else { return index }  // read from the database as it is
                var index = index
                index.nullsFirstColumns = Set(
                    index.columns.filter { c in
                        columns.first { $0.name == c }.map { $0.isNullable && !$0.isPrimaryKey } ?? false
                    })
                return index
            }
            self.foreignKeys = foreignKeys
            columnNames = columns.map(\.name)
            columnNamesAndDepth = columnNames + [Recursion.defaultDepthColumn]
            let readBack = columns.indices.filter { columns[$0].isGenerated || columns[$0].databaseDefault != nil }
            readBackColumnNames = readBack.map { columns[$0].name }
            readBackLayout = columns.indices.map { readBack.firstIndex(of: $0) ?? -1 }
            readsBackByTemplate = readBack.allSatisfy {
                columns[$0].dateFormat == nil && columns[$0].encryption == nil
                    && (columns[$0].setter != nil
                        || (columns[$0].property.keyPath != nil && columns[$0].property.valueType != nil))
            }
            readBackTotality = ReadBackTotality.of(readBack, in: columns, byTemplate: readsBackByTemplate)
            let setters = readBack.compactMap { columns[$0].setter }
            readBackSetters =
                setters.count == readBack.count && setters.allSatisfy({ $0.model == setters.first?.model })
                ? setters : []
            primaryKeyIndex = keys.count == 1 ? keys[0] : nil
            insertColumnNames = columns.filter { !$0.isPrimaryKey && !$0.isGenerated }.map(\.name)
            writtenColumnNames = columns.filter { !$0.isGenerated }.map(\.name)
            generatedColumns = columns.indices.filter { columns[$0].isGenerated }
            var defaults: [String: DatabaseDefault] = [:]
            for c in columns { if let d = c.databaseDefault { defaults[c.name] = d } }
            databaseDefaults = defaults
            readBackColumns = columns.indices.filter { columns[$0].isGenerated || columns[$0].databaseDefault != nil }
            hasRoles = columns.contains { $0.role != nil }
            saveChangesKeyAndStateOnly = keys.count == 1 && !hasRoles && readBack.isEmpty
            encryptedColumns = columns.indices.filter { columns[$0].encryption != nil }
            hasEncryptedColumns = !encryptedColumns.isEmpty
        }
    }

    @usableFromInline var storage: Storage

    /// A table with its columns, indexes and foreign keys.
    ///
    /// - Parameters:
    ///   - name: the table's name, exactly as stored (always quoted in SQL).
    ///   - columns: the columns in the order the model decodes and encodes them.
    ///   - indexes: the indexes a migration creates.
    ///   - foreignKeys: the foreign keys a migration declares.
    public init(name: String, columns: [TableColumn], indexes: [Index] = [], foreignKeys: [ForeignKey] = []) {
        storage = Storage(name: name, columns: columns, indexes: indexes, foreignKeys: foreignKeys)
    }

    /// The table's name, exactly as stored (always quoted in SQL).
    @inlinable public var name: String {
        get { storage.name }
        set { storage = Storage(name: newValue, columns: columns, indexes: indexes, foreignKeys: foreignKeys) }
    }

    /// Columns in the order the model's `init(row:)` reads them and `databaseValues` writes them.
    @inlinable public var columns: [TableColumn] {
        get { storage.columns }
        set { storage = Storage(name: name, columns: newValue, indexes: indexes, foreignKeys: foreignKeys) }
    }

    /// The indexes a migration creates on the table (the model's `indexes`).
    @inlinable public var indexes: [Index] {
        get { storage.indexes }
        set { storage = Storage(name: name, columns: columns, indexes: newValue, foreignKeys: foreignKeys) }
    }

    /// The foreign keys a migration declares on the table (the model's `foreignKeys` and belongs-to associations).
    @inlinable public var foreignKeys: [ForeignKey] {
        get { storage.foreignKeys }
        set { storage = Storage(name: name, columns: columns, indexes: indexes, foreignKeys: newValue) }
    }

    /// The column names, in order (kept with the columns, so queries need not rebuild the list).
    @inlinable public var columnNames: [String] { storage.columnNames }
    /// The position of the primary key column in `columns`, if there is one; nil for a composite key.
    @inlinable public var primaryKeyIndex: Int? { storage.primaryKeyIndex }
    /// The positions of the primary key's columns in `columns`, in column order: one for a single-column key,
    /// two or more for a composite key (see ``CompositeKey``), none for a table without a key.
    @inlinable public var primaryKeyIndexes: [Int] { storage.primaryKeyIndexes }
    /// Whether the primary key has more than one column (see ``CompositeKey``).
    @inlinable public var hasCompositeKey: Bool { storage.primaryKeyIndexes.count > 1 }
    /// The names of the primary key's columns, in column order.
    public var primaryKeyColumnNames: [String] { storage.primaryKeyIndexes.map { storage.columns[$0].name } }
    /// The column names but the primary key's and the generated columns': what an INSERT of a new model names.
    @inlinable public var insertColumnNames: [String] { storage.insertColumnNames }

    /// Whether a column has a ``ColumnRole``: timestamps or a version that `save` fills in.
    @inlinable public var hasColumnRoles: Bool { storage.hasRoles }
    /// The column with this role, if any.
    public func column(withRole role: ColumnRole) -> (index: Int, name: String)? {
        guard storage.hasRoles else { return nil }  // asked by every query, of models that mostly have none
        return columns.firstIndex { $0.role == role }.map { ($0, columns[$0].name) }
    }

    /// The position of a column by name.
    public func index(of column: String) -> Int? { columns.firstIndex { $0.name == column } }

    /// The position of the column made from `keyPath` (see ``TableColumn/keyPath``), if any.
    ///
    /// A scan, not a dictionary: hashing a key path costs more than comparing a model's few, and `==` on key paths
    /// of different value types only compares their types.
    public func index(of keyPath: AnyKeyPath) -> Int? {
        let columns = storage.columns
        for i in columns.indices where columns[i].property.keyPath === keyPath { return i }
        // A literal written at another site is another instance of an equal key path: comparing it (`==`) costs
        // about 1,500 instructions a lookup, so the instance is remembered once found.
        if let i = storage.keyPathAliases.withLock({ $0.index(of: keyPath) }) { return i }
        for i in columns.indices where columns[i].property.keyPath == keyPath {
            storage.keyPathAliases.withLock { $0.add(keyPath, at: i) }
            return i
        }
        return nil
    }

    /// Whether two schemas have the same name, columns, indexes and foreign keys.
    ///
    /// - Parameters:
    ///   - lhs: a schema.
    ///   - rhs: another schema.
    /// - Returns: true when they are equal.
    public static func == (lhs: TableSchema, rhs: TableSchema) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.name == rhs.name && lhs.columns == rhs.columns && lhs.indexes == rhs.indexes
                && lhs.foreignKeys == rhs.foreignKeys)
    }

    /// Hashes the name, columns, indexes and foreign keys.
    ///
    /// - Parameter hasher: the hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(columns)
        hasher.combine(indexes)
        hasher.combine(foreignKeys)
    }
}

/// An index on one or more columns of a table.
public struct Index: Sendable, Hashable {
    /// The indexed columns, in index order.
    public var columns: [String]
    /// Whether two rows may not share the same values in the columns (`CREATE UNIQUE INDEX`); NULLs never conflict.
    public var isUnique: Bool
    /// The index name; by default `<table>_<columns>_idx` (or `_key` when unique), which dialects
    /// with short identifier limits shorten deterministically.
    public var name: String?
    /// The indexed columns a dialect whose NULLs sort last by default (``NullOrdering/highest``) indexes
    /// `NULLS FIRST`, the order Strata's queries ask for, so an ordered page can walk the index. Nil until known:
    /// ``TableSchema`` fills it with the columns that can hold NULL, and introspection with what the database's
    /// index says (so a re-created index is the index it was). Not part of the index's `==` or hash.
    public var nullsFirstColumns: Set<String>? = nil
    /// The value the index holds instead of columns: a JSON path's value (see ``Index/on(_:name:)``), so that a
    /// query filtering or ordering by the same path can use it. Nil for an index on columns.
    public var expression: SQLExpression? = nil
    /// Why the index could not be built (a bad JSON path), thrown by the core's check before any driver.
    var problem: StrataError? = nil

    /// An index on columns of a table.
    ///
    /// - Parameters:
    ///   - columns: the indexed columns, in order.
    ///   - unique: whether the values must be unique across rows.
    ///   - name: the index's name, or nil for `<table>_<columns>_idx` (`_key` when unique).
    public init(columns: [String], unique: Bool = false, name: String? = nil) {
        self.columns = columns
        self.isUnique = unique
        self.name = name
    }

    /// Whether two indexes have the same columns, uniqueness and name (``nullsFirstColumns`` is derived).
    ///
    /// - Parameters:
    ///   - lhs: an index.
    ///   - rhs: another index.
    /// - Returns: true when they are equal.
    public static func == (lhs: Index, rhs: Index) -> Bool {
        lhs.columns == rhs.columns && lhs.isUnique == rhs.isUnique && lhs.name == rhs.name
            && lhs.expression == rhs.expression
    }

    /// Hashes the columns, uniqueness and name.
    ///
    /// - Parameter hasher: the hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(columns)
        hasher.combine(isUnique)
        hasher.combine(name)
        hasher.combine(expression)
    }

    /// The name used in the database for this index on `table`: for a JSON path, the column and the keys
    /// (`profile_settings_theme_idx`).
    public func resolvedName(table: String) -> String {
        let parts =
            expression.map { e in
                [
                    String(
                        e.summary.unicodeScalars.map {
                            $0.properties.isAlphabetic || ("0"..."9").contains($0) ? Character($0) : "_"
                        })
                ]
            } ?? columns
        return name ?? ([table] + parts + [isUnique ? "key" : "idx"]).joined(separator: "_")
    }
}

/// The key paths a schema found equal to a column's key path without being the same instance (a literal written at
/// another call site), each with the column's position: a later lookup of the same instance is an identity check.
///
/// Each key path is kept (retained), so its address cannot come back as another key path's while it is here; the
/// list is bounded, and a key path past the bound is compared by `==` each time, as before.
///
/// `@unchecked Sendable`: a key path to a stored property is an immutable value once made; the list lives in a
/// `Mutex`.
struct KeyPathAliases: @unchecked Sendable {
    /// The most key paths remembered per schema.
    static let limit = 64
    private var entries: [(keyPath: AnyKeyPath, index: Int)] = []

    /// The column position remembered for this very key path instance, or nil.
    func index(of keyPath: AnyKeyPath) -> Int? {
        for e in entries where e.keyPath === keyPath { return e.index }
        return nil
    }

    /// Remembers `keyPath` as column `index`'s, unless the list is full.
    mutating func add(_ keyPath: AnyKeyPath, at index: Int) {
        guard entries.count < Self.limit, self.index(of: keyPath) == nil else { return }
        entries.append((keyPath, index))
    }
}
