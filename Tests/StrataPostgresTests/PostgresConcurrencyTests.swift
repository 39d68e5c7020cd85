// PostgresConcurrencyTests: a pool of 8 keeps more statements in flight than there are cooperative threads.
import Foundation
import Strata
import StrataConformance
import StrataPostgres
import Testing

extension PostgresServerTests {
    @Suite("PostgreSQL concurrency")
    struct PostgresConcurrencyTests {
        /// Runs `statement` `count` times from `tasks` tasks; returns the rows of every run.
        private static func run(
            _ db: Database, _ statement: String, count: Int, tasks: Int
        ) async throws -> (rows: [[[DatabaseValue]]], seconds: Double) {
            let start = ContinuousClock.now
            let rows = try await withThrowingTaskGroup(of: [[[DatabaseValue]]].self) { group in
                for t in 0..<tasks {
                    group.addTask {
                        var out: [[[DatabaseValue]]] = []
                        for _ in stride(from: t, to: count, by: tasks) {
                            out.append(try await db.unsafeRawExecute(statement))
                        }
                        return out
                    }
                }
                var all: [[[DatabaseValue]]] = []
                for try await part in group { all += part }
                return all
            }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return (rows, seconds)
        }

        @Test("64 tasks through pool=8 keep more statements in flight than there are cooperative threads")
        func eightInFlight() async throws {
            // 256 statements of 50 ms queue for 7 connections: on a loaded machine (a CI box building beside it) the
            // last task can wait longer than the default 30 s for one; the test is about concurrency, not that wait.
            let db = try PostgresTestServer.open("pool=8", poolTimeout: 180)
            defer { db.close() }
            // Each statement sleeps 50 ms on the server and counts the sessions running it meanwhile.
            let statement = """
                SELECT (SELECT count(*) FROM pg_stat_activity
                        WHERE state = 'active' AND query LIKE 'SELECT (SELECT count(*) FROM pg_stat_activity%strata-in-flight%'),
                       pg_sleep(0.05), 'strata-in-flight'
                """
            // One call holds a connection throughout, so every other call meets it and runs on its connection's
            // thread (a call alone runs inline; in a busy test run, tasks that never overlap would each be alone).
            let release = DispatchSemaphore(value: 0)
            let holder = await Siblings.holdOne(db, until: release)
            let (rows, _) = try await Self.run(db, statement, count: 256, tasks: 64)
            release.signal()
            try await holder.value
            let seen = rows.compactMap { r -> Int64? in
                if case .integer(let n) = r.first?.first { return n }
                return nil
            }
            #expect(seen.count == 256)
            let most = seen.max() ?? 0
            let cores = ProcessInfo.processInfo.activeProcessorCount
            #expect(
                most > min(cores, 6),
                "at most \(most) statements in flight over 7 free connections; \(cores) cooperative threads")
        }

        @Test("a task cancelled while its transaction body runs finishes the body: all of it commits")
        func cancelledMidBody() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_cancel_mid_body", "pool=2")
            defer { db.close() }
            try await db.unsafeRawExecute("CREATE TABLE t (n integer)")
            let started = DispatchSemaphore(value: 0)
            let task = Task {
                try await db.transaction { tx in
                    try tx.unsafeRawExecute("INSERT INTO t VALUES (1)")
                    started.signal()
                    try tx.unsafeRawExecute("SELECT pg_sleep(0.2)")
                    try tx.unsafeRawExecute("INSERT INTO t VALUES (2)")
                }
            }
            while started.wait(timeout: .now()) == .timedOut { await Task.yield() }
            task.cancel()
            try await task.value
            let rows = try await db.unsafeRawExecute("SELECT n FROM t ORDER BY n")
            #expect(rows == [[.integer(1)], [.integer(2)]])
            try await PostgresTestServer.dropSchema("strata_cancel_mid_body")
        }
    }
}
