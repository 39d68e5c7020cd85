// Cases+MigrationDefaults: column DEFAULTs read back alike, diffed, set and dropped, and kept through a type change.
import Foundation
import Strata

@Model(table: "dflt_gadget")
struct DfltGadgetV1 {
    var id: Int64?
    var name: String
    var active = true
    var count = 0
    var ratio = 0.5
    var label = "it's"
    var tags: [String] = []
    var meta: [String: Int] = ["b": 2, "a": 1]
    var price: Decimal = 1.5
    var offset = -3
    var stamp = Date()
}

@Model(table: "dflt_gadget")
struct DfltGadgetV2 {
    var id: Int64?
    var name: String
    var active = false
    var count = 5
    var ratio = 0.25
    var label = "new 'one'"
    var tags: [String] = ["x"]
    var meta: [String: Int] = ["b": 2, "a": 1]
    var price: Decimal = 2.75
    var offset = -3
    var stamp = Date()
}

@Model(table: "dflt_gadget")
struct DfltGadgetV3 {
    var id: Int64?
    var name: String
    var active = true
    var count: Int
    var ratio = 0.5
    var label = "it's"
    var tags: [String] = []
    var meta: [String: Int] = ["b": 2, "a": 1]
    var price: Decimal = 1.5
    var offset = -3
    var stamp = Date()
}

enum DefaultFixtures {
    /// A versioned case that also starts and ends without `dflt_gadget`.
    static func `case`(_ name: String, _ body: @escaping @Sendable (Database) async throws -> Void) -> ConformanceCase {
        VersionedFixtures.case(name) { db in
            try await dropGadget(db)
            do {
                try await body(db)
            } catch {
                try? await dropGadget(db)
                throw error
            }
            try await dropGadget(db)
        }
    }

    static func dropGadget(_ db: Database) async throws {
        try await db.withConnection { tx in try tx.dropTable("dflt_gadget") }
    }

    /// The live defaults of `dflt_gadget`, each read as the type `model` declares for its column.
    static func defaults(_ db: Database, as model: any Model.Type) async throws -> [String: DatabaseValue] {
        let live = try await VersionedFixtures.schema(db)[table: "dflt_gadget"]
        var out: [String: DatabaseValue] = [:]
        for c in model.schema.columns {
            out[c.name] = ColumnDefault.normalized(live?.column(named: c.name)?.schemaDefault, as: c.type) ?? .null
        }
        return out
    }

    /// The defaults `model` declares, by column (`.null` for none).
    static func declared(_ model: any Model.Type) -> [String: DatabaseValue] {
        var out: [String: DatabaseValue] = [:]
        for c in model.schema.columns { out[c.name] = ColumnDefault.normalized(c.schemaDefault, as: c.type) ?? .null }
        return out
    }

    /// The plan of `model` against the live schema.
    static func plan(_ db: Database, _ model: any Model.Type) async throws -> MigrationPlan {
        try await db.withConnection { tx in try tx.plan([model]) }
    }
}

