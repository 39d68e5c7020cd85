// MariaDBInsertIDTests: INSERTs read their new keys from the insert id (consecutive under InnoDB's lock mode 1), and
// every model gets the key of its own row, under concurrent writers too.
import Foundation
import Strata
import StrataMariaDB
import Testing

@Model(table: "insert_id_item")
struct InsertIDItem {
    var id: Int64?
    var code: Int
    var label: String
}

@Suite("MariaDB insert ids")
struct MariaDBInsertIDTests {
    /// Every stored row's code by id.
    private static func codes(_ db: Database) async throws -> [Int64: Int] {
        var out: [Int64: Int] = [:]
        for r in try await db.unsafeRawExecute("SELECT id, code FROM insert_id_item") {
            if case .integer(let id) = r[0], case .integer(let code) = r[1] { out[id] = Int(code) }
        }
        return out
    }

    @Test("saves and insertAll chunks from four tasks at once, after gaps: each model's id is its own row's")
    func concurrentWriters() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_insert_ids", pool: 4)
        defer { db.close() }
        try await db.migrate(InsertIDItem.self)
        let url = try DatabaseURL(try MariaDBTestServer.baseURL + "/strata_insert_ids", drivers: [.mariadb])
        let connection = try MariaDBDriver(options: try MariaDBConnectionOptions(url: url)).connect()
        #expect((connection as? MariaDBConnection)?.readsKeysFromInsertID == true, "the server runs lock mode 1")
        // A counter that does not start at 1, and gaps: the keys come from the counter, never from max(id).
        _ = try await db.unsafeRawExecute("ALTER TABLE insert_id_item AUTO_INCREMENT = 1000")
        var first = (0..<10).map { InsertIDItem(id: nil, code: -$0 - 1, label: "first") }
        try await InsertIDItem.insertAll(&first, on: db)
        #expect(first.compactMap(\.id) == Array(1_000..<1_010))
        _ = try await db.unsafeRawExecute("DELETE FROM insert_id_item WHERE code < -5")
        // Four writers interleave multi-row INSERTs (chunks of 21,845 rows and a last shorter one) and single saves.
        let written = try await withThrowingTaskGroup(of: [InsertIDItem].self) { group in
            for w in 0..<4 {
                group.addTask {
                    var out: [InsertIDItem] = []
                    for round in 0..<3 {
                        let base = 1_000_000 * w + 100_000 * round
                        var batch = (0..<(round == 1 ? 30_000 : 500)).map {
                            InsertIDItem(id: nil, code: base + $0, label: "batch")
                        }
                        try await InsertIDItem.insertAll(&batch, on: db)
                        out += batch
                        var one = InsertIDItem(id: nil, code: base + 99_999, label: "one")
                        try await one.save(on: db)
                        out.append(one)
                    }
                    return out
                }
            }
            var all: [InsertIDItem] = []
            for try await part in group { all += part }
            return all
        }
        let stored = try await Self.codes(db)
        let perWriter = 500 + 30_000 + 500 + 3
        #expect(written.count == 4 * perWriter)
        #expect(written.allSatisfy { $0.id != nil })
        let mismatched = written.filter { m in m.id.flatMap { stored[$0] } != m.code }
        #expect(mismatched.isEmpty, "\(mismatched.count) models hold another row's id")
        #expect(Set(written.compactMap(\.id)).count == written.count)
        #expect(stored.count == written.count + 5)
        try await MariaDBTestServer.dropDatabase("strata_insert_ids")
    }

    @Test("a failing multi-row INSERT leaves every model without an id and writes nothing; the next one numbers on")
    func failingInsertKeepsModels() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_insert_ids_fail", pool: 1)
        defer { db.close() }
        try await db.migrate(InsertIDItem.self)
        _ = try await db.unsafeRawExecute("ALTER TABLE insert_id_item ADD CONSTRAINT code_small CHECK (code < 1000)")
        let bad = (995..<1_005).map { InsertIDItem(id: nil, code: $0, label: "x") }
        var failing = bad
        await #expect(throws: StrataError.self) { try await InsertIDItem.insertAll(&failing, on: db) }
        #expect(failing.map(\.id) == bad.map(\.id))
        #expect(try await Self.codes(db).isEmpty)
        var good = (0..<3).map { InsertIDItem(id: nil, code: $0, label: "y") }
        try await InsertIDItem.insertAll(&good, on: db)
        let stored = try await Self.codes(db)
        #expect(good.allSatisfy { m in m.id.flatMap { stored[$0] } == m.code })
        try await MariaDBTestServer.dropDatabase("strata_insert_ids_fail")
    }
}
