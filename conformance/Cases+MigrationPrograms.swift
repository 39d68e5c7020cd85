// Cases+MigrationPrograms: what `strata fuzz-migrations` found, each pinned on every driver: a foreign key between
// columns of two types, a column retyped twice in one step, a negative zero as a default (0.0, as every double),
// a model saved to a table that lacks one of its columns.
import Foundation
import Strata

/// A model whose table `ver_gadget` is created without its `color` column.
@Model(table: "ver_gadget")
struct VerGadget {
    var id: Int64?
    var name: String
    var color: String
}

/// A model whose text column references `ver_owner`'s integer key.
@Model(table: "ver_tag")
struct VerTag {
    var id: Int64?
    var ownerCode: String
    static var foreignKeys: [ForeignKey] { [ForeignKey(column: "owner_code", references: "ver_owner")] }
}

extension ConformanceSuite {
    static let migrationProgramCases: [ConformanceCase] = [
        VersionedFixtures.case("alter.retype-foreign-key-column-refused") { db in
            // Found on memory, which kept a text key whose parent did not exist; SQLite refused it as a foreign key
            // violation, PostgreSQL cannot build a key between text and bigint.
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "owner_id retyped to text while it references ver_owner(id)",
                Migration("002") {
                    $0.alterColumn("owner_id", in: "ver_item", to: .text, nullable: false, fill: .text("12.50"))
                }
            ) { e in
                guard case .typeMismatch(let table, let column, _) = e else { return false }
                return table == "ver_item" && column == "owner_id"
            }
        },
        VersionedFixtures.case("alter.add-foreign-key-between-types-refused") { db in
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "a foreign key from the text column code to ver_owner(id)",
                Migration("002") {
                    $0.addForeignKey(ForeignKey(column: "code", references: "ver_owner"), to: "ver_item")
                }
            ) { e in
                guard case .typeMismatch(let table, let column, _) = e else { return false }
                return table == "ver_item" && column == "code"
            }
        },
        VersionedFixtures.case("alter.create-table-with-foreign-key-between-types-refused") { db in
            try await VersionedFixtures.seed(db)
            let tag = TableSchema(
                name: "ver_tag",
                columns: [
                    TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
                    TableColumn(name: "item", type: .double, isNullable: true),
                ],
                foreignKeys: [ForeignKey(column: "item", references: "ver_item")])
            try await VersionedFixtures.expectRefused(
                db, "ver_tag.item (double) referencing ver_item(id)", Migration("002") { $0.createTable(tag) }
            ) { e in
                guard case .typeMismatch(let table, let column, _) = e else { return false }
                return table == "ver_tag" && column == "item"
            }
            try check(try await VersionedFixtures.schema(db)[table: "ver_tag"] == nil, "ver_tag not created")
        },
        VersionedFixtures.case("alter.retype-twice-in-one-step-reads-the-new-type") { db in
            // Found on PostgreSQL: the step's second retype read the column with the statement its first one had
            // prepared, whose result type had changed ("cached plan must not change result type"), and the step
            // failed. Reads of the table before the step and in a transaction after it take the new type too.
            try await VersionedFixtures.seed(db)
            let before = try await VersionedFixtures.rows(db, "ver_item", ["id", "qty"])
            try checkEqual(before.map { $0[1] }, [.integer(10), .null, .integer(30)], "qty before")
            try await db.migrate([
                Migration("002") {
                    $0.alterColumn("qty", in: "ver_item", to: .double, nullable: true, fill: nil)
                    $0.alterColumn("qty", in: "ver_item", to: .text, nullable: false, fill: .text("none"))
                }
            ])
            let after = try await db.transaction { tx in
                var out: [DatabaseValue] = []
                let select = Select(table: "ver_item", selection: .columns(["id", "qty"]), order: [Ordering("id")])
                _ = try tx.execute(.select(select)) { r in out.append(r.value(at: 1)) }
                return out
            }
            try checkEqual(after, [.text("10.0"), .text("none"), .text("30.0")], "qty as text, NULL filled")
            let live = try await VersionedFixtures.schema(db)[table: "ver_item"]?.column(named: "qty")
            try checkEqual(live?.type, .text, "qty is text")
            try checkEqual(live?.isNullable, false, "qty is NOT NULL")
        },
        VersionedFixtures.case("migration-defaults.negative-zero-double-is-zero") { db in
            // Found on PostgreSQL, whose DEFAULT read back as 0.0 where the memory driver's read -0.0. A double is
            // stored as 0.0 for -0.0 on every driver (SQLite cannot keep the sign), its DEFAULT too.
            let table = TableSchema(
                name: "ver_goods",
                columns: [
                    TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
                    TableColumn(name: "name", type: .text, isNullable: false),
                    TableColumn(name: "delta", type: .double, isNullable: false, schemaDefault: .double(-0.0)),
                ])
            try await db.migrate([Migration("001") { $0.createTable(table) }])
            try await db.withConnection { tx in
                _ = try tx.execute(.insert(Insert(table: "ver_goods", columns: ["name"], rows: [[.text("a")]])))
            }
            let rows = try await VersionedFixtures.rows(db, "ver_goods", ["id", "delta"])
            guard rows.count == 1, case .double(let delta) = rows[0][1] else {
                throw ConformanceFailure(description: "ver_goods holds \(rows), not one row with a double")
            }
            try checkEqual(delta.bitPattern, (0.0).bitPattern, "the row took the default as 0.0")
            let live = try await VersionedFixtures.schema(db)[table: "ver_goods"]?.column(named: "delta")
            guard case .double(let d)? = live?.schemaDefault else {
                throw ConformanceFailure(
                    description: "delta's default reads back as \(String(describing: live?.schemaDefault))")
            }
            try checkEqual(d.bitPattern, (0.0).bitPattern, "the default reads back as 0.0")
        },
        VersionedFixtures.case("persistence.save-to-table-without-a-column-is-unknown-column") { db in
            // Found on SQLite, which answered "table … has no column named …" as an untyped database error.
            let table = TableSchema(
                name: "ver_gadget",
                columns: [
                    TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
                    TableColumn(name: "name", type: .text, isNullable: false),
                ])
            try await db.migrate([Migration("001") { $0.createTable(table) }])
            var gadget = VerGadget(name: "lamp", color: "red")
            try await checkThrows(
                "save without a color column",
                { e in
                    guard case .unknownColumn(_, let column) = e else { return false }
                    return column == "color"
                }
            ) { try await gadget.save(on: db) }
            try check(gadget.id == nil, "the model keeps no id")
            let rows = try await VersionedFixtures.rows(db, "ver_gadget", ["id", "name"])
            try checkEqual(rows, [], "nothing written")
        },
        VersionedFixtures.case("migrate.create-table-with-foreign-key-between-types-refused") { db in
            // The automatic migration's createTable, as the versioned step's: memory and SQLite created the table,
            // PostgreSQL cannot build a key between text and bigint.
            try await VersionedFixtures.seed(db)
            try await checkThrows(
                "migrate(VerTag.self), whose text owner_code references ver_owner(id)",
                { e in
                    guard case .typeMismatch(let table, let column, _) = e else { return false }
                    return table == "ver_tag" && column == "owner_code"
                }
            ) { try await db.migrate(VerTag.self) }
            try check(try await VersionedFixtures.schema(db)[table: "ver_tag"] == nil, "ver_tag not created")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_owner", ["id", "name"]).count, 2, "the owners kept")
        },
    ]
}
