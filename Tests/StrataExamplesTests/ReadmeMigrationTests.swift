// ReadmeMigrationTests: the README's "Versioned migrations" walk-through (a model through three versions),
// compiled and run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

// README: "Versioned migrations" — the model as it is after version 3.
@Model(table: "memo")
struct Memo {
    var id: Int64?
    var headline: String
    var body = ""
    var priority = 0

    static var indexes: [Index] { [.on(\Memo.headline)] }
}

// README: "Versioned migrations"
let memoV1 = Migration("001_create_memo") { up in
    up.createTable(
        TableSchema(
            name: "memo",
            columns: [
                TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
                TableColumn(name: "title", type: .text, isNullable: false),
                TableColumn(name: "priority", type: .text, isNullable: true),
            ]))
} down: { down in
    down.dropTable("memo")
}

let memoV2 = Migration("002_body_and_numeric_priority") { up in
    up.addColumn("body", .text, default: .text(""), to: "memo")
    up.alterColumn("priority", in: "memo", to: .integer, nullable: false, fill: .integer(0))
    up.setDefault(.integer(0), of: "priority", in: "memo")
}

let memoV3 = Migration("003_headline") { up in
    up.renameColumn("title", to: "headline", in: "memo")
    up.addIndex(on: "memo", ["headline"])
    up.transform("trim headlines") { tx in
        for var memo in try Memo.query(on: tx).all() {
            memo.headline = memo.headline.trimmingCharacters(in: .whitespaces)
            try memo.save(tx)
        }
    }
} down: { down in
    down.dropIndex("memo_headline_idx", on: "memo")
    down.renameColumn("headline", to: "title", in: "memo")
}

@Suite("README: versioned migrations")
struct ReadmeMigrationTests {
    static let urls = ["sqlite::memory:", "memory:"]

    @Test("a model through three versions", arguments: urls)
    func threeVersions(_ url: String) async throws {
        let db = try Database.open(url, drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate([memoV1])
        try await db.withConnection { tx in
            _ = try tx.unsafeInsert(
                "memo", ["title", "priority"], [[.text("  Hello "), .text("3")], [.text("Bye"), .null]])
        }
        #expect(try await db.migrate([memoV1, memoV2, memoV3]) == ["002_body_and_numeric_priority", "003_headline"])
        let memos = try await Memo.query(on: db).order(\.id).all()
        #expect(memos.map(\.headline) == ["Hello", "Bye"])
        #expect(memos.map(\.priority) == [3, 0])
        #expect(memos.map(\.body) == ["", ""])
        #expect(try await db.migrate([memoV1, memoV2, memoV3]) == [], "applied steps are skipped")

        let status = try await db.migrationStatus([memoV1, memoV2, memoV3])
        #expect(status.map(\.isApplied) == [true, true, true])
        let plan = try await db.withConnection { tx in try tx.plan(([Memo.self])) }
        #expect(plan.isEmpty, "the schema matches the model: \(plan)")

        #expect(try await db.revert([memoV1, memoV2, memoV3]) == ["003_headline"])
        await #expect(throws: StrataError.irreversibleMigration(step: "002_body_and_numeric_priority")) {
            try await db.revert([memoV1, memoV2, memoV3])
        }
        let schema = try await db.withConnection { tx in try tx.introspect() }
        #expect(
            schema[table: "memo"]?.columns.map(\.name) == ["id", "title", "priority", "body"],
            "a retyped column keeps its place on SQLite and memory")
    }
}

extension Transaction {
    /// Inserts rows without a model (the table's shape at version 1 has none).
    fileprivate func unsafeInsert(_ table: String, _ columns: [String], _ rows: [[DatabaseValue]]) throws -> Int {
        try execute(.insert(Insert(table: table, columns: columns, rows: rows)))
    }
}
