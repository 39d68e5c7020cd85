// PostgresInspectCompositeKeyTests: `strata inspect` maps a table psql wrote with a three-column primary key (an
// integer, a varchar and a uuid) to a model that compiles (below), reads every row and finds by its key; a
// three-column foreign key to it becomes belongsTo(_:keys:) and hasMany(_:keys:), which load and test all three.
import Foundation
import Strata
import StrataPostgres
import Testing

// The models below are the inspector's output for `PGCompositeInspectFixture.sql`, pasted as printed.

@Model(table: "bin", primaryKey: ["warehouseId", "code", "batch"])
struct Bin {
    @Column("warehouse_id") var warehouseId: Int64
    var code: String
    var batch: UUID
    var qty: Int64
    static let warehouse = belongsTo(Warehouse.self, key: \Bin.warehouseId)
    static let binLabels = hasMany(BinLabel.self, keys: \BinLabel.warehouseId, \BinLabel.code, \BinLabel.batch)
}

@Model(table: "bin_label")
struct BinLabel {
    var id: Int64?
    @Column("warehouse_id") var warehouseId: Int64
    var code: String
    var batch: UUID
    var text: String
    static let bin = belongsTo(Bin.self, keys: \BinLabel.warehouseId, \BinLabel.code, \BinLabel.batch)
}

@Model(table: "warehouse")
struct Warehouse {
    var id: Int64?
    var name: String
    static let bins = hasMany(Bin.self, key: \Bin.warehouseId)
}

enum PGCompositeInspectFixture {
    static let first = UUID(uuidString: "a1b2c3d4-0000-4000-8000-000000000001")
    static let sql = """
        CREATE TABLE warehouse (id serial PRIMARY KEY, name text NOT NULL);
        CREATE TABLE bin (warehouse_id integer NOT NULL REFERENCES warehouse (id), code character varying(20) NOT NULL,
                          batch uuid NOT NULL, qty integer NOT NULL, PRIMARY KEY (warehouse_id, code, batch));
        INSERT INTO warehouse (name) VALUES ('east');
        INSERT INTO bin VALUES (1, 'A-1', 'a1b2c3d4-0000-4000-8000-000000000001', 4),
                               (1, 'A-1', 'a1b2c3d4-0000-4000-8000-000000000002', 6);
        CREATE TABLE bin_label (id serial PRIMARY KEY, warehouse_id integer NOT NULL,
                                code character varying(20) NOT NULL, batch uuid NOT NULL, text text NOT NULL,
                                FOREIGN KEY (warehouse_id, code, batch) REFERENCES bin (warehouse_id, code, batch));
        INSERT INTO bin_label (warehouse_id, code, batch, text)
            VALUES (1, 'A-1', 'a1b2c3d4-0000-4000-8000-000000000002', 'fragile');
        """

    /// This file's model declarations, as the inspector prints them.
    static func expectedSource() throws -> String {
        let file = try String(contentsOfFile: #filePath, encoding: .utf8)
        let start = try #require(file.range(of: "@Model(table: \"bin\""))
        let end = try #require(file.range(of: "enum PGCompositeInspectFixture"))
        return "import Foundation\nimport Strata\n\n" + String(file[start.lowerBound..<end.lowerBound]).dropLast()
    }
}

extension PostgresServerTests {
    @Suite("PostgreSQL inspect: composite keys")
    struct PostgresInspectCompositeKeyTests {
        @Test("inspect maps a three-column key (pg_index) to @Model(primaryKey:), which reads and finds by it")
        func inspectCompositeKey() async throws {
            try #require(PostgresTestServer.baseURL == "postgres://", "psql follows the PG* environment only")
            let db = try await PostgresTestServer.freshSchema("strata_inspect_ck", "migrate=off")
            defer { db.close() }
            _ = try PSQLTool.run(nil, "SET search_path TO strata_inspect_ck; " + PGCompositeInspectFixture.sql)
            let source = try await db.withConnection { tx in try ModelSource.inspect(tx) }
            #expect(source == (try PGCompositeInspectFixture.expectedSource()))
            try await db.migrate(Bin.self, BinLabel.self, Warehouse.self)
            let plan = try await db.withConnection { tx in try tx.plan([Bin.self, BinLabel.self, Warehouse.self]) }
            #expect(plan.isEmpty, "the key and the three-column foreign key read back are the models': \(plan)")
            let labelled = try await Bin.query(on: db).whereExists(Bin.binLabels).including(Bin.binLabels).all()
            #expect(
                try labelled.map { "\($0.qty):\(try $0.loaded(Bin.binLabels).map(\.text))" } == ["6:[\"fragile\"]"],
                "hasMany(keys:) tests and loads all three columns")
            let label = try #require(try await BinLabel.query(on: db).first())
            #expect(try await label.fetch(BinLabel.bin, on: db)?.qty == 6, "belongsTo(keys:) by all three columns")
            #expect(try await Bin.query(on: db).order(\.batch).all().map(\.qty) == [4, 6])
            let batch = try #require(PGCompositeInspectFixture.first)
            var bin = try #require(try await Bin.find(Bin.ID(warehouseId: 1, code: "A-1", batch: batch), on: db))
            bin.qty = 9
            try await bin.save(on: db)
            #expect(try await Bin.query(on: db).order(\.batch).all().map(\.qty) == [9, 6], "one row of the two")
            try await PostgresTestServer.dropSchema("strata_inspect_ck")
        }
    }
}
