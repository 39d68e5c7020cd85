// PostgresInspectTests: `strata inspect` on tables psql wrote prints models that compile (below) and read every row.
import Foundation
import Strata
import StrataPostgres
import Testing

// The models below are the inspector's output for `PGInspectFixture.sql`, pasted as printed: the test checks the
// output is still exactly this text, and that these models read every row.

/// A JSON column's value as its text: `strata inspect`'s placeholder, to replace with a Codable type.
struct JSONText: Hashable, Sendable, DatabaseValueConvertible {
    var text: String
    init(_ text: String) { self.text = text }
    static var columnType: ColumnType { .json }
    var databaseValue: DatabaseValue { .json(text) }
    init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        switch databaseValue {
        case .json(let s), .text(let s): text = s
        case .integer(let i): text = String(i)
        case .double(let d): text = "\(d)"
        default: throw ValueConversionError(databaseValue, expected: JSONText.self)
        }
    }
}

@Model(table: "customer")
struct Customer {
    var id: Int64?
    var name: String
    var vip: Bool
    var ref: UUID?
    static let purchases = hasMany(Purchase.self, key: \Purchase.customerId)
}

@Model(table: "gadget")
struct Gadget {
    var id: Int64?
    // jsonb: kept as its JSON text
    var spec: JSONText
    // json: kept as its JSON text
    var meta: JSONText?
    // time without time zone: a time of day, read as its text (10:30:00); Strata has no time type
    var opens: String
    // time with time zone: a time of day, read as its text (10:30:00); Strata has no time type
    var closes: String?
    var picture: Data?
    var serial: UUID?
    // interval: an interval, read as its text (1 day 02:00:00)
    var warranty: String?
    // text[]: an array, read as its text ({1,2})
    var tags: String?
    // inet: read as its text
    var addr: String?
}

@Model(table: "keyword")
struct Keyword {
    var id: Int64?
    var label: String
    static let purchaseKeywords = hasMany(PurchaseKeyword.self, key: \PurchaseKeyword.keywordId)
    static let purchases = hasMany(
        Purchase.self, through: PurchaseKeyword.self, ownerKey: \PurchaseKeyword.keywordId,
        targetKey: \PurchaseKeyword.purchaseId)
}

@Model(table: "purchase")
struct Purchase {
    var id: Int64?
    @Column("customer_id") var customerId: Int64
    var total: Decimal
    var weight: Double?
    @Column("made_at") var madeAt: Date
    static let customer = belongsTo(Customer.self, key: \Purchase.customerId)
    static let purchaseKeywords = hasMany(PurchaseKeyword.self, key: \PurchaseKeyword.purchaseId)
    static let keywords = hasMany(
        Keyword.self, through: PurchaseKeyword.self, ownerKey: \PurchaseKeyword.purchaseId,
        targetKey: \PurchaseKeyword.keywordId)
}

@Model(table: "purchase_keyword")
struct PurchaseKeyword {
    var id: Int64?
    @Column("purchase_id") var purchaseId: Int64
    @Column("keyword_id") var keywordId: Int64
    static let purchase = belongsTo(Purchase.self, key: \PurchaseKeyword.purchaseId)
    static let keyword = belongsTo(Keyword.self, key: \PurchaseKeyword.keywordId)
}

// note: no single integer primary key, which a Strata model needs; not mapped.

enum PGInspectFixture {
    static let sql = """
        CREATE TABLE customer (id serial PRIMARY KEY, name character varying(80) NOT NULL, vip boolean NOT NULL,
                               ref uuid);
        CREATE TABLE purchase (id bigserial PRIMARY KEY, customer_id integer NOT NULL REFERENCES customer (id),
                               total numeric(10, 2) NOT NULL, weight double precision,
                               made_at timestamp with time zone NOT NULL);
        CREATE TABLE keyword (id serial PRIMARY KEY, label text NOT NULL);
        CREATE TABLE purchase_keyword (id serial PRIMARY KEY, purchase_id integer NOT NULL REFERENCES purchase (id),
                                       keyword_id integer NOT NULL REFERENCES keyword (id));
        CREATE TABLE note (body text);
        CREATE TABLE gadget (id serial PRIMARY KEY, spec jsonb NOT NULL, meta json, opens time NOT NULL, closes timetz,
                             picture bytea, serial uuid, warranty interval, tags text[], addr inet);
        INSERT INTO customer (name, vip, ref) VALUES ('Ada', true, 'a1b2c3d4-0000-4000-8000-000000000001'),
                                                     ('Alan', false, NULL);
        INSERT INTO purchase (customer_id, total, weight, made_at) VALUES (1, 12.50, 1.5, '2009-01-01 10:00:00+02'),
                                                                          (1, 0.99, NULL, '2009-01-02 00:00:00+00');
        INSERT INTO keyword (label) VALUES ('gift'), ('sale');
        INSERT INTO purchase_keyword (purchase_id, keyword_id) VALUES (1, 1), (1, 2), (2, 2);
        INSERT INTO note VALUES ('unmapped');
        INSERT INTO gadget (spec, meta, opens, closes, picture, serial, warranty, tags, addr)
          VALUES ('{"b": 2, "a": [1, 2]}', '[1, 2]', '10:30:00', '18:00:00+02', '\\x0102',
                  'a1b2c3d4-0000-4000-8000-000000000002', '1 day 02:00:00', '{x,y}', '10.0.0.1'),
                 ('12', NULL, '23:59:59', NULL, NULL, NULL, NULL, NULL, NULL);
        """

