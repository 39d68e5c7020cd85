// ForeignKey: a column that references another table's primary key, enforced on every backend.

/// A foreign key from a column of this table to another table's primary key.
public struct ForeignKey: Sendable, Hashable {
    /// What the database does to referencing rows when the referenced row is deleted.
    public enum Action: String, Sendable, Hashable {
        /// Refuse the delete while rows reference it (checked at the statement's end).
        case noAction = "NO ACTION"
        /// Refuse the delete at once.
        case restrict = "RESTRICT"
        /// Delete the referencing rows too.
        case cascade = "CASCADE"
        /// Set the referencing column to NULL.
        case setNull = "SET NULL"
    }

    /// The referencing columns of this table: one, or one per column of a composite key (see ``CompositeKey``), in
    /// the order of ``referencedColumns``.
    public var columns: [String]
    /// The table whose row the columns point at.
    public var referencedTable: String
    /// The referenced table's columns the values must match, its primary key (`id` by default), in order.
    public var referencedColumns: [String]
    /// What happens to referencing rows when the referenced row is deleted (`ON DELETE …`).
    public var onDelete: Action

    /// The referencing column of this table; the first of a key of several columns.
    public var column: String {
        get { columns.first ?? "" }
        set { columns = columns.isEmpty ? [newValue] : [newValue] + columns.dropFirst() }
    }

    /// The referenced column; the first of a key of several columns.
    public var referencedColumn: String {
        get { referencedColumns.first ?? "" }
        set { referencedColumns = referencedColumns.isEmpty ? [newValue] : [newValue] + referencedColumns.dropFirst() }
    }

    /// Whether the key has several columns (it references a composite key).
    public var isComposite: Bool { columns.count > 1 }

    /// Whether `other` is the same constraint: the same table, delete rule and pairs of referencing and referenced
    /// columns, listed in any order (`(b, a) REFERENCES t (y, x)` is `(a, b) REFERENCES t (x, y)`; a database
    /// reads back the order it was written in, a model declares the referenced key's).
    func isSameConstraint(as other: ForeignKey) -> Bool {
        guard referencedTable == other.referencedTable, onDelete == other.onDelete,
            columns.count == referencedColumns.count, other.columns.count == other.referencedColumns.count,
            columns.count == other.columns.count
        else { return false }
        if columns == other.columns { return referencedColumns == other.referencedColumns }
        let pairs = zip(columns, referencedColumns).map { [$0, $1] }
        let others = zip(other.columns, other.referencedColumns).map { [$0, $1] }
        return Set(pairs).count == pairs.count && Set(pairs) == Set(others)
    }

    /// A foreign key `column REFERENCES table (referenced) ON DELETE onDelete`.
    ///
    /// - Parameters:
    ///   - column: the referencing column of this table.
    ///   - table: the referenced table.
    ///   - referenced: the referenced column, `id` by default.
    ///   - onDelete: what the database does to referencing rows when the referenced row is deleted.
    public init(
        column: String, references table: String, column referenced: String = "id", onDelete: Action = .noAction
    ) {
        self.init(columns: [column], references: table, columns: [referenced], onDelete: onDelete)
    }

    /// A foreign key of several columns, `FOREIGN KEY (a, b) REFERENCES table (x, y) ON DELETE onDelete`: what
    /// points at a composite key (see ``CompositeKey``).
    ///
    /// ```swift
    /// ForeignKey(columns: ["order_id", "product_id"], references: "order_line", columns: ["order_id", "product_id"])
    /// ```
    ///
    /// - Parameters:
    ///   - columns: the referencing columns of this table, in the order of `referenced`.
    ///   - table: the referenced table.
    ///   - referenced: the referenced columns, its key's.
    ///   - onDelete: what the database does to referencing rows when the referenced row is deleted.
    public init(columns: [String], references table: String, columns referenced: [String], onDelete: Action = .noAction)
    {
        self.columns = columns
        self.referencedTable = table
        self.referencedColumns = referenced
        self.onDelete = onDelete
    }

    /// A foreign key from a model's column to another model's primary key.
    ///
    /// ```swift
    /// static var foreignKeys: [ForeignKey] { [.from(\User.groupID, to: Group.self)] }
    /// ```
    public static func from<M: Model, V, Target: Model>(
        _ kp: KeyPath<M, V>, to target: Target.Type,
        onDelete: Action = .noAction
    ) -> ForeignKey {
        let pk = Target.schema.primaryKeyIndex.map { Target.schema.columns[$0].name } ?? "id"
        return ForeignKey(
            column: M.columnName(for: kp) ?? "\(kp)", references: Target.schema.name, column: pk,
            onDelete: onDelete)
    }
}
