// SQLiteOneShotFindTests: a one-shot `find(_:on:)` runs as a find on a leased connection does: the same rows, the
// model marked stored, and a find that throws leaves the database and the pool as they were.
import Foundation
import Strata
import StrataSQLite
import Testing

/// A model keyed by one column.
@Model(table: "one_shot_item")
struct OneShotItem: Equatable {
    var id: Int64?
    var label: String
    var note: String?
}

/// The same table read with `note` required: a row whose note is NULL does not decode.
@Model(table: "one_shot_item")
struct OneShotStrictItem {
    var id: Int64?
    var label: String
    var note: String
}

/// A model keyed by two columns.
@Model(table: "one_shot_line", primaryKey: ["orderID", "productID"])
struct OneShotLine: Equatable {
    var orderID: Int64
    var productID: Int64
    var quantity: Int
}

@Suite("SQLite one-shot finds")
struct SQLiteOneShotFindTests {
    @Test("one-shot finds by a key of one column and of two read what finds in a transaction read")
    func answersAsInATransaction() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)?pool=2", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(OneShotItem.self, OneShotLine.self)
        var items = (0..<6).map { OneShotItem(label: "item \($0)", note: $0 % 2 == 0 ? "even" : nil) }
        var lines = (0..<12).map { OneShotLine(orderID: Int64($0 / 3), productID: Int64($0 % 3), quantity: $0 + 1) }
        try await db.transaction { tx in
            try OneShotItem.insertAll(&items, tx)
            try OneShotLine.insertAll(&lines, tx)
        }
        for item in items {
            let id = try #require(item.id)
            let oneShot = try await OneShotItem.find(id, on: db)
            let inTransaction = try await db.transaction { tx in try OneShotItem.find(id, tx) }
            #expect(oneShot == item && inTransaction == item)
            #expect(oneShot?._persistence?.isStored == true)
            #expect(try await OneShotItem.find(-id, on: db) == nil)
        }
        for line in lines {
            let key = OneShotLine.ID(orderID: line.orderID, productID: line.productID)
            #expect(try await OneShotLine.find(key, on: db) == line)
            // The same order with a product it does not have, and the same product in an order that does not exist.
            #expect(try await OneShotLine.find(.init(orderID: line.orderID, productID: 9), on: db) == nil)
            #expect(try await OneShotLine.find(.init(orderID: 99, productID: line.productID), on: db) == nil)
        }
        // Marked stored: a save of a found model updates its row instead of inserting another.
        let renamedID = try #require(items[1].id)
        var found = try #require(try await OneShotItem.find(renamedID, on: db))
        found.label = "renamed"
        try await found.save(on: db)
        #expect(try await OneShotItem.find(renamedID, on: db)?.label == "renamed")
        #expect(try await db.unsafeRawExecute("SELECT count(*) FROM one_shot_item") == [[.integer(6)]])
    }

    @Test("a one-shot find that throws leaves the database and its connection as they were")
    func throwingFindLeavesThingsAsTheyWere() async throws {
        let file = TemporarySQLiteFile()
        // One connection: the finds after the failure run on the connection the failed one leased.
        let db = try Database.open("sqlite:\(file.path)?pool=1", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(OneShotItem.self)
        var items = [OneShotItem(label: "with note", note: "n"), OneShotItem(label: "without note", note: nil)]
        try await db.transaction { tx in try OneShotItem.insertAll(&items, tx) }
        let (withNote, withoutNote) = (try #require(items[0].id), try #require(items[1].id))
        let before = try await db.unsafeRawExecute("SELECT id, label, note FROM one_shot_item ORDER BY id")
        for _ in 0..<3 {
            await #expect(throws: StrataError.self) { try await OneShotStrictItem.find(withoutNote, on: db) }
            #expect(try await OneShotStrictItem.find(withNote, on: db)?.note == "n")
        }
        #expect(try await db.unsafeRawExecute("SELECT id, label, note FROM one_shot_item ORDER BY id") == before)
        // The connection went back in autocommit: a write on it commits, and another connection sees it.
        let other = try Database.open("sqlite:\(file.path)?pool=1", drivers: [.sqlite])
        defer { other.close() }
        var third = OneShotItem(label: "third", note: nil)
        try await third.save(on: db)
        let thirdID = try #require(third.id)
        #expect(try await OneShotItem.find(thirdID, on: other)?.label == "third")
    }
}
