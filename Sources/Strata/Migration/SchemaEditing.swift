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
    /// database (PostgreSQL: a transaction-scoped advisory lock). Default: nothing (SQLite's `BEGIN IMMEDIATE`
    /// and the memory store's single writer already serialize migrating transactions).
    func lockForMigration() throws

    /// Runs on the connection before a migration step's transaction begins (SQLite turns foreign keys off, as
    /// its table rebuild requires). Default: nothing.
    func willBeginMigrationStep() throws

    /// Runs inside the step's transaction before it commits: foreign keys must hold (SQLite:
    /// `PRAGMA foreign_key_check`). Default: nothing.
    func checkMigrationStep() throws

    /// Runs after the step's transaction ended, committed or not (SQLite turns foreign keys back on).
    func didEndMigrationStep()

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
    /// Does nothing.
    public func didEndMigrationStep() {}
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
