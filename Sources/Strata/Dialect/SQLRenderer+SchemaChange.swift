// SQLRenderer+SchemaChange: the DDL of a migration's schema changes, written once for every dialect.

extension SQLRenderer {
    /// The statements that make `change` with `CREATE`, `DROP` and `ALTER TABLE`, in order; nil when the dialect
    /// cannot make it in place (``Dialect/altersTablesInPlace`` is false: changing nullability or a default, adding
    /// or dropping a foreign key), so that its driver rebuilds the table instead (SQLite).
    ///
    /// A driver runs what this returns; it does not spell DDL itself. The checks that the change makes sense
    /// against the live schema are the migrator's, made before (see ``SchemaEditing``). A column's type change
    /// converts its values in Swift before this runs: `alterColumn` here changes nullability only.
    ///
    /// ```swift
    /// try SQLRenderer.statements(for: .renameColumn(table: "user", column: "mail", to: "email"), dialect: PostgresDialect())
    /// // ["ALTER TABLE \"user\" RENAME COLUMN \"mail\" TO \"email\""]
    /// ```
    ///
    /// - Throws: ``StrataError/invalidIdentifier(_:reason:)`` for a name the dialect cannot quote;
    ///   ``StrataError/invalidValue(table:column:reason:)`` or ``StrataError/invalidQuery(_:)`` for a default
    ///   that has no SQL literal.
    public static func statements(for change: SchemaChange, dialect: any Dialect) throws(StrataError) -> [String]? {
        func q(_ name: String) throws(StrataError) -> String { try dialect.quote(name) }
        func one(_ s: Statement) throws(StrataError) -> String { try render(s, dialect: dialect).sql }
        let inPlace = dialect.altersTablesInPlace
        switch change {
        case .createTable(let t):
            var out = [try one(.createTable(t))]
            for index in t.indexes { out.append(try one(.createIndex(table: t.name, index))) }
            return out
        case .dropTable(let t): return ["DROP TABLE " + (try q(t))]
        case .renameTable(let t, let to): return ["ALTER TABLE " + (try q(t)) + " RENAME TO " + (try q(to))]
        case .addColumn(let t, let c):
            // SQLite cannot add a STORED generated column, nor a column whose default is an expression, with ALTER
            // TABLE: its driver rebuilds the table.
            if (c.isGenerated || c.databaseDefault != nil) && !inPlace { return nil }
            return [try one(.addColumn(table: t, c))]
        case .dropColumn(let t, let c): return ["ALTER TABLE " + (try q(t)) + " DROP COLUMN " + (try q(c))]
        case .renameColumn(let t, let c, let to):
            return ["ALTER TABLE " + (try q(t)) + " RENAME COLUMN " + (try q(c)) + " TO " + (try q(to))]
        case .alterColumn(let t, let c, let type, let nullable, _):
            guard inPlace else { return nil }
            switch dialect.columnChangeSyntax {
            case .alterColumn:
                return [
                    "ALTER TABLE " + (try q(t)) + " ALTER COLUMN " + (try q(c)) + (nullable ? " DROP" : " SET")
                        + " NOT NULL"
                ]
            case .modifyColumn:
                return [
                    "ALTER TABLE " + (try q(t)) + " MODIFY COLUMN " + (try q(c)) + " " + dialect.sqlType(type)
                        + (nullable ? " NULL" : " NOT NULL")
                ]
            }
        case .addIndex(let t, let index): return [try one(.createIndex(table: t, index))]
        case .dropIndex(let t, let name):
            switch dialect.dropIndexSyntax {
            case .standalone: return ["DROP INDEX " + (try q(name))]
            case .onTable: return ["DROP INDEX " + (try q(name)) + " ON " + (try q(t))]
            }
        case .addForeignKey(let t, let k):
            guard inPlace else { return nil }
            return [
                "ALTER TABLE " + (try q(t)) + " ADD CONSTRAINT "
                    + (try q(foreignKeyName(table: t, column: k.column, dialect: dialect))) + " "
                    + (try foreignKeyClause(k, dialect: dialect))
            ]
        case .dropForeignKey(let t, let c):
            guard inPlace else { return nil }
            return [
                try dropForeignKey(foreignKeyName(table: t, column: c, dialect: dialect), table: t, dialect: dialect)
            ]
        case .setDefault(let t, let c, let value):
            guard inPlace else { return nil }
            let set = try value.map { v throws(StrataError) in
                " SET DEFAULT " + (try SQLRenderer(dialect: dialect).ddlLiteral(v, table: t, column: c))
            }
            return ["ALTER TABLE " + (try q(t)) + " ALTER COLUMN " + (try q(c)) + (set ?? " DROP DEFAULT")]
        case .setDatabaseDefault(let t, let c, let value):
            guard inPlace else { return nil }
            let set = value.map { " SET DEFAULT " + dialect.databaseDefaultSQL($0) }
            return ["ALTER TABLE " + (try q(t)) + " ALTER COLUMN " + (try q(c)) + (set ?? " DROP DEFAULT")]
        }
    }

