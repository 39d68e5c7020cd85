// SQLiteRebuildTests: SQLite's table rebuild keeps a retyped column's place and DEFAULT, and re-creates views.
import Foundation
import Strata
import StrataSQLite
import Testing

@Model(table: "rb_event")
struct RebuildEvent {
    var id: Int64?
    var at: String?
    var n = 0
}

@Suite("SQLite table rebuild")
struct SQLiteRebuildTests {
    static func open() throws -> (Database, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-rebuild-\(UUID()).sqlite").path
        return (try Database.open("sqlite:" + path, drivers: [.sqlite]), path)
    }

    static func rows(_ db: Database, _ sql: String) async throws -> [[DatabaseValue]] {
        try await db.unsafeRawExecute(sql)
    }

    static let item = TableSchema(
        name: "rb_item",
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
            TableColumn(name: "a", type: .text, isNullable: false, schemaDefault: .text("x")),
            TableColumn(name: "qty", type: .text, isNullable: true, schemaDefault: .text("5")),
            TableColumn(name: "b", type: .double, isNullable: true),
        ],
        indexes: [Index(columns: ["qty"])])

    @Test("a retyped column keeps its position, its DEFAULT (converted) and its index; every row survives")
    func retypeKeepsPlaceAndDefault() async throws {
        let (db, path) = try Self.open()
        defer {
            db.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        try await db.migrate([Migration("001") { $0.createTable(Self.item) }])
        _ = try await db.unsafeRawExecute(
            "INSERT INTO rb_item (id, a, qty, b) VALUES (1, 'p', '10', 1.5), (2, 'q', NULL, NULL), (3, 'r', '30', 3)")
        try await db.migrate([Migration("002") { $0.alterColumn("qty", in: "rb_item", to: .integer, nullable: true) }])
        let table = try #require(try await db.withConnection { tx in try tx.introspect() }[table: "rb_item"])
        #expect(table.columns.map(\.name) == ["id", "a", "qty", "b"], "qty stays third")
        #expect(table.column(named: "qty")?.type == .integer)
        #expect(table.column(named: "qty")?.schemaDefault == .integer(5), "the default, converted")
        #expect(table.column(named: "a")?.schemaDefault == .text("x"), "other defaults kept")
        #expect(table.indexes.map(\.columns) == [["qty"]], "its index re-created")
        #expect(
            try await Self.rows(db, "SELECT id, a, qty, b FROM rb_item ORDER BY id") == [
                [.integer(1), .text("p"), .integer(10), .double(1.5)], [.integer(2), .text("q"), .null, .null],
                [.integer(3), .text("r"), .integer(30), .double(3)],
            ])
        _ = try await db.unsafeRawExecute("INSERT INTO rb_item (id, a) VALUES (4, 'z')")
        #expect(try await Self.rows(db, "SELECT qty FROM rb_item WHERE id = 4") == [[.integer(5)]], "DEFAULT applies")
    }

    @Test("views over a rebuilt table are saved and re-created (SQLite's 12-step procedure); every row survives")
    func viewsRecreated() async throws {
        let (db, path) = try Self.open()
        defer {
            db.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        try await db.migrate([Migration("001") { $0.createTable(Self.item) }])
        _ = try await db.unsafeRawExecute(
            "INSERT INTO rb_item (id, a, qty, b) VALUES (1, 'p', '10', 1.5), (2, 'q', '2', 2)")
        _ = try await db.unsafeRawExecute("CREATE VIEW rb_names AS SELECT id, a FROM rb_item")
        _ = try await db.unsafeRawExecute("CREATE VIEW rb_upper AS SELECT id, upper(a) AS u FROM rb_names")
        try await db.migrate([
            Migration("002") { up in
                up.dropColumn("b", from: "rb_item")
                up.alterColumn("qty", in: "rb_item", to: .integer, nullable: false, fill: .integer(0))
                up.setDefault(.text("y"), of: "a", in: "rb_item")
            }
        ])
        #expect(
            try await Self.rows(db, "SELECT id, a FROM rb_names ORDER BY id") == [
                [.integer(1), .text("p")], [.integer(2), .text("q")],
            ])
        #expect(try await Self.rows(db, "SELECT u FROM rb_upper ORDER BY id") == [[.text("P")], [.text("Q")]])
        #expect(
            try await Self.rows(db, "SELECT id, a, qty FROM rb_item ORDER BY id") == [
                [.integer(1), .text("p"), .integer(10)], [.integer(2), .text("q"), .integer(2)],
            ])
        #expect(try await Self.rows(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view'") == [[.integer(2)]])
    }

    @Test("a computed DEFAULT (CURRENT_TIMESTAMP) is read apart from constants, and a model without one leaves it")
    func computedDefault() async throws {
        let (db, path) = try Self.open()
        defer {
            db.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        _ = try await db.unsafeRawExecute(
            "CREATE TABLE rb_event (id INTEGER PRIMARY KEY, at TEXT DEFAULT CURRENT_TIMESTAMP, n INTEGER NOT NULL DEFAULT 0)"
        )
        let schema = try await db.withConnection { tx in try tx.introspect() }
        #expect(schema[table: "rb_event"]?.column(named: "at")?.defaultExpression == "CURRENT_TIMESTAMP")
        #expect(schema[table: "rb_event"]?.column(named: "at")?.schemaDefault == nil)
        #expect(schema[table: "rb_event"]?.column(named: "n")?.schemaDefault == .integer(0))
        let plan = try await db.withConnection { tx in try tx.plan([RebuildEvent.self]) }
        #expect(plan.isEmpty, "\(plan)")
    }
}
