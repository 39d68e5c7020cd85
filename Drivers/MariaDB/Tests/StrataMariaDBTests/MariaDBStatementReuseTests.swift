// MariaDBStatementReuseTests: a prepared statement's kept buffers (binds, result columns) and the unique keys an
// upsert caches per table survive failures, changing value types and schema changes, and never give stale answers.
import Foundation
import Strata
import StrataMariaDB
import Testing

/// A row with a unique `code` and a `qty` a CHECK constraint keeps at 0 or more (added by the tests).
@Model(table: "reuse_item")
struct ReuseItem {
    var id: Int64?
    var code: Int
    var qty: Int
    var name: String

    static var indexes: [Index] { [.on(\ReuseItem.code, unique: true)] }
}

@Suite("MariaDB statement reuse")
struct MariaDBStatementReuseTests {
    /// Rows per full `insertAll`/`upsertAll` chunk of ``ReuseItem`` (three bound columns): the templated statement.
    private static let chunk = 65_535 / 3

    private static func items(_ codes: Range<Int>, qty: Int = 1, bad: Int? = nil) -> [ReuseItem] {
        codes.map { ReuseItem(id: nil, code: $0, qty: $0 == bad ? -1 : qty, name: "item \($0)") }
    }

    /// Every row as `code:qty:name`, by code.
    private static func rows(_ db: Database) async throws -> [String] {
        try await db.unsafeRawExecute("SELECT code, qty, name FROM reuse_item ORDER BY code").map { r in
            r.map { v in
                switch v {
                case .integer(let i): return String(i)
                case .text(let t): return t
                default: return v.summary
                }
            }.joined(separator: ":")
        }
    }

    private static func freshTable(_ name: String, pool: Int = 1) async throws -> Database {
        let db = try await MariaDBTestServer.freshDatabase(name, pool: pool)
        try await db.migrate(ReuseItem.self)
        _ = try await db.unsafeRawExecute("ALTER TABLE reuse_item ADD CONSTRAINT qty_positive CHECK (qty >= 0)")
        return db
    }

    @Test("a failing insertAll chunk on the kept statement leaves rows and models as they were; the next one runs")
    func failingBulkInsert() async throws {
        let db = try await Self.freshTable("strata_reuse_bulk")
        defer { db.close() }
        var first = Self.items(0..<Self.chunk)
        try await ReuseItem.insertAll(&first, on: db)
        #expect(first.allSatisfy { $0.id != nil })
        let before = try await Self.rows(db)
        #expect(before.count == Self.chunk)
        // The same full chunk's statement again (one connection: the template's prepared statement), refused by
        // the CHECK on one row in the middle.
        let bad = Self.items(Self.chunk..<2 * Self.chunk, bad: Self.chunk + 1_000)
        var failing = bad
        await #expect(throws: StrataError.self) { try await ReuseItem.insertAll(&failing, on: db) }
        #expect(failing.map(\.id) == bad.map(\.id), "no model got an id")
        #expect(failing.map(\.qty) == bad.map(\.qty))
        #expect(try await Self.rows(db) == before, "no row was written")
        var again = Self.items(Self.chunk..<2 * Self.chunk, qty: 2)
        try await ReuseItem.insertAll(&again, on: db)
        let ids = again.compactMap(\.id)
        #expect(ids.count == Self.chunk && Set(ids).count == Self.chunk)
        let after = try await Self.rows(db)
        #expect(after.count == 2 * Self.chunk)
        #expect(after.last == "\(2 * Self.chunk - 1):2:item \(2 * Self.chunk - 1)")
        try await MariaDBTestServer.dropDatabase("strata_reuse_bulk")
    }

