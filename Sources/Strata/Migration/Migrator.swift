// Migrator: creates missing tables and indexes and adds missing columns, never touching data.

extension Transaction {
    /// Brings the schema up to the models: creates missing tables and indexes, adds missing columns
    /// (filled with the property's default, or NULL for optionals). Nothing is dropped or rewritten.
    ///
    /// With ``MigrationPolicy/disabled`` it changes nothing and only checks.
    ///
    /// - Throws: ``StrataError/schemaMismatch(table:missing:)`` when migration is disabled and the
    ///   schema lacks a table or column.
    public func migrate(_ models: [any Model.Type], policy: MigrationPolicy? = nil) throws {
        for model in models {
            var schema = model.schema
            schema.indexes += model.indexes
            for fk in model.foreignKeys + model.associations.flatMap(\.foreignKeys)
            where !schema.foreignKeys.contains(where: { $0.column == fk.column }) {
                schema.foreignKeys.append(fk)
            }
            try migrate(schema, policy: policy ?? database.configuration.migration)
        }
    }

    /// The column names of a table, or nil when it does not exist.
    public func columns(of table: String) throws -> [String]? {
        try checkOpen()
        return try connection.columns(of: table)
    }

    /// Migrates one table schema (see ``migrate(_:policy:)``).
    public func migrate(_ schema: TableSchema, policy: MigrationPolicy) throws {
        let existing = try columns(of: schema.name)
        if policy == .disabled {
            guard let existing else { throw StrataError.schemaMismatch(table: schema.name, missing: ["the table"]) }
            let missing = schema.columnNames.filter { !existing.contains($0) }
            if !missing.isEmpty {
                throw StrataError.schemaMismatch(table: schema.name, missing: missing.map { "column \($0)" })
            }
            return
        }
        if let existing {
            let added = schema.columns.filter { !existing.contains($0.name) }
            // Checked before any DDL, so a refused migration changes nothing.
            if let column = added.first(where: { !$0.isNullable && $0.backfill == nil }) {
                throw StrataError.schemaMismatch(
                    table: schema.name,
                    missing: [
                        "column \(column.name) (non-optional without a default: give the property a default "
                            + "value or make it optional, so existing rows can be filled)"
                    ])
            }
            for column in added {
                _ = try execute(.addColumn(table: schema.name, column))
            }
        } else {
            _ = try execute(.createTable(schema))
        }
        for index in schema.indexes {
            _ = try execute(.createIndex(table: schema.name, index))
        }
    }
}

extension Database {
    /// Migrates the models' tables in one transaction (see ``Transaction/migrate(_:policy:)``).
    nonisolated(nonsending)
        public func migrate(_ models: any Model.Type...) async throws
    {
        try await transaction { tx in try tx.migrate(models) }
    }

    /// Drops the models' tables if they exist (for tests and tools; it destroys data).
    nonisolated(nonsending)
        public func dropTables(_ models: any Model.Type...) async throws
    {
        try await withConnection { tx in
            for model in models { _ = try tx.execute(.dropTable(model.schema.name)) }
        }
    }
}

extension Model {
    /// No indexes besides the table's.
    ///
    /// ```swift
    /// static var indexes: [Index] { [.on(\User.email, unique: true)] }
    /// ```
    public static var indexes: [Index] { [] }

    /// No foreign keys.
    public static var foreignKeys: [ForeignKey] { [] }
}

extension Index {
    /// An index on model columns named by key paths.
    public static func on<M: Model>(_ keyPaths: PartialKeyPath<M>..., unique: Bool = false) -> Index {
        Index(columns: keyPaths.map { M.columnName(for: $0) ?? "\($0)" }, unique: unique)
    }
}