    /// `FOREIGN KEY ("a") REFERENCES "t" ("id") ON DELETE …`, or for a key of several columns (see
    /// ``ForeignKey/columns``) `FOREIGN KEY ("a", "b") REFERENCES "t" ("x", "y") ON DELETE …`: the clause a table's
    /// definition and `ADD CONSTRAINT` share, and a driver that rebuilds a table adds.
    ///
    /// - Parameters:
    ///   - key: the foreign key.
    ///   - dialect: the dialect that quotes its names.
    /// - Returns: the clause.
    /// - Throws: ``StrataError/invalidIdentifier(_:reason:)``.
    public static func foreignKeyClause(_ key: ForeignKey, dialect: any Dialect) throws(StrataError) -> String {
        func list(_ names: [String]) throws(StrataError) -> String {
            var out: [String] = []
            for name in names { out.append(try dialect.quote(name)) }
            return "(" + out.joined(separator: ", ") + ")"
        }
        return "FOREIGN KEY " + (try list(key.columns)) + " REFERENCES " + (try dialect.quote(key.referencedTable))
            + " " + (try list(key.referencedColumns)) + " ON DELETE " + key.onDelete.rawValue
    }

    /// The name Strata gives the foreign key on `table.column` (`t_c_fkey`, shortened to the dialect's limit).
    ///
    /// - Parameters:
    ///   - table: the table that holds the key.
    ///   - column: the key's column (the first of a key of several columns).
    ///   - dialect: the dialect whose identifier length applies.
    /// - Returns: the constraint's name, unquoted.
    public static func foreignKeyName(table: String, column: String, dialect: any Dialect) -> String {
        dialect.shortened(table + "_" + column + "_fkey")
    }

    /// `ALTER TABLE t DROP CONSTRAINT name`, or `DROP FOREIGN KEY name` where the dialect says so
    /// (``Dialect/dropForeignKeySyntax``), for a foreign key a driver found in its catalog under another name.
    ///
    /// - Parameters:
    ///   - name: the foreign key's name.
    ///   - table: its table.
    ///   - dialect: the dialect that quotes both and spells the statement.
    /// - Returns: the statement.
    /// - Throws: ``StrataError/invalidIdentifier(_:reason:)``.
    public static func dropForeignKey(_ name: String, table: String, dialect: any Dialect) throws(StrataError) -> String
    {
        switch dialect.dropForeignKeySyntax {
        case .dropConstraint: return try dropConstraint(name, table: table, dialect: dialect)
        case .dropForeignKey:
            return "ALTER TABLE " + (try dialect.quote(table)) + " DROP FOREIGN KEY " + (try dialect.quote(name))
        }
    }

    /// `ALTER TABLE t DROP CONSTRAINT name`, for a constraint a driver found in its catalog under another name.
    ///
    /// - Parameters:
    ///   - name: the constraint's name.
    ///   - table: its table.
    ///   - dialect: the dialect that quotes both.
    /// - Returns: the statement.
    /// - Throws: ``StrataError/invalidIdentifier(_:reason:)``.
    public static func dropConstraint(_ name: String, table: String, dialect: any Dialect) throws(StrataError) -> String
    {
        "ALTER TABLE " + (try dialect.quote(table)) + " DROP CONSTRAINT " + (try dialect.quote(name))
    }
}
