// SQLiteCheckMemoTests: a connection skips the core's statement check for a SELECT of the key it rendered last after
// that one passed, and only then: another sign of a count, a LIKE pattern ending in its escape or a changed schema
// is checked again.
import Foundation
import StrataSQLite
import Testing

@testable import Strata

@Model(table: "memo_item")
struct MemoItem {
    var id: Int64?
    var n: Int64
    var name: String
}

@Suite("Check memo: a repeated SELECT shape is checked once per connection")
struct SQLiteCheckMemoTests {
    @Test("a shape that passed is remembered with the known tables' generation; other keys and generations are not")
    func remembered() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-memo-\(UUID()).sqlite").path
        let db = try Database.open("sqlite:" + path, drivers: [.sqlite])
        defer {
            db.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        try await db.migrate(MemoItem.self)
        try await db.withConnection { tx in
            for n in 0..<6 {
                var item = MemoItem(n: Int64(n), name: "i\(n)")
                try item.save(tx)
            }
            let cache = try #require((tx.connection as? any SQLConnection)?.renderCache)
            func select(_ bound: Int64, limit: Int, pattern: String = "i%") throws -> Select {
                try MemoItem.query(on: tx).where(\.n > bound).where(\.name ~~ pattern).limit(limit).selectStatement()
            }
            func passed(_ s: Select) -> Bool { cache.passedCheck(s, generation: db.knownSchemas.generation) }
            #expect(!passed(try select(1, limit: 5)), "not run yet")
            #expect(try MemoItem.query(on: tx).where(\.n > 1).where(\.name ~~ "i%").limit(5).all().count == 4)
            #expect(passed(try select(3, limit: 1)), "the same key with other values")
            #expect(!passed(try select(3, limit: -1)), "a negative limit is another key")
            #expect(!passed(try select(3, limit: 1, pattern: "i\\")), "a lone escape is another key")
            #expect(!passed(try MemoItem.query(on: tx).where(\.n < 3).limit(1).selectStatement()), "another shape")
            // The statements of the other keys are refused by the check, as they would be without the memo.
            #expect(throws: StrataError.self) {
                try MemoItem.query(on: tx).where(\.n > 3).where(\.name ~~ "i%").limit(-1).all()
            }
            #expect(throws: StrataError.self) {
                try MemoItem.query(on: tx).where(\.n > 3).where(\.name ~~ "i\\").limit(1).all()
            }
            #expect(passed(try select(0, limit: 9)), "refusals before the connection leave the memo")
            // A table created since: another generation of the known tables, checked again.
            try tx.migrate(
                TableSchema(
                    name: "memo_other",
                    columns: [TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true)]),
                policy: .automatic)
            #expect(!passed(try select(1, limit: 5)), "checked again after a schema change")
            #expect(try MemoItem.query(on: tx).where(\.n > 4).where(\.name ~~ "i%").limit(5).all().count == 1)
            #expect(passed(try select(1, limit: 5)), "and remembered again")
        }
    }
}
