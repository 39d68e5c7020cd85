// ReadmeGeneratedTests: the lifecycle article's generated column example, run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Model struct LineItem {
    var id: Int64?
    var price: Int64
    var quantity: Int64
    @Generated var total: Int64 = 0
    static var generatedColumns: [GeneratedColumn<LineItem>] { [GeneratedColumn(\.total, as: \.price * \.quantity)] }
}

@Suite("Lifecycle article: generated columns")
struct ReadmeGeneratedTests {
    @Test("the total is computed, read back, queried and refused as a target", arguments: ["sqlite", "memory"])
    func generated(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(LineItem.self)

        // ModelLifecycle: "Generated columns"
        var item = LineItem(price: 250, quantity: 4)
        try await item.save(on: db)  // item.total == 1000, read back after the INSERT
        let big = try await LineItem.query(on: db).where(\.total > 500).order(\.total).all()

        #expect(item.total == 1000)
        #expect(big.map(\.id) == [item.id])
        await #expect(throws: StrataError.generatedColumn(
            model: "LineItem", column: "total", reason: "cannot be set by update(): the database computes it")
        ) {
            try await LineItem.query(on: db).set(\.total, to: 1).update()
        }
    }
}
