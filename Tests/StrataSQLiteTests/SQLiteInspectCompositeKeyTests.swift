// SQLiteInspectCompositeKeyTests: `strata inspect` maps a table with a composite primary key (sqlite3 wrote it) to a
// model that compiles (below), reads every row, and saves and finds by both key columns; the two-column foreign key
// to it becomes belongsTo(_:keys:) and hasMany(_:keys:), which load and test both columns.
import Foundation
import Strata
import StrataSQLite
import Testing

// The models below are the inspector's output for `CompositeInspectFixture.sql`, pasted as printed.

@Model(table: "shop")
struct Shop {
    var id: Int64?
    var name: String
    static let stockLevels = hasMany(StockLevel.self, key: \StockLevel.shopId)
}

@Model(table: "stock_level", primaryKey: ["shopId", "sku"])
struct StockLevel {
    @Column("shop_id") var shopId: Int64
    var sku: String
    var count: Int64
    var note: String?
    static let shop = belongsTo(Shop.self, key: \StockLevel.shopId)
    static let stockNotes = hasMany(StockNote.self, keys: \StockNote.shopId, \StockNote.sku)
}

@Model(table: "stock_note")
struct StockNote {
    var id: Int64?
    @Column("shop_id") var shopId: Int64
    var sku: String
    var body: String
    static let stockLevel = belongsTo(StockLevel.self, keys: \StockNote.shopId, \StockNote.sku)
}

enum CompositeInspectFixture {
    /// A shop, its stock levels keyed by (shop_id, sku), and notes whose two-column foreign key references that key
    /// (mapped as `belongsTo(_:keys:)` and `hasMany(_:keys:)`).
    static let sql = """
        CREATE TABLE shop (id integer PRIMARY KEY, name text NOT NULL);
        CREATE TABLE stock_level (shop_id integer NOT NULL REFERENCES shop (id), sku text NOT NULL,
                                  count integer NOT NULL, note text, PRIMARY KEY (shop_id, sku));
        CREATE TABLE stock_note (id integer PRIMARY KEY, shop_id integer NOT NULL, sku text NOT NULL,
                                 body text NOT NULL,
                                 FOREIGN KEY (shop_id, sku) REFERENCES stock_level (shop_id, sku));
        INSERT INTO shop VALUES (1, 'north'), (2, 'south');
        INSERT INTO stock_level VALUES (1, 'A', 3, NULL), (1, 'B', 0, 'empty'), (2, 'A', 7, NULL);
        INSERT INTO stock_note VALUES (1, 1, 'A', 'recount');
        """

    /// This file's model declarations, as the inspector prints them.
    static func expectedSource() throws -> String {
        let file = try String(contentsOfFile: #filePath, encoding: .utf8)
        let start = try #require(file.range(of: "@Model(table: \"shop\")"))
        let end = try #require(file.range(of: "enum CompositeInspectFixture"))
        return "import Foundation\nimport Strata\n\n" + String(file[start.lowerBound..<end.lowerBound]).dropLast()
    }
}

@Suite("SQLite inspect: composite keys")
struct SQLiteInspectCompositeKeyTests {
    @Test("inspect maps a composite-key table to @Model(primaryKey:), which reads, saves and finds by both columns")
    func inspectCompositeKey() async throws {
        let file = TemporarySQLiteFile()
        let (status, _) = try ToolRun.run("/usr/bin/sqlite3", [file.path, CompositeInspectFixture.sql])
        try #require(status == 0)
        let db = try Database.open("sqlite:\(file.path)?migrate=off", drivers: [.sqlite])
        defer { db.close() }
        let source = try await db.withConnection { tx in try ModelSource.inspect(tx) }
        #expect(source == (try CompositeInspectFixture.expectedSource()))
        try await db.migrate(Shop.self, StockLevel.self, StockNote.self)
        let plan = try await db.withConnection { tx in try tx.plan([Shop.self, StockLevel.self, StockNote.self]) }
        // The composite key reads back as the model's key, the two-column foreign key as the one the models declare.
        #expect(plan.changes.map { "\($0.change)" } == [])
        let levels = try await StockLevel.query(on: db).order(\.shopId).order(\.sku).all()
        #expect(levels.map { "\($0.shopId)\($0.sku)\($0.count)" } == ["1A3", "1B0", "2A7"])
        var level = try #require(try await StockLevel.find(StockLevel.ID(shopId: 1, sku: "B"), on: db))
        level.count = 5
        try await level.save(on: db)
        #expect(try await StockLevel.find(StockLevel.ID(shopId: 1, sku: "B"), on: db)?.count == 5)
        #expect(try await StockLevel.find(StockLevel.ID(shopId: 2, sku: "A"), on: db)?.count == 7)
        let north = try await Shop.query(on: db).including(Shop.stockLevels).order(\.id).all()
        #expect(try north.map { try $0.loaded(Shop.stockLevels).count } == [2, 1])
        let note = try #require(try await StockNote.find(1, on: db))
        #expect(try await note.fetch(StockNote.stockLevel, on: db)?.count == 3, "belongsTo by both columns")
        let noted = try await StockLevel.query(on: db).whereExists(StockLevel.stockNotes).including(
            StockLevel.stockNotes
        )
        .all()
        #expect(
            try noted.map { "\($0.shopId)\($0.sku):\(try $0.loaded(StockLevel.stockNotes).map(\.body))" } == [
                "1A:[\"recount\"]"
            ])
    }
}

@Suite("SQLite inspect: a foreign key listing its columns in another order than the referenced key")
struct SQLiteInspectForeignKeyOrderTests {
    /// The fixture, with stock_note's foreign key written `(sku, shop_id) REFERENCES stock_level (sku, shop_id)`:
    /// the same constraint as the one the models declare, column for column.
    static let sql = CompositeInspectFixture.sql.replacingOccurrences(
        of: "FOREIGN KEY (shop_id, sku) REFERENCES stock_level (shop_id, sku)",
        with: "FOREIGN KEY (sku, shop_id) REFERENCES stock_level (sku, shop_id)")

    @Test("inspect writes the keys in the referenced key's order, and migrate plans no change to the foreign key")
    func reorderedForeignKey() async throws {
        try #require(Self.sql != CompositeInspectFixture.sql)
        let file = TemporarySQLiteFile()
        let (status, _) = try ToolRun.run("/usr/bin/sqlite3", [file.path, Self.sql])
        try #require(status == 0)
        let db = try Database.open("sqlite:\(file.path)?migrate=off", drivers: [.sqlite])
        defer { db.close() }
        let source = try await db.withConnection { tx in try ModelSource.inspect(tx) }
        #expect(source == (try CompositeInspectFixture.expectedSource()))
        let plan = try await db.withConnection { tx in try tx.plan([Shop.self, StockLevel.self, StockNote.self]) }
        #expect(plan.changes.map { "\($0.change)" } == [])
        let note = try #require(try await StockNote.find(1, on: db))
        #expect(try await note.fetch(StockNote.stockLevel, on: db)?.count == 3, "belongsTo by both columns")
    }
}