    @Test("a failing upsertAll chunk on the kept statement leaves rows and models as they were; the next one runs")
    func failingUpsert() async throws {
        let db = try await Self.freshTable("strata_reuse_upsert")
        defer { db.close() }
        var first = Self.items(0..<Self.chunk)
        try await db.transaction { tx in try ReuseItem.upsertAll(&first, tx, onConflict: [\.code]) }
        let ids = first.map(\.id)
        #expect(ids.allSatisfy { $0 != nil })
        let before = try await Self.rows(db)
        // Half stored, half new; one stored row would break the CHECK on update.
        let bad = Self.items(Self.chunk / 2..<Self.chunk / 2 + Self.chunk, qty: 5, bad: Self.chunk / 2 + 10)
        var failing = bad
        await #expect(throws: StrataError.self) {
            try await db.transaction { tx in try ReuseItem.upsertAll(&failing, tx, onConflict: [\.code]) }
        }
        #expect(failing.map(\.id) == bad.map(\.id), "no model got an id")
        #expect(failing.map(\.qty) == bad.map(\.qty))
        #expect(try await Self.rows(db) == before, "no row was written or updated")
        var again = Self.items(Self.chunk / 2..<Self.chunk / 2 + Self.chunk, qty: 5)
        try await db.transaction { tx in try ReuseItem.upsertAll(&again, tx, onConflict: [\.code]) }
        #expect(Array(again.prefix(Self.chunk / 2 + 1).map(\.id)) == Array(ids.suffix(Self.chunk / 2 + 1)))
        let after = try await Self.rows(db)
        #expect(after.count == Self.chunk + Self.chunk / 2)
        #expect(after.first == "0:1:item 0" && after[Self.chunk / 2] == "\(Self.chunk / 2):5:item \(Self.chunk / 2)")
        try await MariaDBTestServer.dropDatabase("strata_reuse_upsert")
    }

    @Test("one cached statement run with values of changing types and lengths binds and reads each exactly")
    func changingValues() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_reuse_values", pool: 1)
        defer { db.close() }
        let long = String(repeating: "é", count: 3_000)
        let values: [DatabaseValue] = [
            .integer(7), .text("a"), .null, .text(long), .text(""), .double(-2.5), .null, .integer(Int64.min),
            .text("b"), .blob(Data([0, 255])), .text(long + "!"), .integer(1),
        ]
        let url = try DatabaseURL(try MariaDBTestServer.baseURL + "/strata_reuse_values", drivers: [.mariadb])
        let connection = try MariaDBDriver(options: try MariaDBConnectionOptions(url: url)).connect()
        for (n, value) in values.enumerated() {
            let other: DatabaseValue = n % 2 == 0 ? .text("x\(n)") : .integer(Int64(n))
            var rows: [[DatabaseValue]] = []
            _ = try connection.executeRaw("SELECT ?, ?", [value, other]) { r in
                rows.append((0..<r.columnCount).map { r.value(at: $0) })
            }
            #expect(rows == [[value, other]], "execution \(n)")
        }
        try await MariaDBTestServer.dropDatabase("strata_reuse_values")
    }

    @Test("a unique key added through one connection is seen by another's next upsert: a violation, not an update")
    func uniqueKeysFollowSchemaChanges() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_reuse_keys")
        defer { db.close() }
        try await db.migrate(ReuseItem.self)
        let url = try DatabaseURL(try MariaDBTestServer.baseURL + "/strata_reuse_keys", drivers: [.mariadb])
        let driver = MariaDBDriver(options: try MariaDBConnectionOptions(url: url))
        let upserting = try driver.connect()
        let migrating = try driver.connect()
        func upsert(_ code: Int64, _ name: String) throws -> [DatabaseValue] {
            var ids: [DatabaseValue] = []
            _ = try upserting.execute(
                .insert(
                    Insert(
                        table: "reuse_item", columns: ["code", "qty", "name"],
                        rows: [[.integer(code), .integer(1), .text(name)]], returning: "id",
                        onConflict: OnConflict(target: ["code"], action: .update(set: ["qty", "name"], increment: []))))
            ) { ids.append($0.value(at: 0)) }
            return ids
        }
        // The upserting connection reads (and keeps) the table's unique keys: the key and code only.
        #expect(try upsert(1, "one") == [.integer(1)])
        #expect(try upsert(2, "two") == [.integer(2)])
        _ = try migrating.executeRaw("CREATE UNIQUE INDEX reuse_item_name ON reuse_item (name)", []) { _ in }
        let before = try await Self.rows(db)
        // Code 3 is new but takes code 1's name: ON DUPLICATE KEY UPDATE would update code 1's row instead.
        do {
            _ = try upsert(3, "one")
            Issue.record("expected a unique violation")
        } catch StrataError.uniqueViolation(let table, let columns) {
            #expect(table == "reuse_item" && columns == ["name"])
        }
        #expect(try await Self.rows(db) == before)
        // Dropped again (through the same driver): ON DUPLICATE KEY UPDATE on the code is back, and it updates.
        _ = try migrating.executeRaw("DROP INDEX reuse_item_name ON reuse_item", []) { _ in }
        #expect(try upsert(2, "one") == [.integer(2)])
        #expect(try await Self.rows(db) == ["1:1:one", "2:1:one"])
        try await MariaDBTestServer.dropDatabase("strata_reuse_keys")
    }

    @Test("rows are read unbuffered: values outgrowing the column buffers mid-result and in the next result read whole")
    func valuesOutgrowBuffers() async throws {
        let db = try await Self.freshTable("strata_reuse_grow")
        defer { db.close() }
        // Short names first, then each twice as long as the one before (past 64, 128, … 8,192 bytes), then short
        // again: each long one is read again into a grown buffer, the short ones after it from that buffer.
        let lengths = [1, 3, 70, 10, 129, 300, 5, 1_000, 8_193, 2, 20_000, 0]
        var items = lengths.enumerated().map { i, n in
            ReuseItem(
                id: nil, code: i, qty: n, name: String(repeating: Character(UnicodeScalar(97 + i % 26)!), count: n))
        }
        try await ReuseItem.insertAll(&items, on: db)
        for _ in 0..<2 {  // the kept statement's grown buffers serve the next execution
            let read = try await ReuseItem.query(on: db).order(\.code).all()
            #expect(read.map(\.name) == items.map(\.name))
            #expect(read.map(\.name.utf8.count) == lengths)
        }
        try await MariaDBTestServer.dropDatabase("strata_reuse_grow")
    }

    @Test("a statement inside forEach's body is a typed unsupported error, and the connection stays usable")
    func nestedStatementInForEach() async throws {
        let db = try await Self.freshTable("strata_reuse_nested")
        defer { db.close() }
        var items = Self.items(0..<3)
        try await ReuseItem.insertAll(&items, on: db)
        try await db.transaction { tx in
            var seen = 0
            #expect {
                try ReuseItem.query(on: tx).order(\.code).forEach { item in
                    seen += 1
                    _ = try ReuseItem.find(item.id ?? -1, tx)
                }
            } throws: { error in
                guard case StrataError.unsupported(_, let driver) = error else { return false }
                return driver == "mariadb"
            }
            #expect(seen == 1, "the body stopped at the first row")
            #expect(try ReuseItem.query(on: tx).count() == 3, "the rest of the result was flushed")
            var streamed: [Int] = []
            try ReuseItem.query(on: tx).order(\.code).forEach { streamed.append($0.code) }
            #expect(streamed == [0, 1, 2])
        }
        #expect(try await Self.rows(db).count == 3)
        try await MariaDBTestServer.dropDatabase("strata_reuse_nested")
    }
}
