// Cases+AddColumnFill: a column added with a fill gives existing rows that value and keeps only its own DEFAULT.
import Foundation
import Strata

@Model(table: "fill_person")
struct FillPersonV1 {
    var id: Int64?
    var name: String
}

@Model(table: "fill_person")
struct FillPerson {
    var id: Int64?
    var name: String
    var nick: String
    var score = 7
    var memo: String?
}

extension ConformanceSuite {
    static let addColumnFillCases: [ConformanceCase] = [
        VersionedFixtures.case("versioned.add-required-column-to-empty-table-stays-not-null") { db in
            try await db.withConnection { tx in try tx.dropTable("fill_person") }
            try await db.migrate([Migration("001_person") { $0.createTable(for: FillPersonV1.self) }])
            try await db.migrate([Migration("002_nick") { $0.addColumn("nick", .text, to: "fill_person") }])
            let live = try await VersionedFixtures.schema(db)[table: "fill_person"]
            try checkEqual(live?.column(named: "nick")?.isNullable, false, "nick is NOT NULL as the step says")
            try await checkThrows("a row without nick", { if case .notNullViolation = $0 { true } else { false } }) {
                try await db.withConnection { tx in
                    _ = try tx.execute(
                        .insert(Insert(table: "fill_person", columns: ["name"], rows: [[.text("Cy")]])))
                }
            }
            try await db.withConnection { tx in try tx.dropTable("fill_person") }
        },
        VersionedFixtures.case("versioned.add-column-fill-is-for-existing-rows-only") { db in
            try await db.withConnection { tx in try tx.dropTable("fill_person") }
            try await db.migrate([Migration("001_person") { $0.createTable(for: FillPersonV1.self) }])
            var ann = FillPersonV1(name: "Ann")
            try await ann.save(on: db)
            let step = Migration("002_nick_score_memo") { up in
                up.addColumn("nick", .text, fill: .text("none"), to: "fill_person")
                up.addColumn("score", .integer, default: .integer(7), fill: .integer(0), to: "fill_person")
                up.addColumn("memo", .text, nullable: true, fill: .text("old"), to: "fill_person")
            }
            try await db.migrate([step])
            try checkEqual(
                try await VersionedFixtures.rows(db, "fill_person", ["name", "nick", "score", "memo"]),
                [[.text("Ann"), .text("none"), .integer(0), .text("old")]], "existing rows got the fills")
            let plan = try await db.withConnection { tx in try tx.plan([FillPerson.self]) }
            try check(plan.isEmpty, "the schema matches the model after the step: \(plan)")
            let live = try await VersionedFixtures.schema(db)[table: "fill_person"]
            try checkEqual(live?.column(named: "nick")?.schemaDefault, nil, "no DEFAULT left from the fill")
            try checkEqual(live?.column(named: "memo")?.schemaDefault, nil, "no DEFAULT left from the fill")
            try checkEqual(
                ColumnDefault.normalized(live?.column(named: "score")?.schemaDefault, as: .integer), .integer(7),
                "the declared DEFAULT, not the fill")
            try checkEqual(live?.column(named: "nick")?.isNullable, false, "nick stays NOT NULL")
            try await db.withConnection { tx in
                _ = try tx.execute(
                    .insert(
                        Insert(table: "fill_person", columns: ["name", "nick"], rows: [[.text("Bo"), .text("b")]])))
            }
            try checkEqual(
                try await VersionedFixtures.rows(db, "fill_person", ["name", "score", "memo"]).last,
                [.text("Bo"), .integer(7), .null], "a new row gets the DEFAULT and NULL, not the fills")
            try await checkThrows("a row without nick", { if case .notNullViolation = $0 { true } else { false } }) {
                try await db.withConnection { tx in
                    _ = try tx.execute(
                        .insert(Insert(table: "fill_person", columns: ["name"], rows: [[.text("Cy")]])))
                }
            }
            try await db.withConnection { tx in try tx.dropTable("fill_person") }
        },
    ]
}
