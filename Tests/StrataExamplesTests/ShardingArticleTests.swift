// ShardingArticleTests: the "Sharding by key" article's examples, compiled and run on memory and SQLite shards.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Model
struct Shipment {
    var id: Int64?
    var tenantID: Int64
    var reference: String
    var weight: Int
}
extension Shipment: ShardedModel {
    static var shardKey: KeyPath<Shipment, Int64> { \.tenantID }
}

@Model
struct Currency {  // reference data: not sharded, lives on the global shard
    var id: Int64?
    var code: String
}

@Suite struct ShardingArticleTests {
    @Test("the article's examples run", arguments: ["memory", "sqlite"])
    func article(_ driver: String) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sharding-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func open(_ name: String) throws -> Database {
            driver == "memory"
                ? try Database.open("memory:", drivers: [.memory])
                : try Database.open("sqlite:\(dir)/\(name).sqlite", drivers: [.sqlite])
        }
        // Article: "Sharding by key" (the article opens postgres://db1/app and postgres://db2/app)
        let sharded = try ShardedDatabase(
            shards: [try open("db1"), try open("db2")],
            globalShard: 0)
        try await sharded.migrate(Shipment.self, Currency.self)  // every shard, one after the other

        var parcel = Shipment(tenantID: 42, reference: "P-1", weight: 3)
        try await parcel.save(on: sharded)  // the shard of tenant 42
        let theirs = try await Shipment.query(on: sharded).where(\.tenantID == 42).order(\.reference).all()
        let heaviest = try await Shipment.query(on: sharded).fanOut()
            .order(\.weight, .descending).order(\.reference).limit(10).all()  // every shard, merged
        // end of the article's first example
        #expect(theirs.map(\.reference) == ["P-1"])
        #expect(heaviest.map(\.reference) == ["P-1"])
        #expect(try await Shipment.query(on: sharded.on(shard: sharded.shard(for: Int64(42)))).count() == 1)

        try await sharded.transaction(routedBy: Int64(42)) { stx in
            var first = Shipment(tenantID: 42, reference: "P-2", weight: 1)
            try stx.save(&first)
            let count = try stx.query(Shipment.self, key: 42).count()
            print(count)
            #expect(count == 2)  // the article prints only
        }
        // end of the article's transaction example
        var euro = Currency(code: "EUR")
        try await euro.save(on: sharded)
        #expect(try await Currency.query(on: sharded.on(shard: 0)).count() == 1)
        let found = try await Shipment.find(parcel.id ?? 0, shardKey: 42, on: sharded)
        #expect(found?.reference == "P-1")
    }
}
