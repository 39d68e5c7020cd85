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

    /// The referencing column of this table.
    public var column: String
    /// The table whose row the column points at.
    public var referencedTable: String
    /// The referenced table's column the value must match, its primary key (`id` by default).
    public var referencedColumn: String
    /// What happens to referencing rows when the referenced row is deleted (`ON DELETE …`).
    public var onDelete: Action

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
        self.column = column
        self.referencedTable = table
        self.referencedColumn = referenced
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
