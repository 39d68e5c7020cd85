// Cases+ModelsUnderMigration: what `strata fuzz-migrations` found once it wrote through models and ran transforms
// between and inside steps, each pinned on every driver: a model over a column a step retyped, a value of another
// type written by hand, and foreign keys in a step's transform.
import Foundation
import Strata

/// `ver_tag` with a cascading key to `ver_item`, as ``VersionedFixtures/seedTags(_:)`` creates it.
private let cascadingTags = TableSchema(
    name: "ver_tag",
    columns: [
        TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
        TableColumn(name: "item_id", type: .integer, isNullable: false),
    ], foreignKeys: [ForeignKey(column: "item_id", references: "ver_item", onDelete: .cascade)])

extension VersionedFixtures {
    /// `seed`, then `ver_tag` (cascading from `ver_item`) with tags 1 and 2 on item 1, tag 3 on item 2.
    static func seedTags(_ db: Database) async throws {
        try await seed(db)
        try await db.migrate([Migration("002_tags") { $0.createTable(cascadingTags) }])
        try await db.withConnection { tx in
            _ = try tx.execute(
                .insert(
                    Insert(
                        table: "ver_tag", columns: ["id", "item_id"],
                        rows: [[.integer(1), .integer(1)], [.integer(2), .integer(1)], [.integer(3), .integer(2)]])))
        }
    }

    /// The step that makes `ver_item.qty` text.
    static let qtyAsText = Migration("003_qty_text") {
        $0.alterColumn("qty", in: "ver_item", to: .text, nullable: true)
    }
}

