// ReadmeUpsertTests: the README's "Upsert, long IN lists, raw conditions" example, compiled and run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

// README: "Upsert, long IN lists, raw conditions"
@Model struct Product {
    var id: Int64?
    var sku: String
    var name: String
    var stock = 0
    static var indexes: [Index] { [.on(\Product.sku, unique: true)] }  // an upsert's target must be one
}

@Suite("README upsert example")
struct ReadmeUpsertTests {
    @Test("upsert, upsertAll, a 100,000-id IN list and a raw condition", arguments: ["sqlite", "memory"])
    func example(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ups-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Product.self)

        var lamp = Product(sku: "L-1", name: "Lamp", stock: 3)
        try await lamp.upsert(on: db, onConflict: \.sku)  // INSERT … ON CONFLICT ("sku") DO UPDATE SET …
        var restock = Product(sku: "L-1", name: "ignored", stock: 9)
        try await restock.upsert(on: db, onConflict: \.sku, do: .update(\.stock))  // restock.id == lamp.id
        var batch = [Product(sku: "L-1", name: "Lamp"), Product(sku: "D-2", name: "Desk")]
        try await Product.upsertAll(&batch, on: db, onConflict: [\.sku], do: .nothing)  // keeps L-1; both get ids

        let ids = Array(Int64(1)...100_000)
        let some = try await Product.query(on: db).where(\.id, in: ids).all()  // one bound array, any length
        let low = try await Product.query(on: db).where(unsafeRaw: "stock < ? AND name LIKE 'L%'", 5).all()

        #expect(restock.id == lamp.id)
        #expect(batch[0].id == lamp.id && batch[1].id != nil && batch[1].id != lamp.id)
        #expect(some.map(\.sku).sorted() == ["D-2", "L-1"])
        #expect(low.isEmpty)  // the lamp now has 9 in stock
        #expect(try await Product.find(lamp.id ?? -1, on: db).map { "\($0.name):\($0.stock)" } == "Lamp:9")
    }
}
