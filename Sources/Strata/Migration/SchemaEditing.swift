// SchemaEditing: what a driver's connection provides so migrations can read and change the live schema.

/// A connection that can describe its database's schema and apply one checked ``SchemaChange`` at a time.
/// Every bundled driver's connection adopts it; ``Transaction/introspect()`` and ``Transaction/apply(_:)`` use it.
public protocol SchemaEditing: DatabaseConnection {
    /// Every table of the database (but the engine's own), as seen by this connection.
    func introspect() throws -> DatabaseSchema

    /// Applies one change the core has already checked against `live` (tables, columns and names exist or
    /// not as the change needs). The core passes ``SchemaChange/alterColumn(table:column:type:nullable:fill:)``
    /// only to change nullability (the type is the column's own, NULLs already filled), drops a column only
    /// after dropping the indexes and foreign key that use it, and never passes a type conversion.
    func apply(_ change: SchemaChange, live: DatabaseSchema) throws

    /// Runs first inside each migration step's transaction: waits until no other process migrates the same
    /// database, and must do so before the transaction takes its snapshot, so that the step then sees what the
    /// process it waited for committed (PostgreSQL: READ COMMITTED, then a transaction-scoped advisory lock).
    /// Default: nothing (SQLite's `BEGIN IMMEDIATE` and the memory store's single writer already serialize
    /// migrating transactions).
    func lockForMigration() throws

    /// Runs on the connection before a migration step's transaction begins (SQLite turns foreign keys off, as
    /// its table rebuild requires). Default: nothing.
    func willBeginMigrationStep() throws

    /// Runs inside the step's transaction before it commits: foreign keys must hold (SQLite:
    /// `PRAGMA foreign_key_check`). Default: nothing.
    func checkMigrationStep() throws

    /// Runs a migration step's data transform with its foreign keys enforced as outside a step: each write checked
    /// as it runs, and a deleted row's `ON DELETE` action carried out. SQLite, whose step runs with foreign keys off
    /// (a pragma it cannot turn back on inside the transaction), enforces them by temporary triggers around `body`.
    /// Default: runs `body` (the backend enforces foreign keys in the step as everywhere).
    func enforcingForeignKeys(_ body: () throws -> Void) throws

    /// Runs after the step's transaction ended, committed or not (SQLite turns foreign keys back on).
    func didEndMigrationStep()

    /// Puts `temporary` (a column the core added and filled with the converted values) in the place of
    /// `column` in one step, keeping the column's position, indexes and foreign key, with the new `type`,
    /// nullability and `default` value. Returns false when the backend cannot (the core then drops `column`,
    /// renames `temporary` to it, which moves it last, and re-creates its indexes, key and default). Default:
    /// false. SQLite does it in one table rebuild, the memory store in one journaled rebuild.
    ///
    /// - Parameters:
    ///   - column: the column being retyped.
    ///   - temporary: the filled column that replaces it.
    ///   - table: their table.
    ///   - type: the column's new type.
    ///   - nullable: whether the column accepts NULL after.
    ///   - value: the column's default after, already of `type` (nil: none).
    ///   - live: the live schema, `temporary` included.
    /// - Returns: whether the backend replaced the column.
    /// - Throws: the database's errors (a unique index over values that became equal, NULLs in a NOT NULL column).
    func replaceColumn(
        _ column: String, with temporary: String, in table: String, type: ColumnType, nullable: Bool,
        default value: DatabaseValue?, live: DatabaseSchema
    ) throws -> Bool

    /// The constraints, indexes and triggers of `table`, each named with its kind and definition
    /// (`index t_c_idx: CREATE INDEX …`), so that a type change the backend makes by dropping the old column
    /// (when ``replaceColumn(_:with:in:type:nullable:default:live:)`` returns false) can check it lost or changed
    /// none of them: introspection re-creates plain indexes, single-column foreign keys and the default, not a
    /// CHECK, a partial or expression index, a UNIQUE constraint or a column trigger. Default: none.
    ///
    /// - Parameter table: the table.
    /// - Returns: one entry per object.
    func schemaObjects(of table: String) throws -> Set<String>

    /// Whether this backend stores two column types the same way (SQLite: `text` and `date` are both TEXT), so
    /// a diff does not report a type change it cannot see.
    func storesAlike(_ a: ColumnType, _ b: ColumnType) -> Bool
}

extension SchemaEditing {
    /// Does nothing: the backend's own write lock already serializes migrating transactions.
    public func lockForMigration() throws {}
    /// Does nothing.
    public func willBeginMigrationStep() throws {}
    /// Does nothing: the backend checks foreign keys as each statement runs.
    public func checkMigrationStep() throws {}
    /// Runs `body`: the backend enforces foreign keys in a migration step as everywhere.
    public func enforcingForeignKeys(_ body: () throws -> Void) throws { try body() }
    /// Does nothing.
    public func didEndMigrationStep() {}
    /// Does not replace the column in place; the caller rebuilds it with the generic steps.
    public func replaceColumn(
        _ column: String, with temporary: String, in table: String, type: ColumnType, nullable: Bool,
        default value: DatabaseValue?, live: DatabaseSchema
    ) throws -> Bool { false }
    /// None: the backend keeps a retyped column's constraints, indexes and triggers itself.
    ///
    /// - Parameter table: the table.
    /// - Returns: an empty set.
    public func schemaObjects(of table: String) throws -> Set<String> { [] }
    /// Whether the two types are the same type: every type is stored its own way.
    ///
    /// - Parameters:
    ///   - a: a column type.
    ///   - b: another column type.
    /// - Returns: `a == b`.
    public func storesAlike(_ a: ColumnType, _ b: ColumnType) -> Bool { a == b }
}

extension SchemaEditing where Self: SQLConnection {
    /// Two types are stored alike when the dialect declares and checks them alike.
    public func storesAlike(_ a: ColumnType, _ b: ColumnType) -> Bool {
        dialect.sqlType(a) == dialect.sqlType(b)
            && dialect.typeCheck(a, column: "c") == dialect.typeCheck(b, column: "c")
    }
}
