// LiveColumn: a column as the live database declares it, for checking models against a schema Strata did not create.

/// One column of an existing table, as a driver reads it from the database's catalog.
public struct LiveColumn: Sendable, Hashable {
    /// The column's name, exactly as stored.
    public var name: String
    /// The type as the database declares it (`decimal`, `TEXT`, `double precision`…), for messages.
    public var declaredType: String
    /// Whether the column accepts NULL.
    public var isNullable: Bool
    /// The column's collation when the database reports one (`C`, `en_US`, `strata_decimal`…).
    public var collation: String?
    /// The model column types whose values this column's stored values read into correctly, comparisons
    /// included: a Decimal property over a TEXT column is left out (text compares as text).
    public var reads: Set<ColumnType>
    /// Whether the column is (part of) the primary key.
    public var isPrimaryKey = false

    /// A column as a driver read it from the catalog.
    ///
    /// - Parameters:
    ///   - name: the column's name, exactly as stored.
    ///   - declaredType: the type as the database declares it, for messages.
    ///   - isNullable: whether the column accepts NULL.
    ///   - collation: the column's collation, when the database reports one.
    ///   - reads: the model column types whose values this column's stored values read into correctly.
    public init(name: String, declaredType: String, isNullable: Bool, collation: String? = nil, reads: Set<ColumnType>)
    {
        self.name = name
        self.declaredType = declaredType
        self.isNullable = isNullable
        self.collation = collation
        self.reads = reads
    }

    /// What a column Strata creates with `type` reads into (the memory driver's columns).
    public static func reads(ofStrataType type: ColumnType) -> Set<ColumnType> {
        switch type {
        case .integer: return [.integer, .bool, .double, .decimal, .date]
        case .double: return [.double, .decimal, .date]
        case .text: return [.text, .date, .uuid, .json]
        case .blob: return [.blob, .uuid]
        case .bool: return [.bool]
        case .date: return [.date]
        case .decimal: return [.decimal]
        case .uuid: return [.uuid]
        case .json: return [.json]
        }
    }
}

/// A single-column foreign key of an existing table.
public struct LiveForeignKey: Sendable, Hashable {
    /// The referencing column.
    public var column: String
    /// The table it references.
    public var referencedTable: String
    /// The referenced table's column.
    public var referencedColumn: String

    /// A foreign key as a driver read it from the catalog.
    ///
    /// - Parameters:
    ///   - column: the referencing column.
    ///   - referencedTable: the table it references.
    ///   - referencedColumn: the referenced table's column.
    public init(column: String, referencedTable: String, referencedColumn: String) {
        self.column = column
        self.referencedTable = referencedTable
        self.referencedColumn = referencedColumn
    }
}

extension DatabaseConnection {
    /// By default a driver cannot list its tables.
    ///
    /// - Throws: ``StrataError/unsupported(feature:driver:)``.
    public func liveTables() throws -> [String] {
        throw StrataError.unsupported(feature: "schema inspection", driver: String(describing: type(of: self)))
    }

    /// By default no foreign keys are known.
    public func liveForeignKeys(of table: String) throws -> [LiveForeignKey] { [] }

    /// By default only the names are known: every type and nullability is taken as compatible.
    public func liveColumns(of table: String) throws -> [LiveColumn]? {
        try columns(of: table)?.map {
            LiveColumn(name: $0, declaredType: "?", isNullable: false, reads: Set(ColumnType.allCases))
        }
    }
}
