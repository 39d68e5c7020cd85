// Cases+Versioned: named steps applied in order, once, each in its own transaction, recorded with a checksum.
import Foundation
import Strata

extension ConformanceSuite {
    static let versionedCases: [ConformanceCase] = [
        VersionedFixtures.case("versioned.applies-in-order-and-records") { db in
            let second = Migration("002_tag") { up in
                up.createTable(
                    TableSchema(
                        name: "ver_tag",
                        columns: [
                            TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
                            TableColumn(name: "item_id", type: .integer, isNullable: false),
                        ], foreignKeys: [ForeignKey(column: "item_id", references: "ver_item", onDelete: .cascade)]))
            }
            let applied = try await db.migrate([VersionedFixtures.create, second])
            try checkEqual(applied, ["001_create", "002_tag"], "steps applied in order")
            let schema = try await VersionedFixtures.schema(db)
            for t in ["ver_owner", "ver_item", "ver_tag"] { try check(schema[table: t] != nil, "\(t) created") }
            let history = try await db.migrationHistory().filter { $0.kind == "versioned" }
            try checkEqual(history.map(\.name), ["001_create", "002_tag"], "recorded in order")
            try checkEqual(
                history.map(\.checksum), [VersionedFixtures.create.checksum, second.checksum], "checksums recorded")
            let status = try await db.migrationStatus([VersionedFixtures.create, second])
            try check(status.allSatisfy { $0.isApplied && !$0.isChanged }, "status: both applied, unchanged")
        },
        VersionedFixtures.case("versioned.rerun-is-noop") { db in
            try await VersionedFixtures.seed(db)
            let again = try await db.migrate([VersionedFixtures.create])
            try checkEqual(again, [], "nothing applied the second time")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns),
                VersionedFixtures.itemRows,
                "rows untouched")
            try checkEqual(try await db.migrationHistory().filter { $0.kind == "versioned" }.count, 1, "recorded once")
        },
        VersionedFixtures.case("versioned.changed-checksum-refused") { db in
            try await VersionedFixtures.seed(db)
            let edited = Migration("001_create") { up in up.createTable(VersionedFixtures.owner) }
            let before = try await VersionedFixtures.schema(db)
            try await checkThrows(
                "an applied step edited",
                {
                    if case .migrationChecksumMismatch(step: "001_create", let a, let c) = $0 {
                        return a == VersionedFixtures.create.checksum && c == edited.checksum
                    }
                    return false
                }
            ) { try await db.migrate([edited, Migration("002_more") { $0.dropTable("ver_item") }]) }
            try checkEqual(try await VersionedFixtures.schema(db), before, "nothing ran, not even the next step")
            let status = try await db.migrationStatus([edited])
            try check(status.first?.isChanged == true, "status reports the step as changed")
        },
        VersionedFixtures.case("versioned.failing-step-leaves-nothing") { db in
            try await VersionedFixtures.seed(db)
            let failing = Migration("002_half") { up in
                up.addColumn("note", .text, nullable: true, to: "ver_item")
                up.transform("write notes") { tx in
                    _ = try VerItem.query(on: tx).set(\.title, to: "changed").update()
                }
                up.renameColumn("missing", to: "other", in: "ver_item")
            }
            try await VersionedFixtures.expectRefused(db, "a step failing at its third operation", failing) {
                $0 == .unknownColumn(model: "ver_item", column: "missing")
            }
            try checkEqual(
                try await db.migrationStatus([VersionedFixtures.create]).first?.isApplied, true, "earlier step kept")
        },
        VersionedFixtures.case("versioned.failing-later-step-keeps-earlier-ones") { db in
            let good = Migration("002_good") { $0.addColumn("note", .text, nullable: true, to: "ver_item") }
            let bad = Migration("003_bad") { $0.dropColumn("missing", from: "ver_item") }
            try await checkThrows(
                "the third step fails", { $0 == .unknownColumn(model: "ver_item", column: "missing") }
            ) {
                try await db.migrate([VersionedFixtures.create, good, bad])
            }
            let status = try await db.migrationStatus([VersionedFixtures.create, good, bad]).map(\.isApplied)
            try checkEqual(status, [true, true, false], "steps before the failing one stay applied")
            try check(
                try await VersionedFixtures.schema(db)[table: "ver_item"]?.column(named: "note") != nil, "note added")
        },
        VersionedFixtures.case("versioned.down-reverts-newest-first") { db in
            let second = Migration("002_note") { up in
                up.addColumn("note", .text, nullable: true, to: "ver_item")
            } down: { down in
                down.dropColumn("note", from: "ver_item")
            }
            try await VersionedFixtures.seed(db)
            try await db.migrate([VersionedFixtures.create, second])
            let reverted = try await db.revert([VersionedFixtures.create, second])
            try checkEqual(reverted, ["002_note"], "only the newest step reverted")
            let columns = try await VersionedFixtures.schema(db)[table: "ver_item"]?.columns.map(\.name)
            try checkEqual(columns, VersionedFixtures.itemColumns, "column dropped again")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns),
                VersionedFixtures.itemRows,
                "rows survive the round trip")
            try checkEqual(
                try await db.migrationStatus([VersionedFixtures.create, second]).map(\.isApplied), [true, false],
                "record removed")
            try checkEqual(try await db.migrate([second]), ["002_note"], "applies again after a revert")
        },
        VersionedFixtures.case("versioned.missing-down-refused") { db in
            let oneWay = Migration("002_one_way") { $0.addColumn("note", .text, nullable: true, to: "ver_item") }
            try await VersionedFixtures.seed(db)
            try await db.migrate([oneWay])
            let before = try await VersionedFixtures.schema(db)
            let items = try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns + ["note"])
            try await checkThrows("revert without down", { $0 == .irreversibleMigration(step: "002_one_way") }) {
                try await db.revert([VersionedFixtures.create, oneWay], count: 2)
            }
            try checkEqual(try await VersionedFixtures.schema(db), before, "nothing reverted")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns + ["note"]), items,
                "every row as before")
            try checkEqual(
                try await db.migrationStatus([VersionedFixtures.create, oneWay]).map(\.isApplied), [true, true],
                "both still recorded")
        },
        VersionedFixtures.case("versioned.transform-with-models") { db in
            try await VersionedFixtures.seed(db)
            let step = Migration("002_fill_qty") { up in
                up.transform("qty defaults to 1") { tx in
                    for var item in try VerItem.query(on: tx).all() where item.qty == nil {
                        item.qty = 1
                        try item.save(tx)
                    }
                }
                up.alterColumn("qty", in: "ver_item", to: .integer, nullable: false)
            }
            try await db.migrate([step])
            let qty = try await VerItem.query(on: db).order(\.id).all().map(\.qty)
            try checkEqual(qty, [10, 1, 30], "the transform filled the NULL")
            try checkEqual(
                try await VersionedFixtures.schema(db)[table: "ver_item"]?.column(named: "qty")?.isNullable, false,
                "then the column became NOT NULL")
        },
        VersionedFixtures.case("versioned.transform-with-query-api-rolls-back-on-error") { db in
            try await VersionedFixtures.seed(db)
            struct Stop: Error {}
            let step = Migration("002_rename_titles") { up in
                up.transform("upper-case titles") { tx in
                    _ = try VerItem.query(on: tx).set(\.title, to: "X").update()
                    throw StrataError.invalidQuery("stop")
                }
            }
            try await VersionedFixtures.expectRefused(db, "a transform that throws", step) {
                $0 == .invalidQuery("stop")
            }
        },
        VersionedFixtures.case("versioned.duplicate-step-names-refused") { db in
            try await checkThrows(
                "two steps named alike", { if case .invalidQuery = $0 { return true } else { return false } }
            ) {
                try await db.migrate([VersionedFixtures.create, Migration("001_create") { $0.dropTable("x") }])
            }
            try checkEqual(try await VersionedFixtures.schema(db)[table: "ver_item"], nil, "nothing applied")
        },
        VersionedFixtures.case("versioned.concurrent-migrators-apply-once") { db in
            try await Fixtures.migrate(db)  // what Siblings.open probes to know a second connection sees the same data
            let many = try await Siblings.open(db, connections: 2)
            defer { many.close() }
            let runs = Counter()
            let slow = Migration("001_slow") { up in
                up.createTable(VersionedFixtures.owner)
                up.transform("take a while") { _ in
                    runs.add()
                    Thread.sleep(forTimeInterval: 0.2)
                }
            }
            let first = Siblings.onOwnThread { try await many.migrate([slow]) }
            let second = Siblings.onOwnThread { try await many.migrate([slow]) }
            let a = try await first.value
            let b = try await second.value
            try checkEqual(a.count + b.count, 1, "exactly one migrator applied the step")
            try checkEqual(runs.value, 1, "the step ran once")
            try checkEqual(try await db.migrationHistory().filter { $0.kind == "versioned" }.count, 1, "recorded once")
        },
        VersionedFixtures.case("versioned.automatic-migration-records-each-table-in-order") { db in
            try await db.migrate(VerItem.self, VerWidgetV1.self)
            let automatic = try await db.migrationHistory().filter { $0.kind == "automatic" }
            try checkEqual(automatic.map(\.name), ["ver_item", "ver_widget"], "one record a created table, in order")
            try check(automatic.first?.summary.hasPrefix("create table ver_item") == true, "first creation described")
            try check(automatic.last?.summary.hasPrefix("create table ver_widget") == true, "second creation described")
        },
        VersionedFixtures.case("versioned.failed-automatic-migration-records-what-it-left") { db in
            // ver_item is created, then ver_widget gains two columns, then its unique index fails over two equal
            // names. Where DDL is transactional nothing stays; where it commits (MariaDB) what stayed is recorded.
            try await db.migrate(VerWidgetV1.self)
            for _ in 0..<2 {
                var w = VerWidgetV1(name: "same")
                try await w.save(on: db)
            }
            let before = try await db.migrationHistory().count
            try await checkThrows("a unique index over equal names", { _ in true }) {
                try await db.migrate(VerItem.self, VerWidgetV2.self)
            }
            let history = try await db.migrationHistory().filter { $0.kind == "automatic" }
            let (item, widget) = try await db.withConnection { tx in
                (try tx.columns(of: "ver_item"), try tx.columns(of: "ver_widget"))
            }
            try checkEqual(
                item != nil, history.contains { $0.name == "ver_item" }, "ver_item exists exactly when recorded")
            try checkEqual(
                widget?.contains("color") == true,
                history.contains { $0.name == "ver_widget" && $0.summary.contains("add column ver_widget.color") },
                "the added column exists exactly when recorded")
            try check(try await db.migrationHistory().count >= before, "no record lost")
            try checkEqual(
                try await VerWidgetV1.query(on: db).order(\.id).all().map(\.name), ["same", "same"], "rows kept")
        },
        VersionedFixtures.case("versioned.automatic-migration-recorded") { db in
            try await db.migrate(VerWidgetV1.self)
            try await db.migrate(VerWidgetV2.self)
            let recorded = try await db.migrationHistory().filter { $0.kind == "automatic" && $0.name == "ver_widget" }
            try await db.migrate(VerWidgetV2.self)
            let automatic = try await db.migrationHistory().filter { $0.kind == "automatic" && $0.name == "ver_widget" }
            try checkEqual(automatic.count, recorded.count, "nothing recorded for the no-op")
            try check(automatic.first?.summary.hasPrefix("create table ver_widget") == true, "creation described")
            // One record for the added columns where DDL is transactional; one a statement where each commits.
            let added = automatic.dropFirst().map(\.summary).joined(separator: "\n")
            try check(automatic.count >= 2, "the added columns recorded after the creation")
            try check(
                added.contains("add column ver_widget.color") && added.contains("add column ver_widget.count"),
                "added columns described")
            try await checkThrows("migrate=off", { if case .schemaMismatch = $0 { return true } else { return false } })
            {
                try await db.withConnection { tx in try tx.migrate([VerItem.self], policy: .disabled) }
            }
            let after = try await db.migrationHistory().filter { $0.kind == "automatic" && $0.name == "ver_item" }
            try checkEqual(after.count, 0, "nothing recorded with migration off")
        },
    ]
}
