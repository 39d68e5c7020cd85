// TableColumn: one stored property of a model as the schema sees it.

/// A column of a model's table: its name, type, nullability and default.
///
/// The `@Model` macro writes one per stored property; a hand-written model lists them itself:
///
/// ```swift
/// static let schema = TableSchema(name: "user", columns: [
///     TableColumn(\User.id, "id", primaryKey: true),
///     TableColumn(\User.name, "name"),
///     TableColumn(\User.active, "active", default: true, constant: true),
/// ])
/// ```
public struct TableColumn: Sendable, Hashable {
    /// The column's name in the database, exactly as stored (always quoted in SQL).
    public var name: String
    /// The kind of value the column stores, which each dialect maps to its own SQL type.
    public var type: ColumnType
    /// Whether the column accepts NULL (an optional property); a primary key is always nullable here, as a new model has no id.
    public var isNullable: Bool
    /// Whether the column is the table's primary key.
    public var isPrimaryKey: Bool
    /// A constant default the migration writes into the schema (`DEFAULT …`).
    public var schemaDefault: DatabaseValue?
    /// The value that fills existing rows when a migration adds this column to a table.
    public var backfill: DatabaseValue?
    /// Whether the model marks this column changed when its property is assigned. When false (a
    /// property with observers of its own, or declared as `var a, b: T`), every update writes it.
    public var tracksChanges = true
    /// What Strata writes into this column by itself, if anything (timestamps, the version).
    public var role: ColumnRole?
    /// The form dates are stored in, when the column declares one (see ``DateFormat``); nil for Strata's own.
    public var dateFormat: DateFormat?
    /// How the column's values are sealed when the property is `@Encrypted` (see ``encrypted(_:)``); nil for a
    /// column stored in clear.
    public var encryption: EncryptionMode?
    /// A default the database computes (`CURRENT_TIMESTAMP`, `nextval(…)`), as introspection reads it from a
    /// live table (``schemaDefault`` is then nil). A model declares one as a ``databaseDefault``; a diff leaves any
    /// other alone unless the model declares a constant default instead.
    public var defaultExpression: String?
    /// A default the database computes when an insert leaves the column NULL (see ``DatabaseDefault``):
    /// `@Column(default: .now)` sets it. ``schemaDefault`` is then nil.
    public var databaseDefault: DatabaseDefault?
    /// Whether the database computes the column from the row's other columns (`GENERATED ALWAYS AS (…) STORED`):
    /// inserts never name it and writes to it are refused (see ``GeneratedColumn``). `@Generated` sets it.
    public var isGenerated = false
    /// The generated column's expression, once known: the model's ``Model/generatedColumns`` supply it when the
    /// model is migrated, and the memory driver computes it from the table it created. Introspection of a SQL
    /// database marks a generated column but leaves this nil (the database's own text is not read back).
    public var generation: SQLExpression?
    /// The model property the column maps, when the column was made from its key path; not part of the column's
    /// `==` or hash. ``Model/columnName(for:)`` and ``Model/keyPath(forColumn:)`` read it by default.
    public var keyPath: AnyKeyPath? { property.keyPath }
    var property = PropertyKeyPath(keyPath: nil, valueType: nil)

    /// A column described by its parts.
    ///
    /// - Parameters:
    ///   - name: the column's name in the table.
    ///   - type: the kind of value it stores.
    ///   - isNullable: whether it accepts NULL; a primary key is always treated as nullable.
    ///   - isPrimaryKey: whether it is the table's primary key.
    ///   - schemaDefault: a constant `DEFAULT` the migration writes into the schema, or nil.
    ///   - backfill: the value existing rows take when a migration adds the column; `schemaDefault` when nil.
    public init(
        name: String, type: ColumnType, isNullable: Bool, isPrimaryKey: Bool = false,
        schemaDefault: DatabaseValue? = nil, backfill: DatabaseValue? = nil
    ) {
        self.name = name
        self.type = type
        self.isNullable = isNullable || isPrimaryKey
        self.isPrimaryKey = isPrimaryKey
        self.schemaDefault = schemaDefault
        self.backfill = backfill ?? schemaDefault
    }

    /// A column typed by the model property it maps (the key path only carries the type).
    public init<M, V: DatabaseValueConvertible>(
        _ keyPath: KeyPath<M, V>, _ name: String, primaryKey: Bool = false, tracked: Bool = true,
        role: ColumnRole? = nil
    ) {
        self.init(name: name, type: V.columnType, isNullable: V.isNullable, isPrimaryKey: primaryKey)
        tracksChanges = tracked
        self.role = role
        property = PropertyKeyPath(keyPath: keyPath, valueType: V.self)
    }

    /// A column whose property has a default value.
    ///
    /// - Parameters:
    ///   - keyPath: the model property the column maps; only its type is used.
    ///   - name: the column's name in the table.
    ///   - default: the property's default; evaluated once, when the schema is built.
    ///   - constant: whether the default is a literal, so it can also be the schema's `DEFAULT`.
    ///   - tracked: whether the model marks the column changed on assignment (see ``tracksChanges``).
    ///   - role: what the column does in the model's lifecycle (a timestamp, a version, …), if anything.
    public init<M, V: DatabaseValueConvertible>(
        _ keyPath: KeyPath<M, V>, _ name: String, default: V,
        constant: Bool, tracked: Bool = true, role: ColumnRole? = nil
    ) {
        let value = `default`.databaseValue
        self.init(
            name: name, type: V.columnType, isNullable: V.isNullable,
            schemaDefault: constant && !value.isNull ? value : nil, backfill: value.isNull ? nil : value)
        tracksChanges = tracked
        self.role = role
        property = PropertyKeyPath(keyPath: keyPath, valueType: V.self)
    }
}

/// A column's key path, kept beside it and left out of its `==` and hash (a schema read from a database has none).
///
/// `@unchecked Sendable`: a key path to a stored property is an immutable value once made.
struct PropertyKeyPath: @unchecked Sendable, Hashable {
    let keyPath: AnyKeyPath?
    /// The property's type, so a value read back (a generated column's) can be copied into a model.
    let valueType: (any DatabaseValueConvertible.Type)?
    /// What sets the property from a read-back row without its key path (see ``TableColumn/readBack(_:)``).
    var setter: AnyColumnSetter? = nil

    static func == (lhs: Self, rhs: Self) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
