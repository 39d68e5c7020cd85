// Cases+Alter: each schema operation inside a step, on populated tables: every row and other column survives.
import Foundation
import Strata

extension ConformanceSuite {
    static let alterCases: [ConformanceCase] = [
        VersionedFixtures.case("alter.add-column-fills-rows") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([
                Migration("002") { $0.addColumn("stock", .integer, fill: .integer(5), to: "ver_item") }
            ])
            let rows = try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns + ["stock"])
            try checkEqual(rows, VersionedFixtures.itemRows.map { $0 + [.integer(5)] }, "rows kept, new column filled")
        },
        VersionedFixtures.case("alter.add-required-column-without-fill-refused") { db in
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "NOT NULL column without a fill",
                Migration("002") { $0.addColumn("stock", .integer, to: "ver_item") }
            ) { $0 == .notNullViolation(table: "ver_item", column: "stock") }
        },
        VersionedFixtures.case("alter.drop-column-keeps-rows-and-other-columns") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([Migration("002") { $0.dropColumn("price", from: "ver_item") }])
            let columns = VersionedFixtures.itemColumns.filter { $0 != "price" }
            try checkEqual(
                try await VersionedFixtures.schema(db)[table: "ver_item"]?.columns.map(\.name), columns, "price gone")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", columns), VersionedFixtures.itemRows(without: "price"),
                "every row and other column kept")
            let item = try await VersionedFixtures.schema(db)[table: "ver_item"]
            try checkEqual(item?.foreignKeys.map(\.column), ["owner_id"], "foreign key kept")
            try checkEqual(item?.indexes.map(\.columns), [["code"]], "index kept")
        },
        VersionedFixtures.case("alter.drop-indexed-column-drops-its-index") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([Migration("002") { $0.dropColumn("code", from: "ver_item") }])
            let item = try await VersionedFixtures.schema(db)[table: "ver_item"]
            try checkEqual(item?.indexes.count, 0, "the index on code went with it")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns.filter { $0 != "code" }),
                VersionedFixtures.itemRows(without: "code"), "rows kept")
        },
        VersionedFixtures.case("alter.drop-foreign-key-column") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([Migration("002") { $0.dropColumn("owner_id", from: "ver_item") }])
            let item = try await VersionedFixtures.schema(db)[table: "ver_item"]
            try checkEqual(item?.foreignKeys.count, 0, "its foreign key went with it")
            try checkEqual(
                try await VersionedFixtures.rows(
                    db, "ver_item", VersionedFixtures.itemColumns.filter { $0 != "owner_id" }),
                VersionedFixtures.itemRows(without: "owner_id"), "rows kept")
        },
        VersionedFixtures.case("alter.rename-column-keeps-values-and-index") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([Migration("002") { $0.renameColumn("code", to: "sku", in: "ver_item") }])
            let renamed = VersionedFixtures.itemColumns.map { $0 == "code" ? "sku" : $0 }
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", renamed), VersionedFixtures.itemRows, "values follow")
            let item = try await VersionedFixtures.schema(db)[table: "ver_item"]
            try checkEqual(item?.columns.map(\.name), renamed, "column order kept")
            try checkEqual(item?.indexes.map(\.columns), [["sku"]], "index follows the column")
        },
        VersionedFixtures.case("alter.rename-missing-column-refused") { db in
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "renaming a column that does not exist",
                Migration("002") { $0.renameColumn("nope", to: "other", in: "ver_item") }
            ) { $0 == .unknownColumn(model: "ver_item", column: "nope") }
        },
        VersionedFixtures.case("alter.rename-onto-existing-column-refused") { db in
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "renaming onto a taken name",
                Migration("002") { $0.renameColumn("code", to: "title", in: "ver_item") }
            ) { if case .invalidQuery = $0 { return true } else { return false } }
        },
        VersionedFixtures.case("alter.rename-table-keeps-rows-and-references") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([Migration("002") { $0.renameTable("ver_owner", to: "ver_person") }])
            let schema = try await VersionedFixtures.schema(db)
            try checkEqual(schema[table: "ver_owner"], nil, "old name gone")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_person", ["id", "name"]),
                [[.integer(1), .text("ann")], [.integer(2), .text("bo")]], "rows kept")
            try checkEqual(
                schema[table: "ver_item"]?.foreignKeys.map(\.referencedTable), ["ver_person"], "foreign key follows")
            try await checkThrows(
                "an orphan after the rename",
                { if case .foreignKeyViolation = $0 { return true } else { return false } }
            ) {
                try await db.withConnection { tx in
                    _ = try tx.execute(
                        .insert(
                            Insert(
                                table: "ver_item", columns: ["id", "title", "owner_id"],
                                rows: [[.integer(9), .text("z"), .integer(99)]])))
                }
            }
        },
        VersionedFixtures.case("alter.change-type-text-to-integer") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([
                Migration("002") { $0.alterColumn("code", in: "ver_item", to: .integer, nullable: true) }
            ])
            let item = try await VersionedFixtures.schema(db)[table: "ver_item"]
            try checkEqual(item?.column(named: "code")?.type, .integer, "code is an integer now")
            try checkEqual(item?.indexes.map(\.columns), [["code"]], "its index re-created")
            let codes = try await VersionedFixtures.rows(db, "ver_item", ["code"]).map { $0[0] }
            try checkEqual(codes, [.integer(1), .integer(22), .null], "values converted")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns.filter { $0 != "code" }),
                VersionedFixtures.itemRows(without: "code"), "other columns kept")
        },
        VersionedFixtures.case("alter.change-type-unconvertible-refused") { db in
            try await VersionedFixtures.seed(db)
            try await db.withConnection { tx in
                _ = try tx.execute(
                    .update(
                        Update(
                            table: "ver_item", assignments: [Assignment("code", .text("abc"))],
                            filter: .compare(.equal, .column("id"), .value(.integer(3))))))
            }
            try await VersionedFixtures.expectRefused(
                db, "text abc to integer",
                Migration("002") { $0.alterColumn("code", in: "ver_item", to: .integer, nullable: true) }
            ) { if case .typeMismatch(table: "ver_item", column: "code", _) = $0 { return true } else { return false } }
        },
        VersionedFixtures.case("alter.change-type-integer-to-text") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([Migration("002") { $0.alterColumn("qty", in: "ver_item", to: .text, nullable: true) }]
            )
            let qty = try await VersionedFixtures.rows(db, "ver_item", ["qty"]).map { $0[0] }
            try checkEqual(qty, [.text("10"), .null, .text("30")], "integers as text")
        },
        VersionedFixtures.case("alter.change-type-double-to-integer-needs-whole-numbers") { db in
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "1.5 to integer",
                Migration("002") { $0.alterColumn("price", in: "ver_item", to: .integer, nullable: true) }
            ) {
                if case .typeMismatch(table: "ver_item", column: "price", _) = $0 { return true } else { return false }
            }
        },
        VersionedFixtures.case("alter.set-not-null-with-fill") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([
                Migration("002") {
                    $0.alterColumn("qty", in: "ver_item", to: .integer, nullable: false, fill: .integer(0))
                }
            ])
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", ["qty"]).map { $0[0] },
                [.integer(10), .integer(0), .integer(30)],
                "NULL filled")
            try await checkThrows(
                "NULL after NOT NULL", { if case .notNullViolation = $0 { return true } else { return false } }
            ) {
                try await db.withConnection { tx in
                    _ = try tx.execute(
                        .insert(
                            Insert(
                                table: "ver_item", columns: ["id", "title", "qty"],
                                rows: [[.integer(9), .text("z"), .null]])))
                }
            }
        },
        VersionedFixtures.case("alter.set-not-null-without-fill-refused") { db in
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "NOT NULL over NULLs",
                Migration("002") { $0.alterColumn("qty", in: "ver_item", to: .integer, nullable: false) }
            ) { $0 == .notNullViolation(table: "ver_item", column: "qty") }
        },
        VersionedFixtures.case("alter.drop-not-null") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([
                Migration("002") { $0.alterColumn("title", in: "ver_item", to: .text, nullable: true) }
            ])
            try await db.withConnection { tx in
                _ = try tx.execute(
                    .insert(Insert(table: "ver_item", columns: ["id", "title"], rows: [[.integer(9), .null]])))
            }
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", ["title"]).map { $0[0] }.last, .null, "NULL accepted")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns).prefix(3).map { $0 },
                VersionedFixtures.itemRows, "rows kept")
        },
        VersionedFixtures.case("alter.add-and-drop-index") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([Migration("002") { $0.addIndex(on: "ver_item", ["title"], unique: true) }])
            var item = try await VersionedFixtures.schema(db)[table: "ver_item"]
            let unique = item?.indexes.first { $0.columns == ["title"] }
            try checkEqual(unique?.isUnique, true, "unique index created")
            try await checkThrows(
                "duplicate title", { if case .uniqueViolation = $0 { return true } else { return false } }
            ) {
                try await db.withConnection { tx in
                    _ = try tx.execute(
                        .insert(
                            Insert(table: "ver_item", columns: ["id", "title"], rows: [[.integer(9), .text("a")]])))
                }
            }
            try await db.migrate([Migration("003") { $0.dropIndex(unique?.name ?? "?", on: "ver_item") }])
            item = try await VersionedFixtures.schema(db)[table: "ver_item"]
            try checkEqual(item?.indexes.map(\.columns), [["code"]], "dropped")
        },
        VersionedFixtures.case("alter.unique-index-over-duplicates-refused") { db in
            try await VersionedFixtures.seed(db)
            try await db.withConnection { tx in
                _ = try tx.execute(
                    .update(Update(table: "ver_item", assignments: [Assignment("title", .text("a"))], filter: nil)))
            }
            try await VersionedFixtures.expectRefused(
                db, "unique over duplicates", Migration("002") { $0.addIndex(on: "ver_item", ["title"], unique: true) }
            ) { if case .uniqueViolation = $0 { return true } else { return false } }
        },
        VersionedFixtures.case("alter.add-foreign-key-enforced") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([
                Migration("002") {
                    $0.addColumn("maker_id", .integer, nullable: true, to: "ver_item")
                    $0.addForeignKey(
                        ForeignKey(column: "maker_id", references: "ver_owner", onDelete: .setNull), to: "ver_item")
                }
            ])
            let keys = try await VersionedFixtures.schema(db)[table: "ver_item"]?.foreignKeys
            try checkEqual(keys?.first { $0.column == "maker_id" }?.onDelete, .setNull, "foreign key with its action")
            try await checkThrows(
                "an orphan maker", { if case .foreignKeyViolation = $0 { return true } else { return false } }
            ) {
                try await db.withConnection { tx in
                    _ = try tx.execute(
                        .update(
                            Update(table: "ver_item", assignments: [Assignment("maker_id", .integer(77))], filter: nil))
                    )
                }
            }
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns),
                VersionedFixtures.itemRows,
                "rows kept")
        },
        VersionedFixtures.case("alter.add-foreign-key-over-orphans-refused") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([Migration("002") { $0.dropForeignKey(on: "owner_id", of: "ver_item") }])
            try await db.withConnection { tx in
                _ = try tx.execute(
                    .update(
                        Update(
                            table: "ver_item", assignments: [Assignment("owner_id", .integer(42))],
                            filter: .compare(.equal, .column("id"), .value(.integer(3))))))
            }
            try await VersionedFixtures.expectRefused(
                db, "a foreign key over an orphan",
                Migration("003") {
                    $0.addForeignKey(ForeignKey(column: "owner_id", references: "ver_owner"), to: "ver_item")
                }
            ) { if case .foreignKeyViolation = $0 { return true } else { return false } }
        },
        VersionedFixtures.case("alter.drop-foreign-key") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([Migration("002") { $0.dropForeignKey(on: "owner_id", of: "ver_item") }])
            try checkEqual(
                try await VersionedFixtures.schema(db)[table: "ver_item"]?.foreignKeys.count, 0, "no foreign key")
            try await db.withConnection { tx in
                _ = try tx.execute(
                    .insert(
                        Insert(
                            table: "ver_item", columns: ["id", "title", "owner_id"],
                            rows: [[.integer(9), .text("z"), .integer(99)]])))
            }
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", ["id"]).count, 4, "an orphan is accepted now")
        },
        VersionedFixtures.case("alter.drop-referenced-table-refused") { db in
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "dropping a referenced table", Migration("002") { $0.dropTable("ver_owner") }
            ) {
                if case .invalidQuery = $0 { return true } else { return false }
            }
        },
        VersionedFixtures.case("alter.create-and-drop-table") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([Migration("002") { $0.createTable(for: VerWidgetV2.self) }])
            let widget = try await VersionedFixtures.schema(db)[table: "ver_widget"]
            try checkEqual(widget?.columns.map(\.name), ["id", "name", "color", "count"], "created from the model")
            try checkEqual(widget?.indexes.map(\.isUnique), [true], "with the model's index")
            try await db.migrate([Migration("003") { $0.dropTable("ver_widget") }])
            try checkEqual(try await VersionedFixtures.schema(db)[table: "ver_widget"], nil, "dropped")
        },
        VersionedFixtures.case("alter.create-existing-table-refused") { db in
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "creating a table twice", Migration("002") { $0.createTable(VersionedFixtures.owner) }
            ) {
                if case .invalidQuery = $0 { return true } else { return false }
            }
        },
        VersionedFixtures.case("alter.changing-a-referenced-parent-keeps-its-children") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([
                Migration("002") { up in
                    up.alterColumn("name", in: "ver_owner", to: .text, nullable: true)
                    up.addColumn("note", .text, nullable: true, to: "ver_owner")
                    up.dropColumn("note", from: "ver_owner")
                }
            ])
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns),
                VersionedFixtures.itemRows,
                "children untouched by the parent's change")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_owner", ["id", "name"]),
                [[.integer(1), .text("ann")], [.integer(2), .text("bo")]], "parent rows kept")
            try await checkThrows(
                "the reference still enforced",
                { if case .foreignKeyViolation = $0 { return true } else { return false } }
            ) {
                try await db.withConnection { tx in
                    _ = try tx.execute(
                        .delete(
                            Delete(table: "ver_owner", filter: .compare(.equal, .column("id"), .value(.integer(1))))))
                }
            }
        },
    ]
}