    /// This file's model declarations, as the inspector prints them.
    static func expectedSource() throws -> String {
        let file = try String(contentsOfFile: #filePath, encoding: .utf8)
        let start = try #require(file.range(of: "/// A JSON column's value"))
        let end = try #require(file.range(of: "enum PGInspectFixture"))
        return "import Foundation\nimport Strata\n\n" + String(file[start.lowerBound..<end.lowerBound]).dropLast()
    }
}

extension PostgresServerTests {
    @Suite("PostgreSQL inspect")
    struct PostgresInspectTests {
        func psql(_ sql: String) throws -> String {
            try PSQLTool.run(nil, "SET search_path TO strata_inspect; " + sql)
        }

        @Test("inspect prints these models, which pass the checked mapping and read every row")
        func inspectReadsEveryRow() async throws {
            try #require(PostgresTestServer.baseURL == "postgres://", "psql follows the PG* environment only")
            let db = try await PostgresTestServer.freshSchema("strata_inspect", "migrate=off")
            defer { db.close() }
            _ = try psql(PGInspectFixture.sql)
            let source = try await db.withConnection { tx in try ModelSource.inspect(tx) }
            #expect(source == (try PGInspectFixture.expectedSource()))
            try await db.migrate(Customer.self, Gadget.self, Keyword.self, Purchase.self, PurchaseKeyword.self)
            for (table, count) in [
                ("gadget", try await Gadget.query(on: db).all().count),
                ("customer", try await Customer.query(on: db).all().count),
                ("keyword", try await Keyword.query(on: db).all().count),
                ("purchase", try await Purchase.query(on: db).all().count),
                ("purchase_keyword", try await PurchaseKeyword.query(on: db).all().count),
            ] {
                #expect("\(count)" == (try psql("SELECT count(*) FROM \(table)")), "\(table)")
            }
            let purchases = try await Purchase.query(on: db).including(Purchase.keywords).order(\.id).all()
            #expect(purchases.map(\.total) == [Decimal(string: "12.5"), Decimal(string: "0.99")].compactMap { $0 })
            #expect(purchases[0].madeAt == DateText.parse("2009-01-01 08:00:00"))
            #expect(try purchases[0].loaded(Purchase.keywords).map(\.label).sorted() == ["gift", "sale"])
            let gadgets = try await Gadget.query(on: db).order(\.id).all()
            #expect(
                gadgets.map(\.spec.text)
                    == (try psql("SELECT spec::text FROM gadget ORDER BY id")).split(separator: "\n").map(String.init))
            #expect(gadgets.map { $0.meta?.text } == ["[1, 2]", nil])
            #expect(gadgets.map(\.opens) == ["10:30:00", "23:59:59"])
            #expect(gadgets.map(\.closes) == [try psql("SELECT closes::text FROM gadget WHERE id = 1"), nil])
            #expect(gadgets[0].picture == Data([1, 2]))
            #expect(gadgets[0].serial == UUID(uuidString: "a1b2c3d4-0000-4000-8000-000000000002"))
            #expect(gadgets.map(\.warranty) == ["P1DT2H", nil])  // the session IntervalStyle is iso_8601
            #expect(gadgets.map(\.tags) == ["{x,y}", nil])
            #expect(gadgets.map(\.addr) == ["10.0.0.1", nil])
            try await PostgresTestServer.dropSchema("strata_inspect")
        }
    }
}
