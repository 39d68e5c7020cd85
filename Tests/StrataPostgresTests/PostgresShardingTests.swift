// PostgresShardingTests: a ShardedDatabase over two real PostgreSQL 15 clusters: routing, fan-out, conformance.
import Foundation
import Strata
import StrataConformance
import StrataPostgres
import Testing

@Model(table: "pg_shard_order")
struct PGShardOrder {
    var id: Int64?
    var customerID: Int64
    var reference: String
    var total: Int
    var note: String?
    static var indexes: [Index] { [.on(\PGShardOrder.reference, unique: true)] }
}

extension PGShardOrder: ShardedModel {
    static var shardKey: KeyPath<PGShardOrder, Int64> { \.customerID }
}

/// The pg_virtualenv server (shard 0) and a second cluster this test makes on 127.0.0.1:`STRATA_SHARD_PORT`
/// (5490 by default) with ``StandbyCluster`` (shard 1), stopped and removed at the end.
@Suite(
    "PostgreSQL sharding (two real clusters)", .serialized,
    .enabled(if: PostgresTestServer.enabled && StandbyCluster.enabled))
struct PostgresShardingTests {
    static let secondPort = Int(ProcessInfo.processInfo.environment["STRATA_SHARD_PORT"] ?? "") ?? 5490

    /// 300 orders over 60 customers, with tied totals, NULL notes and non-ASCII text.
    static let orders: [PGShardOrder] = (0..<300).map { i in
        PGShardOrder(
            customerID: Int64(i % 60 + 1), reference: "R\(String(format: "%03d", 299 - i))", total: (i * 7) % 23,
            note: i % 5 == 0 ? nil : ["b", "a", "é", "Z", "ab"][i % 5])
    }

    /// The rows of `table` and the port of the server that answered, by the server's own word.
    static func census(_ db: Database) async throws -> (rows: Int64, port: Int64) {
        let row = try await db.unsafeRawExecute("SELECT count(*), inet_server_port() FROM pg_shard_order").first ?? []
        guard row.count == 2, case .integer(let rows) = row[0], case .integer(let port) = row[1] else {
            throw StrataError.database(code: 0, message: "unexpected row \(row)")
        }
        return (rows, port)
    }

