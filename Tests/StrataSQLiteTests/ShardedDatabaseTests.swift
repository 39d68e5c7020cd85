// ShardedDatabaseTests: routing by shard key, refusal of cross-shard work, fan-out merges, on memory and SQLite.
import Foundation
import Strata
import StrataConformance
import StrataMemory
import StrataSQLite
import Testing

@Model(table: "shard_order")
struct ShardOrder {
    var id: Int64?
    var customerID: Int64
    var reference: String
    var total: Int
    var note: String?
    static var indexes: [Index] { [.on(\ShardOrder.reference, unique: true)] }
}

extension ShardOrder: ShardedModel {
    static var shardKey: KeyPath<ShardOrder, Int64> { \.customerID }
}

@Model(table: "shard_country")
struct ShardCountry {
    var id: Int64?
    var code: String
}

/// Shards (and one unsharded database holding every row, for comparison) on memory or on SQLite files.
final class ShardSet {
    let driver: String
    private var paths: [String] = []

    init(_ driver: String) { self.driver = driver }

    func open() throws -> Database {
        guard driver == "sqlite" else { return try Database.open("memory:", drivers: [.memory]) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-shard-\(UUID()).sqlite").path
        paths.append(path)
        return try Database.open("sqlite:\(path)", drivers: [.sqlite])
    }

    func sharded(_ n: Int, globalShard: Int? = 0) throws -> ShardedDatabase {
        try ShardedDatabase(shards: (0..<n).map { _ in try open() }, globalShard: globalShard)
    }

    deinit {
        for path in paths {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }
}

/// The orders of the tests: 60 over 20 customers, totals with ties and NULL notes.
func shardOrders() -> [ShardOrder] {
    (0..<60).map { i in
        ShardOrder(
            customerID: Int64(i % 20 + 1), reference: "R\(String(format: "%03d", 59 - i))", total: (i * 7) % 13,
            note: i % 4 == 0 ? nil : ["b", "a", "é", "Z"][i % 4])
    }
}

/// The rows of each shard, counted on the shard itself.
func rowsPerShard(_ sharded: ShardedDatabase) async throws -> [Int] {
    var counts: [Int] = []
    for shard in sharded.shards { counts.append(try await ShardOrder.query(on: shard).count()) }
    return counts
}

@Suite("Sharded database (memory and SQLite)")
struct ShardedDatabaseTests {
    @Test("each row lands on its key's shard, and both shards hold rows", arguments: ["memory", "sqlite"])
    func routing(_ driver: String) async throws {
        let set = ShardSet(driver)
        let sharded = try set.sharded(2)
        try await sharded.migrate(ShardOrder.self, ShardCountry.self)
        for var order in shardOrders() { try await order.save(on: sharded) }
        let counts = try await rowsPerShard(sharded)
        #expect(counts.reduce(0, +) == 60)
        #expect(counts.allSatisfy { $0 > 0 })
        for (index, shard) in sharded.shards.enumerated() {
            for order in try await ShardOrder.query(on: shard).all() {
                #expect(try sharded.shard(for: order.customerID) == index)
            }
        }
        var c = ShardCountry(code: "FR")
        try await c.save(on: sharded)
        #expect(try await ShardCountry.query(on: sharded.shards[0]).count() == 1)
        #expect(try await ShardCountry.query(on: sharded.shards[1]).count() == 0)
        #expect(try await ShardCountry.find(c.id ?? 0, on: sharded)?.code == "FR")
    }

    @Test("a query pinned to one key runs on its shard only", arguments: ["memory", "sqlite"])
    func pinned(_ driver: String) async throws {
        let set = ShardSet(driver)
        let sharded = try set.sharded(2)
        try await sharded.migrate(ShardOrder.self)
        for var order in shardOrders() { try await order.save(on: sharded) }
        let home = try sharded.shard(for: Int64(7))
        let before = sharded.shards.map(\.statementCount)
        let sevens = try await ShardOrder.query(on: sharded).where(\.customerID == 7 && \.total >= 0).all()
        let after = sharded.shards.map(\.statementCount)
        #expect(sevens.count == 3 && sevens.allSatisfy { $0.customerID == 7 })
        #expect(after[home] == before[home] + 1)
        #expect(after[1 - home] == before[1 - home])

        // An IN list within one shard is pinned; across shards it is refused, naming the model.
        let sameShard = try (1...20).map(Int64.init).filter { try sharded.shard(for: $0) == home }
        let both = try await ShardOrder.query(on: sharded).where(\.customerID, in: Array(sameShard.prefix(2))).count()
        #expect(both == 6)
        let otherKey = try #require(try (1...20).map(Int64.init).first { try sharded.shard(for: $0) != home })
        await #expect(throws: StrataError.crossShard(model: "ShardOrder", reason: Self.unpinned)) {
            try await ShardOrder.query(on: sharded).where(\.customerID, in: [7, otherKey]).all()
        }
        await #expect(throws: StrataError.crossShard(model: "ShardOrder", reason: Self.unpinned)) {
            try await ShardOrder.query(on: sharded).where(\.total > 3).count()
        }
        await #expect(throws: StrataError.crossShard(model: "ShardOrder", reason: Self.unpinned)) {
            try await ShardOrder.query(on: sharded).where(\.customerID == 7 || \.total > 3).first()
        }
        // Two keys ANDed pin no shard that can hold a row: the answer is empty, not an error.
        #expect(
            try await ShardOrder.query(on: sharded).where(\.customerID == 7).where(\.customerID == otherKey).all()
                .isEmpty)
        let found = try await ShardOrder.find(sevens[0].id ?? 0, shardKey: 7, on: sharded)
        #expect(found?.reference == sevens[0].reference)
        await #expect(throws: StrataError.self) { try await ShardOrder.find(1, on: sharded) }
    }

    static let unpinned =
        "the query does not pin the shard key customer_id to one shard: add where(\\.key == value) (or an IN list "
        + "of one shard), or ask fanOut() to read every shard"

    @Test(
        "a fanned-out ordered query equals the query on one database holding every row",
        arguments: ["memory", "sqlite"])
    func fanOutMatchesUnsharded(_ driver: String) async throws {
        let set = ShardSet(driver)
        let sharded = try set.sharded(3)
        let whole = try set.open()
        try await sharded.migrate(ShardOrder.self)
        try await whole.migrate(ShardOrder.self)
        for var order in shardOrders() {
            var copy = order
            try await order.save(on: sharded)
            try await copy.save(on: whole)
        }
        #expect(try await rowsPerShard(sharded).allSatisfy { $0 > 0 })
        for (limit, offset) in [(nil, nil), (10, nil), (7, 5), (100, 55), (5, 70)] as [(Int?, Int?)] {
            func page<E>(_ q: QueryBuilder<ShardOrder, E>) -> QueryBuilder<ShardOrder, E> {
                var q = q.where(\.total != 5).order(\.note).order(\.total, .descending).order(\.reference)
                if let limit { q = q.limit(limit) }
                if let offset { q = q.offset(offset) }
                return q
            }
            let merged = try await page(ShardOrder.query(on: sharded).fanOut()).all().map(\.reference)
            let expected = try await page(ShardOrder.query(on: whole)).all().map(\.reference)
            #expect(merged == expected, "limit \(String(describing: limit)) offset \(String(describing: offset))")
        }
        let merged = try await ShardOrder.query(on: sharded).fanOut().order(\.note, .descending).order(\.reference)
            .all().map(\.reference)
        let expected = try await ShardOrder.query(on: whole).order(\.note, .descending).order(\.reference).all()
            .map(\.reference)
        #expect(merged == expected && merged.count == 60)
        let values = try await ShardOrder.query(on: sharded).fanOut().order(\.note, .descending).order(\.reference)
            .limit(9).offset(3).values(\.reference)
        #expect(values == Array(expected[3..<12]))
        #expect(try await ShardOrder.query(on: sharded).where(\.customerID == 2).values(\.customerID) == [2, 2, 2])

        // Aggregates combine; avg is refused across shards and allowed on one.
        let all = ShardOrder.query(on: sharded).fanOut().where(\.total > 2)
        let one = ShardOrder.query(on: whole).where(\.total > 2)
        #expect(try await all.count() == one.count())
        #expect(try await all.sum(\.total) == one.sum(\.total))
        #expect(try await all.min(\.total) == one.min(\.total))
        #expect(try await all.max(\.note) == one.max(\.note))
        #expect(try await all.exists())
        await #expect(throws: StrataError.self) { try await all.avg(\.total) }
        #expect(try await ShardOrder.query(on: sharded).where(\.customerID == 3).avg(\.total) != nil)
        await #expect(throws: StrataError.self) { try await all.distinct().count() }
        await #expect(throws: StrataError.self) { try await all.order(\.total * 2).all() }
        let unselected = StrataError.crossShard(
            model: "ShardOrder", reason: "a fanned-out query cannot merge by total, which it does not select")
        await #expect(throws: unselected) {
            try await ShardOrder.query(on: sharded).fanOut().only(\.id, \.customerID, \.reference).order(\.total).all()
        }
        let firstMerged = try await ShardOrder.query(on: sharded).fanOut().order(\.total, .descending)
            .order(\.reference).offset(4).first()
        let firstWhole = try await ShardOrder.query(on: whole).order(\.total, .descending).order(\.reference)
            .offset(4).first()
        #expect(firstMerged?.reference == firstWhole?.reference && firstMerged != nil)
    }

    @Test("random fanned-out queries equal the same queries on one database", arguments: ["memory", "sqlite"])
    func randomFanOut(_ driver: String) async throws {
        let set = ShardSet(driver)
        let sharded = try set.sharded(3)
        let whole = try set.open()
        try await sharded.migrate(ShardOrder.self)
        try await whole.migrate(ShardOrder.self)
        for var order in shardOrders() {
            var copy = order
            try await order.save(on: sharded)
            try await copy.save(on: whole)
        }
        var rng = SplitMix(seed: 20_261_128)
        for round in 0..<150 {
            func build<E>(_ base: QueryBuilder<ShardOrder, E>, _ r: inout SplitMix) -> QueryBuilder<ShardOrder, E> {
                var q = base
                switch r.next(4) {
                case 0: q = q.where(\.total < Int(r.next(13)))
                case 1: q = q.where(\.note == nil || \.note > "a")
                case 2: q = q.where(\.customerID, in: (0..<r.next(5)).map { _ in Int64(r.next(25)) })
                default: break
                }
                for _ in 0..<r.next(3) {
                    let direction: Ordering.Direction = r.next(2) == 0 ? .ascending : .descending
                    switch r.next(3) {
                    case 0: q = q.order(\.note, direction)
                    case 1: q = q.order(\.total, direction)
                    default: q = q.order(\.customerID, direction)
                    }
                }
                q = q.order(\.reference, r.next(2) == 0 ? .ascending : .descending)
                if r.next(3) > 0 { q = q.limit(Int(r.next(30))) }
                if r.next(2) == 0 { q = q.offset(Int(r.next(70))) }
                return q
            }
            var again = rng
            let merged = try await build(ShardOrder.query(on: sharded).fanOut(), &rng).all().map(\.reference)
            let expected = try await build(ShardOrder.query(on: whole), &again).all().map(\.reference)
            #expect(merged == expected, "round \(round)")
        }
    }

    @Test("writes pin one shard; a fan-out write and a moved key are refused", arguments: ["memory", "sqlite"])
    func writes(_ driver: String) async throws {
        let set = ShardSet(driver)
        let sharded = try set.sharded(2)
        try await sharded.migrate(ShardOrder.self)
        for var order in shardOrders() { try await order.save(on: sharded) }
        #expect(try await ShardOrder.query(on: sharded).where(\.customerID == 4).set(\.total, to: 99).update() == 3)
        #expect(try await ShardOrder.query(on: sharded).fanOut().where(\.total == 99).count() == 3)
        await #expect(throws: StrataError.self) {
            try await ShardOrder.query(on: sharded).fanOut().where(\.total == 99).delete()
        }
        await #expect(throws: StrataError.self) {
            try await ShardOrder.query(on: sharded).where(\.customerID == 4).set(\.customerID, to: 5).update()
        }
        #expect(try await ShardOrder.query(on: sharded).where(\.customerID == 4).delete() == 3)
        #expect(try await rowsPerShard(sharded).reduce(0, +) == 57)

        // A saved model whose key was assigned: refused, the model and every shard as they were.
        var moved = try #require(try await ShardOrder.query(on: sharded).where(\.customerID == 6).first())
        let kept = moved
        moved.customerID = 8
        let before = try await rowsPerShard(sharded)
        await #expect(throws: StrataError.self) { try await moved.save(on: sharded) }
        #expect(moved.customerID == 8 && moved.id == kept.id)
        #expect(try await rowsPerShard(sharded) == before)
        let found = try await ShardOrder.find(kept.id ?? 0, shardKey: 6, on: sharded)
        #expect(found?.reference == kept.reference && found?.customerID == 6)
    }

    @Test("a failed save leaves the model and every shard as they were", arguments: ["memory", "sqlite"])
    func failedSave(_ driver: String) async throws {
        let set = ShardSet(driver)
        let sharded = try set.sharded(2)
        try await sharded.migrate(ShardOrder.self)
        for var order in shardOrders() { try await order.save(on: sharded) }
        let before = try await rowsPerShard(sharded)
        // R010 belongs to customer 10: a customer of the same shard repeats it.
        let home = try sharded.shard(for: Int64(10))
        let neighbour = try #require(try (11...60).map(Int64.init).first { try sharded.shard(for: $0) == home })
        var duplicate = ShardOrder(customerID: neighbour, reference: "R010", total: 1)
        let error = await #expect(throws: StrataError.self) { try await duplicate.save(on: sharded) }
        guard case .uniqueViolation = error else {
            Issue.record("expected a unique violation, got \(String(describing: error))")
            return
        }
        #expect(duplicate.id == nil && duplicate.reference == "R010")
        #expect(try await rowsPerShard(sharded) == before)
    }

    @Test("a transaction stays on one shard: a write to another rolls it all back", arguments: ["memory", "sqlite"])
    func transactions(_ driver: String) async throws {
        let set = ShardSet(driver)
        let sharded = try set.sharded(2)
        try await sharded.migrate(ShardOrder.self, ShardCountry.self)
        let home = try sharded.shard(for: Int64(1))
        let away = try #require(try (2...40).map(Int64.init).first { try sharded.shard(for: $0) != home })
        var stray = ShardOrder(customerID: away, reference: "away", total: 2)
        await #expect(throws: StrataError.self) {
            try await sharded.transaction(routedBy: Int64(1)) { stx in
                var mine = ShardOrder(customerID: 1, reference: "mine", total: 1)
                try stx.save(&mine)
                #expect(try stx.query(ShardOrder.self, key: 1).count() == 1)
                try stx.save(&stray)
            }
        }
        #expect(stray.id == nil)
        #expect(try await rowsPerShard(sharded) == [0, 0])
        let saved = try await sharded.transaction(shard: home) { stx in
            var mine = ShardOrder(customerID: 1, reference: "mine", total: 1)
            try stx.save(&mine)
            #expect(throws: StrataError.self) { try stx.query(ShardOrder.self, key: away) }
            return mine
        }
        let read = try await ShardOrder.query(on: sharded).where(\.customerID == 1).first()
        #expect(read?.id == saved.id && read?.reference == "mine")
        await #expect(throws: StrataError.self) { try await sharded.transaction(shard: 2) { _ in } }
    }

    @Test("migrate names the shard that failed and those migrated before it", arguments: ["memory", "sqlite"])
    func migrationFailure(_ driver: String) async throws {
        let set = ShardSet(driver)
        let sharded = try set.sharded(3)
        sharded.shards[2].close()
        let error = await #expect(throws: StrataError.self) { try await sharded.migrate(ShardOrder.self) }
        guard case .shardMigrationIncomplete(let failed, let migrated, _) = error else {
            Issue.record("expected shardMigrationIncomplete, got \(String(describing: error))")
            return
        }
        #expect(failed == 2 && migrated == [0, 1])
        #expect(try await ShardOrder.query(on: sharded.shards[1]).count() == 0)
    }

    @Test("the conformance suite passes on each shard's database", arguments: ["memory", "sqlite"])
    func conformancePerShard(_ driver: String) async throws {
        let set = ShardSet(driver)
        let sharded = try set.sharded(2)
        for (index, shard) in sharded.shards.enumerated() {
            let results = await ConformanceSuite.runAll(on: shard)
            let passed = results.filter { $0.outcome == .passed }.count
            print("conformance[\(driver) shard \(index)]: \(passed)/\(results.count) cases pass")
            let unsupported = results.filter { if case .unsupported = $0.outcome { true } else { false } }.count
            #expect(passed + unsupported == ConformanceSuite.cases.count)
            #expect(!results.contains { $0.outcome.isFailure })
        }
    }

    @Test("unsharded models without a global shard, and bad shard arguments, are refused typed")
    func refusals() async throws {
        let set = ShardSet("memory")
        let sharded = try set.sharded(2, globalShard: nil)
        try await sharded.migrate(ShardCountry.self)
        var country = ShardCountry(code: "FR")
        await #expect(throws: StrataError.self) { try await country.save(on: sharded) }
        #expect(country.id == nil)
        await #expect(throws: StrataError.self) { try await ShardCountry.query(on: sharded).all() }
        #expect(throws: StrataError.invalidArgument("shards", reason: "a sharded database needs a shard")) {
            try ShardedDatabase(shards: [])
        }
        #expect(throws: StrataError.self) { try ShardedDatabase(shards: [try set.open()], globalShard: 1) }
        #expect(throws: StrataError.self) { try sharded.on(shard: -1) }
    }
}

/// A small seeded generator (SplitMix64), so a failing round can be replayed.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    /// A value in `0..<bound`.
    mutating func next(_ bound: UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return (z ^ (z >> 31)) % bound
    }
}
