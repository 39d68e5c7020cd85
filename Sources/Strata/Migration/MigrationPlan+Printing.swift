// MigrationPlan+Printing: a plan as SQL in a dialect, and as Swift source for a versioned migration.

extension MigrationPlan {
    /// The plan's DDL in `dialect`, one statement (or comment) per line, destructive changes preceded by a
    /// `-- DESTRUCTIVE` comment. A change the dialect cannot `ALTER` (SQLite) is shown as the table rebuild
    /// Strata runs; a type change notes that Strata converts each value in Swift and refuses those that do not.
    ///
    /// - Throws: ``StrataError/invalidIdentifier(_:reason:)`` for a name the dialect cannot quote;
    ///   ``StrataError/invalidValue(table:column:reason:)`` or ``StrataError/invalidQuery(_:)`` for a default
    ///   that has no SQL literal.
    public func sql(dialect: any Dialect) throws -> String {
        var lines: [String] = []
        for planned in changes {
            if planned.isDestructive { lines.append("-- DESTRUCTIVE: \(planned.change)") }
            lines += try Self.sql(planned.change, dialect: dialect)
        }
        return lines.joined(separator: "\n")
    }

    static func sql(_ change: SchemaChange, dialect: any Dialect) throws -> [String] {
        func q(_ name: String) throws -> String { try dialect.quote(name) }
        func rebuild(_ table: String, _ what: String) -> [String] {
            [
                "-- \(what): SQLite rebuilds \(table) (create the new table, copy every row, drop the old one, "
                    + "rename, re-create indexes and triggers, PRAGMA foreign_key_check)"
            ]
        }
        switch change {
        case .alterColumn(let t, let c, let type, let nullable, let fill):
            var out = [
                "-- \(t).\(c): each value converted to \(type.rawValue) in Swift; one that does not convert stops the step"
            ]
            if !dialect.altersTablesInPlace {
                out.append("ALTER TABLE \(try q(t)) ADD COLUMN \(try q("strata_tmp_" + c)) \(dialect.sqlType(type));")
                out.append(
                    "-- UPDATE … SET \(try q("strata_tmp_" + c)) = <converted value> WHERE \(try q(c)) = <value>, per value"
                )
                out += rebuild(t, "drop \(c), rename the new column to it" + (nullable ? "" : ", NOT NULL"))
                return out
            }
            switch dialect.columnChangeSyntax {
            case .alterColumn:
                out.append(
                    "ALTER TABLE \(try q(t)) ALTER COLUMN \(try q(c)) TYPE \(dialect.sqlType(type)) USING \(try q(c))::"
                        + dialect.sqlType(type).split(separator: " ")[0] + ";")
            case .modifyColumn where fill != nil && !nullable:
                // The new type first, still nullable, so that the fill runs before NOT NULL.
                let typeOnly = SchemaChange.alterColumn(table: t, column: c, type: type, nullable: true, fill: nil)
                out += (try SQLRenderer.statements(for: typeOnly, dialect: dialect) ?? []).map { $0 + ";" }
            case .modifyColumn: break  // the statement below restates the type with the nullability
            }
            if let fill, !nullable {
                out.append(
                    "UPDATE \(try q(t)) SET \(try q(c)) = \(SchemaChange.literal(fill)) WHERE \(try q(c)) IS NULL;")
            }
            return out + (try SQLRenderer.statements(for: change, dialect: dialect) ?? []).map { $0 + ";" }
        case .dropColumn(let t, let c) where !dialect.altersTablesInPlace:
            return rebuild(t, "drop column \(c)")
        default:
            guard let statements = try SQLRenderer.statements(for: change, dialect: dialect) else {
                switch change {
                case .addForeignKey(let t, let k): return rebuild(t, "add foreign key \(k.column)")
                case .dropForeignKey(let t, let c): return rebuild(t, "drop foreign key \(c)")
                case .setDefault(let t, let c, _), .setDatabaseDefault(let t, let c, _):
                    return rebuild(t, "default of \(c)")
                default: return rebuild(change.table, "\(change)")
                }
            }
            return statements.map { $0 + ";" }
        }
    }

    /// The plan as Swift source: a ``Migration`` named `name` to paste into the project.
    public func swiftSource(name: String, variable: String = "migration") -> String {
        var out = "let \(variable) = Migration(\(Self.literal(name))) { up in\n"
        for planned in changes {
            if planned.isDestructive { out += "    // DESTRUCTIVE\n" }
            out += "    up.change(\(Self.swift(planned.change)))\n"
        }
        return out + "}\n"
    }