    @Test("rows spread over both clusters; a fan-out equals one database; writes and failures stay on one shard")
    func twoClusters() async throws {
        try await StandbyCluster.with(standby: false, port: Self.secondPort) { cluster in
            let first = try await PostgresTestServer.freshSchema("strata_shard")
            let second = try Database.open(cluster.primaryURL, drivers: [.postgres])
            let whole = try await PostgresTestServer.freshSchema("strata_shard_whole")
            defer {
                first.close()
                second.close()
                whole.close()
            }
            let sharded = try ShardedDatabase(shards: [first, second])
            try await sharded.migrate(PGShardOrder.self)
            try await whole.migrate(PGShardOrder.self)
            for var order in Self.orders {
                var copy = order
                try await order.save(on: sharded)
                try await copy.save(on: whole)
            }

            // Spread: every row on the shard of its key, both servers holding some, by their own count.
            let a = try await Self.census(first)
            let b = try await Self.census(second)
            print("sharding[postgres]: \(a.rows) rows on port \(a.port), \(b.rows) rows on port \(b.port)")
            #expect(a.port != b.port && b.port == Int64(Self.secondPort))
            #expect(a.rows + b.rows == 300 && a.rows > 0 && b.rows > 0)
            let expectedOnFirst = try Self.orders.filter { try sharded.shard(for: $0.customerID) == 0 }.count
            #expect(a.rows == Int64(expectedOnFirst))

            // A pinned query runs on one server only.
            let home = try sharded.shard(for: Int64(17))
            let before = sharded.shards.map(\.statementCount)
            let mine = try await PGShardOrder.query(on: sharded).where(\.customerID == 17).order(\.reference).all()
            #expect(mine.count == 5 && mine.allSatisfy { $0.customerID == 17 })
            #expect(sharded.shards[1 - home].statementCount == before[1 - home])

            // Fan-out: the merged pages equal the same query on one database with every row.
            for (limit, offset) in [(nil, nil), (25, nil), (17, 40), (50, 280), (10, 400)] as [(Int?, Int?)] {
                func page<E>(_ q: QueryBuilder<PGShardOrder, E>) -> QueryBuilder<PGShardOrder, E> {
                    var q = q.where(\.total != 3).order(\.note).order(\.total, .descending).order(\.reference)
                    if let limit { q = q.limit(limit) }
                    if let offset { q = q.offset(offset) }
                    return q
                }
                let merged = try await page(PGShardOrder.query(on: sharded).fanOut()).all().map(\.reference)
                let expected = try await page(PGShardOrder.query(on: whole)).all().map(\.reference)
                #expect(merged == expected, "limit \(String(describing: limit)) offset \(String(describing: offset))")
            }
            let fanned = PGShardOrder.query(on: sharded).fanOut().where(\.total > 4)
            let one = PGShardOrder.query(on: whole).where(\.total > 4)
            #expect(try await fanned.count() == one.count())
            #expect(try await fanned.sum(\.total) == one.sum(\.total))
            #expect(try await fanned.max(\.note) == one.max(\.note))
            #expect(try await fanned.min(\.reference) == one.min(\.reference))
            await #expect(throws: StrataError.self) { try await PGShardOrder.query(on: sharded).all() }

            // A failed save (a duplicate reference on its shard) leaves the model and both servers as they were.
            let taken = Self.orders[0]
            let neighbour = try #require(
                try (61...400).map(Int64.init).first {
                    try sharded.shard(for: $0) == sharded.shard(for: taken.customerID)
                })
            var duplicate = PGShardOrder(customerID: neighbour, reference: taken.reference, total: 1)
            let error = await #expect(throws: StrataError.self) { try await duplicate.save(on: sharded) }
            if case .uniqueViolation = error {
            } else {
                Issue.record("expected a unique violation, got \(String(describing: error))")
            }
            #expect(duplicate.id == nil)
            #expect(try await [Self.census(first).rows, Self.census(second).rows] == [a.rows, b.rows])

            // A transaction on one shard that writes to the other rolls back whole, on both servers.
            let away = try #require(try (1...60).map(Int64.init).first { try sharded.shard(for: $0) != home })
            var stray = PGShardOrder(customerID: away, reference: "stray", total: 0)
            await #expect(throws: StrataError.self) {
                try await sharded.transaction(routedBy: Int64(17)) { stx in
                    var added = PGShardOrder(customerID: 17, reference: "added", total: 0)
                    try stx.save(&added)
                    try stx.save(&stray)
                }
            }
            #expect(stray.id == nil)
            #expect(try await [Self.census(first).rows, Self.census(second).rows] == [a.rows, b.rows])
            try await PostgresTestServer.dropSchema("strata_shard")
            try await PostgresTestServer.dropSchema("strata_shard_whole")
        }
    }

    @Test("the conformance suite passes on each shard's database")
    func conformancePerShard() async throws {
        try await StandbyCluster.with(standby: false, port: Self.secondPort) { cluster in
            let first = try await PostgresTestServer.freshSchema("strata_shard_conf")
            let second = try Database.open(cluster.primaryURL, drivers: [.postgres])
            defer {
                first.close()
                second.close()
            }
            let sharded = try ShardedDatabase(shards: [first, second])
            for (index, shard) in sharded.shards.enumerated() {
                let results = await ConformanceSuite.runAll(on: shard)
                let passed = results.filter { $0.outcome == .passed }.count
                print("conformance[postgres shard \(index)]: \(passed)/\(results.count) cases pass")
                for r in results where r.outcome != .passed { print("shard \(index) \(r.name): \(r.outcome)") }
                #expect(passed == ConformanceSuite.cases.count)
            }
            try await PostgresTestServer.dropSchema("strata_shard_conf")
        }
    }
}
