// PostgresObservedLoopTests: with metrics and a slow-statement threshold on, single reads stay on the statement loop,
// and each is counted, timed, and logged when slow (issue 27: observability must not leave the fast path).
import Foundation
import Logging
import StrataConformance
import Testing

@testable import Strata
@testable import StrataPostgres

extension PostgresServerTests.PostgresStatementLoopTests {
    @Test(
        "with metrics and a slow-statement threshold, reads stay on the loop and are counted, timed and logged if slow")
    func observedReadsStayOnTheLoop() async throws {
        let seeded = try await Self.seeded("strata_loop_observed", nap: 0.3, "pool=4")
        defer { seeded.close() }
        let metrics = CapturedMetrics()
        let logs = CapturedLogs()
        var configuration = seeded.configuration
        configuration.metricsFactory = metrics
        configuration.slowStatementThreshold = 0.15
        configuration.logger = logs.logger(level: .warning)
        let db = Database(driver: seeded.driver, configuration: configuration)
        defer { db.close() }
        _ = try await LoopItem.query(on: db).count()  // reads the model's columns: later reads may use the loop
        let selects = { metrics.total("strata_statements_total", [("kind", "select"), ("driver", "postgres")]) }
        let timed = { metrics.samples("strata_statement_duration", [("kind", "select"), ("driver", "postgres")]) }
        let waits = { metrics.samples("strata_pool_wait_duration", [("driver", "postgres")]).count }
        let (countedBefore, timedBefore, waitsBefore, loopBefore) = (
            selects(), timed().count, waits(), Self.loopStatements
        )

        let reads = 4 * 5
        let slow = try await Self.whileHeld(db) {
            let found = try await Self.concurrently(tasks: 4, rounds: 5) { t, r in
                let id = Int64(t * 5 + r + 1)
                let item = try await LoopItem.find(id, on: db)
                return item?.name == "item-\(id)" ? [] : ["find(\(id)) = \(item?.name ?? "nil")"]
            }
            #expect(found.isEmpty, "\(found.prefix(3))")
            return try await LoopSlow.find(1, on: db)  // naps 0.3 s on the server: past the threshold
        }
        #expect(slow?.name == "item-1")
        #expect(Self.loopStatements - loopBefore >= reads + 1, "the reads went through the loop")
        #expect(selects() - countedBefore == Int64(reads + 1), "each read counted once")
        let durations = timed().dropFirst(timedBefore)
        #expect(durations.count == reads + 1, "each read timed once")
        #expect(durations.contains { $0 >= 300_000_000 }, "the slow read's time includes the server's 0.3 s")
        #expect(waits() - waitsBefore >= reads + 1, "each read's wait for a connection measured")
        // A loaded machine may make a fast read slow too; the nap's read must be logged, once.
        let warnings = logs.records.filter {
            $0.message == "slow statement" && $0.metadata["db.statement"]?.contains("pgl_slow") == true
        }
        #expect(warnings.count == 1, "\(logs.records.map(\.metadata))")
        #expect(warnings.first?.level == .warning)
        #expect(warnings.first?.metadata["db.system"] == "postgres")
        try await PostgresTestServer.dropSchema("strata_loop_observed")
    }
}
