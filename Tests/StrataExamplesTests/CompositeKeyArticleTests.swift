// CompositeKeyArticleTests: the lifecycle article's composite primary key example, run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Model(table: "order_line", primaryKey: ["orderID", "productID"])
struct OrderLine {
    var orderID: Int64
    var productID: Int64
    var quantity: Int
}

@Suite("Lifecycle article: composite primary keys")
struct CompositeKeyArticleTests {
    @Test("save inserts then updates, find and delete match both columns", arguments: ["sqlite", "memory"])
    func compositeKey(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ckey-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(OrderLine.self)
        var neighbour = OrderLine(orderID: 7, productID: 4, quantity: 1)
        try await neighbour.save(on: db)

        // ModelLifecycle: "Composite primary keys"
        var line = OrderLine(orderID: 7, productID: 3, quantity: 2)
        try await line.save(on: db)  // INSERT: no row has the key yet
        line.quantity = 5
        try await line.save(on: db)  // UPDATE … WHERE "order_id" = ? AND "product_id" = ?
        let found = try await OrderLine.find(OrderLine.ID(orderID: 7, productID: 3), on: db)
        #expect(found?.quantity == 5)
        #expect(try await OrderLine.find(OrderLine.ID(orderID: 7, productID: 4), on: db)?.quantity == 1)
        try await line.delete(on: db)  // DELETE … WHERE "order_id" = ? AND "product_id" = ?

        #expect(try await OrderLine.query(on: db).all().map(\.productID) == [4])
        let plan = try await db.withConnection { tx in try tx.plan([OrderLine.self]) }
        #expect(plan.isEmpty, "introspection reads the composite key back: a second migration plans nothing")
    }
}
