// PostgresInspectCompositeKeyTests: `strata inspect` maps a table psql wrote with a three-column primary key (an
// integer, a varchar and a uuid) to a model that compiles (below), reads every row and finds by its key.
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
            try await db.migrate(Bin.self, Warehouse.self)
            let plan = try await db.withConnection { tx in try tx.plan([Bin.self, Warehouse.self]) }
            #expect(plan.isEmpty, "the key read back from pg_index is the model's: \(plan)")
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