    static func literal(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if scalar.value < 0x20 {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func swift(_ v: DatabaseValue?) -> String {
        guard let v else { return "nil" }
        switch v {
        case .null: return ".null"
        case .bool(let b): return ".bool(\(b))"
        case .integer(let i): return ".integer(\(i))"
        case .double(let d): return ".double(\(d))"
        case .text(let s): return ".text(\(literal(s)))"
        case .json(let s): return ".json(\(literal(s)))"
        case .decimal(let d): return ".decimal(Decimal(string: \(literal("\(d)")))!)"
        case .uuid(let u): return ".uuid(UUID(uuidString: \(literal(u.uuidString)))!)"
        case .date(let d): return ".date(Date(timeIntervalSince1970: \(d.timeIntervalSince1970)))"
        case .blob(let b): return ".blob(Data(\(Array(b))))"
        }
    }

    static func swift(_ c: TableColumn) -> String {
        "TableColumn(name: \(literal(c.name)), type: .\(c.type.rawValue), isNullable: \(c.isNullable)"
            + (c.isPrimaryKey ? ", isPrimaryKey: true" : "")
            + (c.schemaDefault.map { ", schemaDefault: \(swift($0))" } ?? "")
            + (c.backfill != nil && c.backfill != c.schemaDefault ? ", backfill: \(swift(c.backfill))" : "") + ")"
    }

    static func swift(_ i: Index) -> String {
        "Index(columns: [\(i.columns.map(literal).joined(separator: ", "))], unique: \(i.isUnique)"
            + (i.name.map { ", name: \(literal($0))" } ?? "") + ")"
    }

    static func swift(_ k: ForeignKey) -> String {
        if k.isComposite {
            return "ForeignKey(columns: [\(k.columns.map(literal).joined(separator: ", "))], references: "
                + "\(literal(k.referencedTable)), columns: [\(k.referencedColumns.map(literal).joined(separator: ", "))], "
                + "onDelete: .\(actionName(k.onDelete)))"
        }
        return "ForeignKey(column: \(literal(k.column)), references: \(literal(k.referencedTable)), "
            + "column: \(literal(k.referencedColumn)), onDelete: .\(actionName(k.onDelete)))"
    }

    static func actionName(_ a: ForeignKey.Action) -> String {
        switch a {
        case .noAction: return "noAction"
        case .restrict: return "restrict"
        case .cascade: return "cascade"
        case .setNull: return "setNull"
        }
    }

    static func swift(_ change: SchemaChange) -> String {
        switch change {
        case .createTable(let t):
            return ".createTable(TableSchema(name: \(literal(t.name)), columns: ["
                + t.columns.map(swift).joined(separator: ", ") + "], indexes: ["
                + t.indexes.map(swift).joined(separator: ", ") + "], foreignKeys: ["
                + t.foreignKeys.map(swift).joined(separator: ", ") + "]))"
        case .dropTable(let t): return ".dropTable(\(literal(t)))"
        case .renameTable(let t, let to): return ".renameTable(\(literal(t)), to: \(literal(to)))"
        case .addColumn(let t, let c): return ".addColumn(table: \(literal(t)), \(swift(c)))"
        case .dropColumn(let t, let c): return ".dropColumn(table: \(literal(t)), column: \(literal(c)))"
        case .renameColumn(let t, let c, let to):
            return ".renameColumn(table: \(literal(t)), column: \(literal(c)), to: \(literal(to)))"
        case .alterColumn(let t, let c, let type, let nullable, let fill):
            return ".alterColumn(table: \(literal(t)), column: \(literal(c)), type: .\(type.rawValue), "
                + "nullable: \(nullable), fill: \(swift(fill)))"
        case .addIndex(let t, let i): return ".addIndex(table: \(literal(t)), \(swift(i)))"
        case .dropIndex(let t, let n): return ".dropIndex(table: \(literal(t)), name: \(literal(n)))"
        case .addForeignKey(let t, let k): return ".addForeignKey(table: \(literal(t)), \(swift(k)))"
        case .dropForeignKey(let t, let c): return ".dropForeignKey(table: \(literal(t)), column: \(literal(c)))"
        case .setDefault(let t, let c, let value):
            return ".setDefault(table: \(literal(t)), column: \(literal(c)), to: \(swift(value)))"
        case .setDatabaseDefault(let t, let c, let value):
            return ".setDatabaseDefault(table: \(literal(t)), column: \(literal(c)), to: "
                + (value.map { ".\($0)" } ?? "nil") + ")"
        }
    }
}
