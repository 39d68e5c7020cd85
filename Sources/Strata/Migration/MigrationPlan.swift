// MigrationPlan: the changes that bring the live schema to the models, flagged when they destroy data.

/// One change of a plan.
public struct PlannedChange: Sendable, Hashable, CustomStringConvertible {
    /// The change.
    public var change: SchemaChange
    /// Whether it drops or rewrites data (a dropped table or column, a type change, NULLs filled).
    public var isDestructive: Bool

    /// A change, flagged or not as destructive.
    public init(change: SchemaChange, isDestructive: Bool) {
        self.change = change
        self.isDestructive = isDestructive
    }

    /// The change on one line, prefixed `DESTRUCTIVE` when it is.
    public var description: String { (isDestructive ? "DESTRUCTIVE " : "") + change.description }
}

/// The difference between the models and the live schema, as the changes that would bring the schema to them.
///
/// ```swift
/// let plan = try await db.withConnection { tx in try tx.plan([User.self, Group.self]) }
/// print(plan)                                        // one line per change, destructive ones flagged
/// print(plan.sql(dialect: PostgresDialect()))        // the DDL, per dialect
/// print(plan.swiftSource(name: "003_user_email"))    // a Migration to paste into the project
/// ```
public struct MigrationPlan: Sendable, Hashable, CustomStringConvertible {
    /// The changes, in the order they apply (referenced tables first).
    public var changes: [PlannedChange]

    /// A plan of these changes.
    public init(changes: [PlannedChange]) { self.changes = changes }

    /// Whether the schema already matches.
    public var isEmpty: Bool { changes.isEmpty }
    /// Whether any change destroys or rewrites data.
    public var isDestructive: Bool { changes.contains(where: \.isDestructive) }

    /// One change per line, destructive ones flagged, then a count.
    public var description: String {
        if changes.isEmpty { return "the schema matches the models: nothing to do" }
        let destructive = changes.filter(\.isDestructive).count
        return changes.map { "  " + $0.description }.joined(separator: "\n")
            + "\n\(changes.count) change(s), \(destructive) destructive"
    }

    /// Computes the plan: tables of `models` (and the models their associations need) that are missing, columns
    /// to add, drop, retype or change in nullability or constant default (see ``ColumnDefault``), indexes and
    /// foreign keys to add or drop. Tables no model
    /// names are left alone unless `dropUnknownTables` (never Strata's own tables, `strata_migrations` and the change
    /// history's, nor the tables of tools that share the file, named in ``toolTablePrefixes``).
    ///
    /// - Parameters:
    ///   - models: the models the app declares; their associations' tables are included.
    ///   - live: the database's schema as introspected (see ``DatabaseSchema``).
    ///   - dropUnknownTables: whether tables no model names are planned for removal (destructive).
    ///   - storesAlike: whether the backend stores two types alike (see ``SchemaEditing/storesAlike(_:_:)``).
    public static func diff(
        models: [any Model.Type], live: DatabaseSchema, dropUnknownTables: Bool = false,
        storesAlike: (ColumnType, ColumnType) -> Bool = { $0 == $1 }
    ) -> MigrationPlan {
        let schemas = Transaction.referencedFirst(
            Transaction.followingAssociations(models).map(Transaction.plannedSchema))
        var out: [PlannedChange] = []
        for model in schemas {
            guard let table = live[table: model.name] else {
                out.append(PlannedChange(change: .createTable(model), isDestructive: false))
                continue
            }
            let name = model.name
            for c in model.columns where table.column(named: c.name) == nil {
                out.append(PlannedChange(change: .addColumn(table: name, c), isDestructive: false))
            }
            for c in table.columns where model.column(named: c.name) == nil {
                out.append(PlannedChange(change: .dropColumn(table: name, column: c.name), isDestructive: true))
            }
            for c in model.columns where !c.isPrimaryKey {
                guard let l = table.column(named: c.name) else { continue }
                let retyped = !storesAlike(c.type, l.type)
                // A generated column's nullability is its expression's (MariaDB cannot declare it NOT NULL).
                if retyped || (c.isNullable != l.isNullable && !(c.isGenerated && l.isGenerated)) {
                    out.append(
                        PlannedChange(
                            change: .alterColumn(
                                table: name, column: c.name, type: c.type, nullable: c.isNullable,
                                fill: c.isNullable ? nil : c.backfill),
                            isDestructive: retyped || !c.isNullable))
                }
                if let d = c.databaseDefault {
                    if !ColumnDefault.matches(d, live: l) {
                        out.append(
                            PlannedChange(
                                change: .setDatabaseDefault(table: name, column: c.name, to: d), isDestructive: false))
                    }
                } else if !ColumnDefault.matches(model: c, live: l) {
                    out.append(
                        PlannedChange(
                            change: .setDefault(table: name, column: c.name, to: c.schemaDefault), isDestructive: false)
                    )
                }
            }
            let same = { (a: Index, b: Index) in a.columns == b.columns && a.isUnique == b.isUnique }
            for i in table.indexes where !model.indexes.contains(where: { same($0, i) }) {
                out.append(PlannedChange(change: .dropIndex(table: name, name: i.name ?? ""), isDestructive: false))
            }
            for i in model.indexes where !table.indexes.contains(where: { same($0, i) }) {
                out.append(PlannedChange(change: .addIndex(table: name, i), isDestructive: false))
            }
            // The same constraint whatever order its columns are listed in (see `ForeignKey.isSameConstraint`).
            for k in table.foreignKeys where !model.foreignKeys.contains(where: { $0.isSameConstraint(as: k) }) {
                out.append(PlannedChange(change: .dropForeignKey(table: name, column: k.column), isDestructive: false))
            }
            for k in model.foreignKeys where !table.foreignKeys.contains(where: { $0.isSameConstraint(as: k) }) {
                out.append(PlannedChange(change: .addForeignKey(table: name, k), isDestructive: false))
            }
        }
        if dropUnknownTables {
            let names = Set(schemas.map(\.name))
            for t in live.tables
            where !names.contains(t.name) && !strataTables.contains(t.name)
                && !toolTablePrefixes.contains(where: t.name.hasPrefix)
            {
                out.append(PlannedChange(change: .dropTable(t.name), isDestructive: true))
            }
        }
        return MigrationPlan(changes: out)
    }

    /// The name prefixes of tables that tools beside the app keep in its database, which `dropUnknownTables` never
    /// plans to drop: Litestream's `_litestream_seq` and `_litestream_lock` (see Sharing a database between
    /// processes).
    public static let toolTablePrefixes = ["_litestream_"]

    /// Strata's own tables, which no model names and `dropUnknownTables` never drops: the migration log and the
    /// change history's tables, and the migration lock's row on an engine without advisory locks (CockroachDB).
    static let strataTables: Set<String> = [
        MigrationLog.table, HistoryLog.table, HistoryLog.clock, "strata_migration_lock",
    ]

    /// The plan as a versioned ``Migration`` (its `up`; no `down`).
    public func migration(named name: String) -> Migration {
        Migration(name, up: changes.map { .schema($0.change) })
    }
}

extension Transaction {
    /// The plan that brings the live schema to `models` (see ``MigrationPlan/diff(models:live:dropUnknownTables:storesAlike:)``).
    public func plan(_ models: [any Model.Type], dropUnknownTables: Bool = false) throws -> MigrationPlan {
        let editor = try schemaEditor()
        return MigrationPlan.diff(
            models: models, live: try editor.introspect(), dropUnknownTables: dropUnknownTables,
            storesAlike: editor.storesAlike)
    }
}
