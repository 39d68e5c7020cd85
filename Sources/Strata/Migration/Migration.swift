// Migration: one named, versioned migration step: its schema changes and data transforms, up and down.
import Foundation

/// A named step of a versioned migration: what `up` does, and optionally how `down` undoes it.
///
/// ```swift
/// let addEmail = Migration("002_add_email") { up in
///     up.addColumn("email", .text, nullable: true, to: "user")
///     up.transform("default emails") { tx in
///         try User.query(on: tx).where(\.email == nil).update(set: \.email, to: "unknown@example.com")
///     }
/// } down: { down in
///     down.dropColumn("email", from: "user")
/// }
/// try await db.migrate([createUsers, addEmail])      // applies what is pending, in order
/// ```
///
/// Steps run in order, each in its own transaction, and are recorded in `strata_migrations` with a checksum
/// of their operations: applying twice does nothing, and editing a step once it is applied is refused with
/// ``StrataError/migrationChecksumMismatch(step:applied:current:)``.
public struct Migration: Sendable {
    /// The step's unique name; steps are usually named with a sortable prefix (`001_…`).
    public let name: String
    /// What applying the step does.
    public let up: [MigrationOperation]
    /// What reverting it does; nil when the step cannot be reverted.
    public let down: [MigrationOperation]?

    /// A step built by closures that list its operations.
    public init(
        _ name: String, up: (inout MigrationSteps) -> Void, down: ((inout MigrationSteps) -> Void)? = nil
    ) {
        self.name = name
        var u = MigrationSteps()
        up(&u)
        self.up = u.operations
        if let down {
            var d = MigrationSteps()
            down(&d)
            self.down = d.operations
        } else {
            self.down = nil
        }
    }

    /// A step from listed operations.
    public init(_ name: String, up: [MigrationOperation], down: [MigrationOperation]? = nil) {
        self.name = name
        self.up = up
        self.down = down
    }

    /// A hex digest of the step's `up` and `down` operations (their descriptions; a transform counts by its
    /// label), so a step edited after it was applied is noticed.
    public var checksum: String {
        var text = "up:" + up.map(\.description).joined(separator: "\n")
        if let down { text += "\ndown:" + down.map(\.description).joined(separator: "\n") }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: stable across runs, platforms and Swift versions
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// One operation of a migration step: a schema change, or a data transform written with models or the query API.
public enum MigrationOperation: Sendable, CustomStringConvertible {
    /// A schema change, checked against the live schema before it runs.
    case schema(SchemaChange)
    /// Runs `body` in the step's transaction; `label` names it in plans and in the checksum.
    case transform(label: String, body: @Sendable (Transaction) throws -> Void)

    /// The operation in a plan and in the checksum: the change, or `transform: <label>`.
    public var description: String {
        switch self {
        case .schema(let change): return change.description
        case .transform(let label, _): return "transform: \(label)"
        }
    }

    /// Runs the operation on a transaction.
    func run(_ tx: Transaction) throws {
        switch self {
        case .schema(let change): try tx.apply(change)
        case .transform(_, let body):
            // Foreign keys hold in a transform as in any write, on a backend whose step turned them off too.
            guard let editor = tx.connection as? any SchemaEditing else { return try body(tx) }
            try editor.enforcingForeignKeys { try body(tx) }
        }
    }
}

/// The list a ``Migration``'s closures fill, one method per operation.
public struct MigrationSteps: Sendable {
    /// The operations, in order.
    public private(set) var operations: [MigrationOperation] = []

    /// An empty list of steps.
    public init() {}

    /// Adds any schema change.
    public mutating func change(_ change: SchemaChange) { operations.append(.schema(change)) }

    /// Creates a table (with its indexes and foreign keys).
    public mutating func createTable(_ schema: TableSchema) { change(.createTable(schema)) }

    /// Creates a model's table as the model declares it now, with its indexes and foreign keys.
    public mutating func createTable(for model: any Model.Type) {
        change(.createTable(Transaction.plannedSchema(model)))
    }

    /// Drops a table and its rows.
    public mutating func dropTable(_ table: String) { change(.dropTable(table)) }

    /// Renames a table.
    public mutating func renameTable(_ table: String, to name: String) { change(.renameTable(table, to: name)) }

    /// Adds a column; existing rows get `fill` (nil: NULL, allowed only for a nullable column or an empty table).
    public mutating func addColumn(
        _ name: String, _ type: ColumnType, nullable: Bool = false, default value: DatabaseValue? = nil,
        fill: DatabaseValue? = nil, to table: String
    ) {
        change(
            .addColumn(
                table: table,
                TableColumn(name: name, type: type, isNullable: nullable, schemaDefault: value, backfill: fill)))
    }

    /// Drops a column.
    public mutating func dropColumn(_ name: String, from table: String) {
        change(.dropColumn(table: table, column: name))
    }

    /// Renames a column.
    public mutating func renameColumn(_ name: String, to newName: String, in table: String) {
        change(.renameColumn(table: table, column: name, to: newName))
    }

    /// Changes a column's type and nullability; NULLs become `fill` when it turns NOT NULL.
    public mutating func alterColumn(
        _ name: String, in table: String, to type: ColumnType, nullable: Bool, fill: DatabaseValue? = nil
    ) {
        change(.alterColumn(table: table, column: name, type: type, nullable: nullable, fill: fill))
    }

    /// Creates an index.
    public mutating func addIndex(on table: String, _ columns: [String], unique: Bool = false, name: String? = nil) {
        change(.addIndex(table: table, Index(columns: columns, unique: unique, name: name)))
    }

    /// Drops an index by name.
    public mutating func dropIndex(_ name: String, on table: String) { change(.dropIndex(table: table, name: name)) }

    /// Adds a foreign key.
    public mutating func addForeignKey(_ key: ForeignKey, to table: String) {
        change(.addForeignKey(table: table, key))
    }

    /// Drops the foreign key on a column.
    public mutating func dropForeignKey(on column: String, of table: String) {
        change(.dropForeignKey(table: table, column: column))
    }

    /// Sets a column's constant default (nil drops it); existing rows keep their values.
    ///
    /// - Parameters:
    ///   - value: the default, converted to the column's type when the step runs; nil drops it.
    ///   - column: the column.
    ///   - table: its table.
    public mutating func setDefault(_ value: DatabaseValue?, of column: String, in table: String) {
        change(.setDefault(table: table, column: column, to: value))
    }
    /// A data transform, run in the step's transaction with the models or the query API.
    public mutating func transform(_ label: String, _ body: @escaping @Sendable (Transaction) throws -> Void) {
        operations.append(.transform(label: label, body: body))
    }
}