extension ConformanceSuite {
    static let migrationDefaultCases: [ConformanceCase] = [
        DefaultFixtures.case("diff.defaults-of-every-type-match-after-migrate") { db in
            try await db.migrate(DfltGadgetV1.self)
            let plan = try await DefaultFixtures.plan(db, DfltGadgetV1.self)
            try check(plan.isEmpty, "booleans, integers, doubles, text, JSON, decimals read back alike: \(plan)")
            try checkEqual(
                try await DefaultFixtures.defaults(db, as: DfltGadgetV1.self),
                DefaultFixtures.declared(DfltGadgetV1.self),
                "every declared default read back")
            try checkEqual(
                try await VersionedFixtures.schema(db)[table: "dflt_gadget"]?.column(named: "stamp")?.schemaDefault,
                nil,
                "Date() is no constant: no DEFAULT")
        },
        DefaultFixtures.case("diff.changed-defaults-planned-not-destructive") { db in
            try await db.migrate(DfltGadgetV1.self)
            let plan = try await DefaultFixtures.plan(db, DfltGadgetV2.self)
            try checkEqual(
                plan.changes.map(\.change),
                [
                    .setDefault(table: "dflt_gadget", column: "active", to: .bool(false)),
                    .setDefault(table: "dflt_gadget", column: "count", to: .integer(5)),
                    .setDefault(table: "dflt_gadget", column: "ratio", to: .double(0.25)),
                    .setDefault(table: "dflt_gadget", column: "label", to: .text("new 'one'")),
                    .setDefault(table: "dflt_gadget", column: "tags", to: .json(#"["x"]"#)),
                    .setDefault(table: "dflt_gadget", column: "price", to: .decimal(Decimal(string: "2.75") ?? 0)),
                ], "one change per changed default, in column order")
            try check(!plan.isDestructive, "a default change is not destructive")
            try check(
                plan.description.contains("set default of dflt_gadget.label to 'new ''one'''"),
                "printed for a person: \(plan)")
        },
        DefaultFixtures.case("diff.changed-defaults-applied-rows-kept") { db in
            try await db.migrate(DfltGadgetV1.self)
            var a = DfltGadgetV1(name: "a")
            a.count = 3
            a.tags = ["t"]
            try await a.save(on: db)
            var b = DfltGadgetV1(name: "b")
            try await b.save(on: db)
            let columns = ["id", "name", "active", "count", "ratio", "label", "tags", "meta", "price", "offset"]
            let before = try await VersionedFixtures.rows(db, "dflt_gadget", columns)
            let plan = try await DefaultFixtures.plan(db, DfltGadgetV2.self)
            try await db.migrate([plan.migration(named: "002_defaults")])
            try check(try await DefaultFixtures.plan(db, DfltGadgetV2.self).isEmpty, "applied: nothing left")
            try checkEqual(
                try await DefaultFixtures.defaults(db, as: DfltGadgetV2.self),
                DefaultFixtures.declared(DfltGadgetV2.self),
                "the new defaults read back")
            try checkEqual(
                try await VersionedFixtures.rows(db, "dflt_gadget", columns), before, "every row and column as before")
        },
        DefaultFixtures.case("diff.new-default-fills-inserts-that-omit-the-column") { db in
            try await db.migrate(DfltGadgetV1.self)
            try await db.migrate([try await DefaultFixtures.plan(db, DfltGadgetV2.self).migration(named: "002")])
            try await db.withConnection { tx in
                _ = try tx.execute(
                    .insert(
                        Insert(
                            table: "dflt_gadget", columns: ["name", "meta", "offset", "stamp"],
                            rows: [[.text("raw"), .json("{}"), .integer(0), .date(Date(timeIntervalSince1970: 0))]])))
            }
            let row = try await VersionedFixtures.rows(db, "dflt_gadget", ["count", "label"]).first
            try checkEqual(row, [.integer(5), .text("new 'one'")], "the database fills the new defaults")
        },
        DefaultFixtures.case("diff.removed-default-planned-as-drop") { db in
            try await db.migrate(DfltGadgetV1.self)
            let plan = try await DefaultFixtures.plan(db, DfltGadgetV3.self)
            try checkEqual(
                plan.changes.map(\.change), [.setDefault(table: "dflt_gadget", column: "count", to: nil)],
                "the default the model no longer declares is dropped")
            try check(!plan.isDestructive, "dropping a default is not destructive")
            try check(
                plan.swiftSource(name: "003").contains(
                    #"up.change(.setDefault(table: "dflt_gadget", column: "count", to: nil))"#),
                "a Swift step to paste: \(plan.swiftSource(name: "003"))")
            try await db.migrate([plan.migration(named: "003")])
            try checkEqual(
                try await VersionedFixtures.schema(db)[table: "dflt_gadget"]?.column(named: "count")?.schemaDefault,
                nil,
                "no default left")
            try check(try await DefaultFixtures.plan(db, DfltGadgetV3.self).isEmpty, "applied: nothing left")
        },
        VersionedFixtures.case("alter.set-default-on-populated-table-keeps-rows") { db in
            try await VersionedFixtures.seed(db)
            let before = try await VersionedFixtures.schema(db)[table: "ver_item"]
            try await db.migrate([
                Migration("002") { up in
                    up.setDefault(.integer(9), of: "qty", in: "ver_item")
                    up.setDefault(.text("none"), of: "code", in: "ver_item")
                }
            ])
            let after = try await VersionedFixtures.schema(db)[table: "ver_item"]
            try checkEqual(after?.column(named: "qty")?.schemaDefault, .integer(9), "integer default set")
            try checkEqual(after?.column(named: "code")?.schemaDefault, .text("none"), "text default set")
            try checkEqual(after?.columns.map(\.name), before?.columns.map(\.name), "columns and order kept")
            try checkEqual(after?.indexes, before?.indexes, "indexes kept")
            try checkEqual(after?.foreignKeys, before?.foreignKeys, "foreign keys kept")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns),
                VersionedFixtures.itemRows, "every row and column as before")
            try await db.migrate([Migration("003") { $0.setDefault(nil, of: "qty", in: "ver_item") }])
            try checkEqual(
                try await VersionedFixtures.schema(db)[table: "ver_item"]?.column(named: "qty")?.schemaDefault, nil,
                "dropped again")
        },
        VersionedFixtures.case("alter.set-default-of-wrong-type-refused") { db in
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "text default on an integer column",
                Migration("002") { $0.setDefault(.text("abc"), of: "qty", in: "ver_item") }
            ) {
                $0
                    == .typeMismatch(
                        table: "ver_item", column: "qty", detail: "default 'abc' does not convert to integer")
            }
        },
        VersionedFixtures.case("alter.set-default-of-unknown-column-refused") { db in
            try await VersionedFixtures.seed(db)
            try await VersionedFixtures.expectRefused(
                db, "default of a missing column",
                Migration("002") { $0.setDefault(.integer(1), of: "nope", in: "ver_item") }
            ) { $0 == .unknownColumn(model: "ver_item", column: "nope") }
        },
        VersionedFixtures.case("alter.retyped-column-keeps-its-default") { db in
            try await VersionedFixtures.seed(db)
            try await db.migrate([
                Migration("002") { up in
                    up.addColumn("stock", .integer, default: .integer(7), to: "ver_item")
                    up.alterColumn("stock", in: "ver_item", to: .text, nullable: false)
                }
            ])
            let item = try await VersionedFixtures.schema(db)[table: "ver_item"]
            try checkEqual(item?.column(named: "stock")?.schemaDefault, .text("7"), "the default, converted")
            try checkEqual(item?.column(named: "stock")?.isNullable, false, "NOT NULL")
            try checkEqual(
                try await VersionedFixtures.rows(db, "ver_item", VersionedFixtures.itemColumns + ["stock"]),
                VersionedFixtures.itemRows.map { $0 + [.text("7")] }, "every row and column kept, values converted")
        },
    ]
}
