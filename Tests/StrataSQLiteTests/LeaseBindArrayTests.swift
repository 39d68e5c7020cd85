// LeaseBindArrayTests: the arrays a find and an insert bind from stay with the connection between one-shot calls,
// and each call binds its own values: keys of one and two columns and rows of two models alternate on one
// connection, a failed call between them, on SQLite and the memory driver.
import Foundation
import StrataMemory
import StrataSQLite
import Testing

@testable import Strata

// The models are `SQLiteOneShotFindTests`' (keys of one and of two columns, and the strict reading of the first).

@Suite("One-shot calls on one connection bind their own values")
struct LeaseBindArrayTests {
    @Test(
        "finds and saves of keys of one and two columns alternate on one connection", arguments: ["sqlite", "memory"])
    func alternatingWidths(driver: String) async throws {
        let file = TemporarySQLiteFile()
        let url = driver == "sqlite" ? "sqlite:\(file.path)?pool=1" : "memory:?pool=1"
        let db = try Database.open(url, drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(OneShotItem.self, OneShotLine.self)
        var items: [OneShotItem] = []
        for k in 0..<6 {
            var item = OneShotItem(label: "item \(k)", note: k % 2 == 0 ? nil : "note \(k)")
            try await item.save(on: db)
            items.append(item)
            var line = OneShotLine(orderID: Int64(k), productID: Int64(10 + k), quantity: k)
            try await line.save(on: db)
        }
        for round in 0..<3 {
            for (k, item) in items.enumerated() {
                #expect(try await OneShotItem.find(try #require(item.id), on: db) == item, "round \(round)")
                let line = try await OneShotLine.find(
                    OneShotLine.ID(orderID: Int64(k), productID: Int64(10 + k)), on: db)
                #expect(line?.quantity == k)
                // A key of two columns whose second value is another line's: no row.
                #expect(
                    try await OneShotLine.find(
                        OneShotLine.ID(orderID: Int64(k), productID: Int64(11 + k)), on: db) == nil)
            }
            // A find that throws between them (a NULL note read into a non-optional property), its key taken.
            await #expect(throws: StrataError.self) {
                _ = try await OneShotStrictItem.find(try #require(items[0].id), on: db)
            }
            #expect(try await OneShotStrictItem.find(try #require(items[1].id), on: db)?.note == "note 1")
        }
        #expect(try await OneShotItem.query(on: db).count() == 6)
        #expect(try await OneShotLine.query(on: db).count() == 6)
    }
}
