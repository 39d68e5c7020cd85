// Cases+Introspect: the live schema read back as one value, and the diff of models against it.
import Foundation
import Strata

extension ConformanceSuite {
    static let introspectCases: [ConformanceCase] = [
        VersionedFixtures.case("introspect.columns-types-nullability-primary-key") { db in
            try await VersionedFixtures.seed(db)
            let item = try await VersionedFixtures.schema(db)[table: "ver_item"]
            try checkEqual(item?.columns.map(\.name), VersionedFixtures.itemColumns, "columns in order")
            try checkEqual(
                item?.columns.map(\.isNullable), [true, false, true, true, true, true],
                "nullability (the key counts as nullable)")
            try checkEqual(item?.columns.map(\.isPrimaryKey), [true, false, false, false, false, false], "primary key")
            try checkEqual(
                item?.columns.map(\.type), [.integer, .text, .text, .integer, .double, .integer], "types")
        },
        VersionedFixtures.case("introspect.defaults") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([
                Migration("002") { up in
                    up.addColumn("stock", .integer, default: .integer(7), to: "ver_item")
                    up.addColumn("label", .text, default: .text("it's"), to: "ver_item")
                    up.addColumn("ratio", .double, default: .double(0.5), to: "ver_item")
                }
            ])
            let item = try await VersionedFixtures.schema(db)[table: "ver_item"]
            try checkEqual(item?.column(named: "stock")?.schemaDefault, .integer(7), "integer default")
            try checkEqual(item?.column(named: "label")?.schemaDefault, .text("it's"), "text default, quote kept")
            try checkEqual(item?.column(named: "ratio")?.schemaDefault, .double(0.5), "double default")
            try checkEqual(item?.column(named: "title")?.schemaDefault, nil, "no default")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", ["stock", "label"]).first,
                [.integer(7), .text("it's")],
                "existing rows filled")
        },
        VersionedFixtures.case("introspect.indexes-and-foreign-keys") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([
                Migration("002") { up in
                    up.addIndex(on: "ver_item", ["title", "qty"], unique: true, name: "ver_item_pair")
                    up.dropForeignKey(on: "owner_id", of: "ver_item")
                    up.addForeignKey(
                        ForeignKey(column: "owner_id", references: "ver_owner", onDelete: .cascade), to: "ver_item")
                }
            ])
            let item = try await VersionedFixtures.schema(db)[table: "ver_item"]
            let pair = item?.indexes.first { $0.name == "ver_item_pair" }
            try checkEqual(pair?.columns, ["title", "qty"], "index columns in order")
            try checkEqual(pair?.isUnique, true, "unique")
            try checkEqual(item?.indexes.first { $0.columns == ["code"] }?.isUnique, false, "plain index")
            try checkEqual(
                item?.foreignKeys,
                [ForeignKey(column: "owner_id", references: "ver_owner", column: "id", onDelete: .cascade)],
                "foreign key with its action")
            try checkEqual(
                try await VersionedFixtures.schema(db)[table: "ver_owner"]?.foreignKeys, [], "none on the parent")
        },
        VersionedFixtures.case("introspect.tables-listed-and-missing-absent") { db in
            try await VersionedFixtures.seed(db)
            let schema = try await VersionedFixtures.schema(db)
            try check(
                schema.tableNames.contains("ver_item") && schema.tableNames.contains("ver_owner"), "tables listed")
            try check(schema.tableNames.contains("strata_migrations"), "the migration log is a table too")
            try checkEqual(schema[table: "ver_nothing"], nil, "no such table")
            try checkEqual(schema.tableNames, schema.tableNames.sorted(), "sorted by name")
        },
        VersionedFixtures.case("diff.matching-models-plan-nothing") { db in
            try await db.migrate(VerWidgetV2.self)
            let plan = try await db.withConnection { tx in try tx.plan([VerWidgetV2.self]) }
            try check(plan.isEmpty, "nothing to do, got \(plan)")
        },
        VersionedFixtures.case("diff.missing-table-planned") { db in
            let plan = try await db.withConnection { tx in try tx.plan([VerWidgetV1.self]) }
            try checkEqual(plan.changes.count, 1, "one change")
            if case .createTable(let t) = plan.changes.first?.change {
                try checkEqual(t.name, "ver_widget", "creates the table")
            } else {
                throw ConformanceFailure(description: "expected a create table, got \(plan)")
            }
            try check(!plan.isDestructive, "creating is not destructive")
        },
        VersionedFixtures.case("diff.added-properties-planned-and-applied") { db in
            try await db.migrate(VerWidgetV1.self)
            var w = VerWidgetV1(name: "kept")
            try await w.save(on: db)
            let plan = try await db.withConnection { tx in try tx.plan([VerWidgetV2.self]) }
            try checkEqual(
                plan.changes.map(\.description),
                [
                    "add column ver_widget.color text", "add column ver_widget.count integer not null default 0",
                    "add unique index ver_widget_name_key on ver_widget(name)",
                ], "columns and index to add")
            try check(!plan.isDestructive, "additions are not destructive")
            try await db.migrate([plan.migration(named: "002_widget_v2")])
            let after = try await db.withConnection { tx in try tx.plan([VerWidgetV2.self]) }
            try check(after.isEmpty, "applied: nothing left, got \(after)")
            try checkEqual(try await VerWidgetV2.query(on: db).all().map(\.count), [0], "old row filled")
        },
        VersionedFixtures.case("diff.removed-property-is-destructive") { db in
            try await db.migrate(VerWidgetV2.self)
            let plan = try await db.withConnection { tx in try tx.plan([VerWidgetV1.self]) }
            let drops = plan.changes.filter(\.isDestructive).map(\.change)
            try checkEqual(
                drops,
                [.dropColumn(table: "ver_widget", column: "color"), .dropColumn(table: "ver_widget", column: "count")],
                "dropped columns flagged destructive")
            try check(plan.description.contains("DESTRUCTIVE drop column ver_widget.color"), "printed as destructive")
            try check(
                plan.changes.contains { $0.change == .dropIndex(table: "ver_widget", name: "ver_widget_name_key") },
                "the index the model no longer declares is dropped")
        },
        VersionedFixtures.case("diff.type-change-is-destructive") { db in
            try await VersionedFixtures.seed(db)
            let plan = try await db.withConnection { tx in try tx.plan([VerItem.self]) }
            try check(!plan.changes.contains { $0.change.table != "ver_item" }, "only the model's table")
            try check(
                plan.changes.contains { $0.change == .dropForeignKey(table: "ver_item", column: "owner_id") },
                "the foreign key the model does not declare is dropped")
            try checkEqual(plan.changes.filter(\.isDestructive).count, 0, "same types: nothing destructive")
            try await db.migrate([Migration("002") { $0.alterColumn("qty", in: "ver_item", to: .text, nullable: true) }]
            )
            let retyped = try await db.withConnection { tx in try tx.plan([VerItem.self]) }
            try check(
                retyped.changes.contains {
                    $0.isDestructive
                        && $0.change
                            == .alterColumn(table: "ver_item", column: "qty", type: .integer, nullable: true, fill: nil)
                }, "a type change back to the model is destructive: \(retyped)")
        },
    ]
}
