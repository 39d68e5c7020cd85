// LeaseBindArrayTests: the arrays a find and an insert bind from stay with the connection between one-shot calls,
// and each call binds its own values: keys of one and two columns and rows of two models alternate on one
// connection, a failed call between them, on SQLite and the memory driver.
import Foundation
import StrataMemory
import StrataSQLite
import Testing

@testable import Strata

@Model(table: "lease_bind_item")
struct LeaseBindItem: Equatable {
    var id: Int64?
    var label: String
    var note: String?
}

/// The same table read with `note` required: a row whose note is NULL does not decode.
@Model(table: "lease_bind_item")
struct LeaseBindStrictItem {
    var id: Int64?
    var label: String
    var note: String
}

@Model(table: "lease_bind_line", primaryKey: ["orderID", "productID"])
struct LeaseBindLine: Equatable {
    var orderID: Int64
    var productID: Int64
    var quantity: Int
}

@Suite("One-shot calls on one connection bind their own values")
struct LeaseBindArrayTests {
    @Test(
        "finds and saves of keys of one and two columns alternate on one connection", arguments: ["sqlite", "memory"])
    func alternatingWidths(driver: String) async throws {
        let file = TemporarySQLiteFile()
        let url = driver == "sqlite" ? "sqlite:\(file.path)?pool=1" : "memory:?pool=1"
        let db = try Database.open(url, drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(LeaseBindItem.self, LeaseBindLine.self)
        var items: [LeaseBindItem] = []
        for k in 0..<6 {
            var item = LeaseBindItem(label: "item \(k)", note: k % 2 == 0 ? nil : "note \(k)")
            try await item.save(on: db)
            items.append(item)
            var line = LeaseBindLine(orderID: Int64(k), productID: Int64(10 + k), quantity: k)
            try await line.save(on: db)
        }
        for round in 0..<3 {
            for (k, item) in items.enumerated() {
                #expect(try await LeaseBindItem.find(try #require(item.id), on: db) == item, "round \(round)")
                let line = try await LeaseBindLine.find(
                    LeaseBindLine.ID(orderID: Int64(k), productID: Int64(10 + k)), on: db)
                #expect(line?.quantity == k)
                // A key of two columns whose second value is another line's: no row.
                #expect(
                    try await LeaseBindLine.find(
                        LeaseBindLine.ID(orderID: Int64(k), productID: Int64(11 + k)), on: db) == nil)
            }
            // A find that throws between them (a NULL note read into a non-optional property), its key taken.
            await #expect(throws: StrataError.self) {
                _ = try await LeaseBindStrictItem.find(try #require(items[0].id), on: db)
            }
            #expect(try await LeaseBindStrictItem.find(try #require(items[1].id), on: db)?.note == "note 1")
        }
        #expect(try await LeaseBindItem.query(on: db).count() == 6)
        #expect(try await LeaseBindLine.query(on: db).count() == 6)
    }
}
