// ShardFuzzTests: random queries on 3 shards answer as the same queries on one database, on memory and SQLite.
import Foundation
import Strata
import StrataDifferential
import StrataMemory
import StrataPostgres
import StrataSQLite
import Testing

@Suite("Shard fuzzer")
struct ShardFuzzTests {
    @Test("random sharded queries equal one database's answers", arguments: ["memory", "sqlite"])
    func fuzz(_ driver: String) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shard-fuzz-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func open(_ name: String) throws -> Database {
            driver == "memory"
                ? try Database.open("memory:", drivers: [.memory])
                : try Database.open("sqlite:\(dir)/\(name).sqlite", drivers: [.sqlite])
        }
        let seed = UInt64(ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"] ?? "") ?? 20_261_128
        let report = try await ShardFuzz.run(
            shards: [try open("s0"), try open("s1"), try open("s2")], whole: try open("whole"), queries: 400,
            seed: seed)
        print("shard fuzz[\(driver)] seed \(seed): \(report.queries) queries, \(report.fannedOut) fanned out")
        #expect(report.queries == 400 && report.fannedOut > 200 && report.pinned > 20)
        #expect(report.mismatches.isEmpty, "\(report.mismatches.prefix(5).joined(separator: "\n"))")
    }

    @Test(
        "random sharded queries over PostgreSQL schemas equal one schema's answers",
        .enabled(if: (try? FuzzBackends.server.get()) != nil || FuzzBackends.isCI))
    func fuzzPostgres() async throws {
        var databases: [Database] = []
        defer { for db in databases { db.close() } }
        for name in ["strata_sf_0", "strata_sf_1", "strata_sf_2", "strata_sf_whole"] {
            let url = try #require(try await FuzzBackends.postgres(schema: name))
            databases.append(try Database.open(url, drivers: [.postgres]))
        }
        let report = try await ShardFuzz.run(
            shards: Array(databases.prefix(3)), whole: databases[3], queries: 400, seed: FuzzBackends.seed)
        print(
            "shard fuzz[postgres] seed \(FuzzBackends.seed): \(report.queries) queries, \(report.fannedOut) fanned out")
        #expect(report.queries == 400 && report.fannedOut > 200 && report.pinned > 20)
        #expect(report.mismatches.isEmpty, "\(report.mismatches.prefix(5).joined(separator: "\n"))")
    }
}