extension ConformanceSuite {
    static let modelsUnderMigrationCases: [ConformanceCase] = [
        VersionedFixtures.case("persistence.save-to-retyped-column-refused") { db in
            // Found on memory, which refused the model's integer where SQLite stored it as text and PostgreSQL cast
            // it: the value of another type is refused before any driver, the model and the rows as they were.
            try await VersionedFixtures.seed(db)
            try await db.migrate([VersionedFixtures.qtyAsText])
            var item = VerItem(title: "d", code: nil, qty: 5, price: nil, ownerID: nil)
            try await checkThrows("save of an Int into the text column qty", Self.isTypeMismatch("ver_item", "qty")) {
                try await item.save(on: db)
            }
            try check(item.id == nil, "the model keeps no id")
            try checkEqual(try await VersionedFixtures.rows(db, "ver_item", ["id"]).count, 3, "no row written")
        },
        VersionedFixtures.case("persistence.read-of-retyped-column-refused") { db in
            // Found on SQLite, which read a bool column's 0 into a Double property where memory and PostgreSQL
            // failed to: a number property over a bool column is refused, its finds and queries alike.
            try await VersionedFixtures.seed(db)
            try await db.withConnection { tx in
                _ = try tx.execute(
                    .update(
                        Update(
                            table: "ver_item", assignments: [Assignment("qty", .integer(1))],
                            filter: .isNull(.column("qty"), negated: true))))
            }
            try await db.migrate([
                Migration("003_qty_bool") { $0.alterColumn("qty", in: "ver_item", to: .bool, nullable: true) }
            ])
            try await checkThrows("find of a model whose Int qty is now bool", Self.isTypeMismatch("ver_item", "qty")) {
                try await VerItem.find(1, on: db)
            }
            try await checkThrows("a query of it", Self.isTypeMismatch("ver_item", "qty")) {
                try await db.withConnection { tx in try VerItem.query(on: tx).all() }
            }
            try await checkThrows("a query of it outside a transaction", Self.isTypeMismatch("ver_item", "qty")) {
                try await VerItem.query(on: db).all()
            }
        },
        VersionedFixtures.case("persistence.text-read-of-retyped-decimal-column-refused") { db in
            // Found on SQLite, which stores a decimal as text and read it into a String property where memory and
            // PostgreSQL hand back a decimal the property cannot read: refused on every driver, before the query.
            try await VersionedFixtures.seed(db)
            try await db.migrate([
                Migration("003_code_decimal") { $0.alterColumn("code", in: "ver_item", to: .decimal, nullable: true) }
            ])
            try await checkThrows(
                "find of a model whose String code is now decimal", Self.isTypeMismatch("ver_item", "code")
            ) {
                try await VerItem.find(1, on: db)
            }
            try await checkThrows("a query of it", Self.isTypeMismatch("ver_item", "code")) {
                try await VerItem.query(on: db).all()
            }
        },
        VersionedFixtures.case("persistence.model-types-restored-after-failed-step") { db in
            // What Strata knows of a table follows a step's changes and is put back when the step rolls back: the
            // model still reads and writes its table as it is.
            try await VersionedFixtures.seed(db)
            let failing = Migration("003_qty_text_then_fail") {
                $0.alterColumn("qty", in: "ver_item", to: .text, nullable: true)
                $0.transform("fails") { _ in throw StrataError.invalidQuery("the transform refuses") }
            }
            try await checkThrows("a step whose transform throws", { _ in true }) { try await db.migrate([failing]) }
            let live = try await VersionedFixtures.schema(db)[table: "ver_item"]?.column(named: "qty")?.type
            var item = VerItem(id: 4, title: "d", code: nil, qty: 5, price: nil, ownerID: nil)
            if live == .text {
                // Where each DDL statement commits (MariaDB, CockroachDB), the retype stays, and Strata knows it.
                try await checkThrows(
                    "save of an Int into the retype that stayed", Self.isTypeMismatch("ver_item", "qty")
                ) {
                    try await item.save(on: db)
                }
                return
            }
            try checkEqual(live, .integer, "qty is still an integer")
            // The seed's rows took ids 1–3 by hand (PostgreSQL's sequence did not move): this one is given its own.
            try await item.save(on: db)
            try checkEqual(try await VerItem.find(4, on: db)?.qty, 5, "the model saves")
            try checkEqual(try await VerItem.find(1, on: db)?.qty, 10, "and reads")
        },
        VersionedFixtures.case("write.insert-all-and-upsert-to-retyped-column-refused") { db in
            // The bulk and upsert paths of `persistence.save-to-retyped-column-refused`: their statements skip the
            // core's statement check (templates), so their binds are checked on their own. Refused before any
            // driver, the models and the rows as they were.
            try await VersionedFixtures.seed(db)
            try await db.migrate([VersionedFixtures.qtyAsText])
            let rows = try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns)
            var items = [
                VerItem(title: "d", code: nil, qty: nil, price: 1, ownerID: nil),
                VerItem(title: "e", code: nil, qty: 5, price: nil, ownerID: nil),
            ]
            try await checkThrows(
                "insertAll with an Int in the text column qty", Self.isTypeMismatch("ver_item", "qty")
            ) {
                try await VerItem.insertAll(&items, on: db)
            }
            try checkEqual(items.map(\.id), [nil, nil], "the models keep no ids")
            try checkEqual(items.map(\.qty), [nil, 5], "nor other values")
            // An upsert, on a model whose key the app gives (an auto-increment key is no conflict target).
            try await OwnKeyWorld.reset(db)
            var kept = ConfKeyedLabel(id: "k1", slug: "one", text: "one", uses: 1)
            try await kept.save(on: db)
            try await db.migrate([
                Migration("conf_keyed_label_uses_text") {
                    $0.alterColumn("uses", in: "conf_keyed_label", to: .text, nullable: false)
                }
            ])
            let labels = try await VersionedFixtures.rows(db, "conf_keyed_label", ["id", "slug", "text", "uses"])
            var fresh = ConfKeyedLabel(id: "k2", slug: "two", text: "two", uses: 2)
            try await checkThrows("upsert of a new row", Self.isTypeMismatch("conf_keyed_label", "uses")) {
                try await fresh.upsert(on: db, onConflict: \.id)
            }
            var existing = ConfKeyedLabel(id: "k1", slug: "one", text: "uno", uses: 3)
            try await checkThrows("upsert over k1", Self.isTypeMismatch("conf_keyed_label", "uses")) {
                try await existing.upsert(on: db, onConflict: \.id)
            }
            try checkEqual([fresh.id, existing.id], ["k2", "k1"], "the upserted models keep their keys")
            try checkEqual([fresh.uses, existing.uses], [2, 3], "and their values")
            try checkEqual(
                try await VersionedFixtures.rows(db, "conf_keyed_label", ["id", "slug", "text", "uses"]), labels,
                "the labels as before")
            try await db.withConnection { tx in try tx.dropTable("conf_keyed_label") }
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns), rows, "rows as before")
        },
        VersionedFixtures.case("write.value-of-another-type-refused") { db in
            // An UPDATE or INSERT built by hand with a value of another type than its column's: SQLite would store
            // it (text as text, an integer in a text column as text), PostgreSQL cast it, memory refused it.
            try await VersionedFixtures.seed(db)
            let rows = try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns)
            try await checkThrows("qty (integer) set to text", Self.isTypeMismatch("ver_item", "qty")) {
                try await db.withConnection { tx in
                    try tx.execute(
                        .update(Update(table: "ver_item", assignments: [Assignment("qty", .text("5"))], filter: nil)))
                }
            }
            try await checkThrows("a title (text) inserted as an integer", Self.isTypeMismatch("ver_item", "title")) {
                try await db.withConnection { tx in
                    try tx.execute(.insert(Insert(table: "ver_item", columns: ["title"], rows: [[.integer(4)]])))
                }
            }
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns), rows, "rows as before")
            // An integer in a double column is a double.
            try await db.withConnection { tx in
                _ = try tx.execute(
                    .update(
                        Update(
                            table: "ver_item", assignments: [Assignment("price", .integer(4))],
                            filter: .compare(.equal, .column("id"), .value(.integer(3))))))
            }
            let price = try await VersionedFixtures.rows(db, "ver_item", ["id", "price"]).last?.last
            try checkEqual(price, .double(4), "an integer stored in price reads back as a double")
        },
        VersionedFixtures.case("load.value-of-another-type-refused") { db in
            // Found on PostgreSQL, whose COPY refused the value as invalidValue where the others' INSERT was a
            // typeMismatch: load refuses it alike, naming the column and the row, before any row is written.
            try await VersionedFixtures.seed(db)
            try await db.migrate([VersionedFixtures.qtyAsText])
            let items = [
                VerItem(title: "d", code: nil, qty: nil, price: nil, ownerID: nil),
                VerItem(title: "e", code: nil, qty: 7, price: nil, ownerID: nil),
            ]
            try await checkThrows(
                "load of an Int into the text column qty",
                { e in
                    guard case .invalidValue(let table, let column, let reason) = e else { return false }
                    return table == "ver_item" && column == "qty" && reason.hasPrefix("row 1")
                }
            ) { try await VerItem.load(items, on: db) }
            try checkEqual(try await VersionedFixtures.rows(db, "ver_item", ["id"]).count, 3, "no row written")
        },
        VersionedFixtures.case("migrate.transform-delete-runs-on-delete-actions") { db in
            // Found on SQLite, whose step turns foreign keys off for its table rebuilds: a transform's delete left
            // the children its parent's ON DELETE CASCADE deletes elsewhere, and the step failed at its end.
            try await VersionedFixtures.seedTags(db)
            try await db.migrate([
                Migration("003_drop_item_one") {
                    $0.alterColumn("code", in: "ver_item", to: .text, nullable: false, fill: .text("none"))
                    $0.transform("delete item 1") { tx in
                        _ = try tx.execute(
                            .delete(
                                Delete(table: "ver_item", filter: .compare(.equal, .column("id"), .value(.integer(1)))))
                        )
                    }
                }
            ])
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_tag", ["id", "item_id"]), [[.integer(3), .integer(2)]],
                "item 1's tags deleted with it")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", ["id"]), [[.integer(2)], [.integer(3)]], "items left")
        },
        VersionedFixtures.case("migrate.transform-orphan-write-refused") { db in
            // Found on SQLite: a transform's key to no row passed when the step dropped the key after it; it is
            // refused where it is written, as on the other drivers, and the step changes nothing.
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "owner_id set to 99, then its foreign key dropped",
                Migration("003_orphan") {
                    $0.transform("orphan") { tx in
                        _ = try tx.execute(
                            .update(
                                Update(
                                    table: "ver_item", assignments: [Assignment("owner_id", .integer(99))], filter: nil)
                            ))
                    }
                    $0.dropForeignKey(on: "owner_id", of: "ver_item")
                }
            ) { e in
                if case .foreignKeyViolation = e { return true }
                return false
            }
        },
    ]
}
