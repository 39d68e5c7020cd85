// PostgresRawSelectLoopTests: raw SELECTs sent from the statement loop, each under a Sync of its own.
import Foundation
import StrataConformance
import Testing

@testable import Strata
@testable import StrataPostgres

extension PostgresServerTests {
    @Suite("PostgreSQL raw SELECT on the statement loop")
    struct PostgresRawSelectLoopTests {
        typealias Loop = PostgresStatementLoopTests

        /// Statements the loop threads sent so far, and the groups (Syncs) they went in (process-wide).
        static var counters: (statements: Int, groups: Int, pipelined: Int) {
            (
                PostgresLoopCounters.statements.load(ordering: .relaxed),
                PostgresLoopCounters.groups.load(ordering: .relaxed),
                PostgresLoopCounters.pipelined.load(ordering: .relaxed)
            )
        }

        @Test("which raw SQL is a plain SELECT: the word SELECT first, in any case, after blanks")
        func plainSelect() {
            for sql in ["SELECT 1", "select 1", "  \n\tSeLeCt(1)", "SELECT*FROM t", "SELECT\n1"] {
                #expect(RawSelect.isPlain(sql), "\(sql)")
            }
            for sql in [
                "", "SELECT", "SELECTED", "SELECT_1", "SELECT1", "WITH x AS (SELECT 1) SELECT 1", "UPDATE t",
                "/* c */ SELECT 1", "EXPLAIN SELECT 1", "SELEC 1", "VALUES (1)",
            ] {
                #expect(!RawSelect.isPlain(sql), "\(sql)")
            }
        }

        @Test("48 tasks of raw SELECTs through pool=3: the loop sends them pipelined, one Sync each, with the rows")
        func rawSelectsOnLoop() async throws {
            let db = try await Loop.seeded("strata_raw_loop", "pool=3")
            defer { db.close() }
            let before = Self.counters
            let wrong = try await Loop.whileHeld(db) {
                try await Loop.bounded(120, "48 tasks of raw SELECTs") {
                    try await Loop.concurrently(tasks: 48, rounds: 8) { t, r in
                        let id = Int64((t * 37 + r * 11) % Loop.rows + 1)
                        let rows = try await db.unsafeRawExecute(
                            "SELECT id, name, rank FROM pgl_item WHERE id = ? OR id = ? ORDER BY id", [id, id + 1000])
                        let expected: [[DatabaseValue]] = [[.integer(id), .text("item-\(id)"), .integer(id % 10)]]
                        return rows == expected ? [] : ["SELECT \(id): \(rows)"]
                    }
                }
            }
            #expect(wrong.isEmpty, "\(wrong.prefix(3))")
            let after = Self.counters
            #expect(after.statements - before.statements >= 48 * 8, "raw SELECTs went through the loop")
            #expect(
                after.groups - before.groups == after.statements - before.statements,
                "each raw SELECT under a Sync of its own")
            #expect(after.pipelined > before.pipelined, "two connections for 48 tasks: queued behind others")
            #expect(db.connectionsInUse == 0)
            try await PostgresTestServer.dropSchema("strata_raw_loop")
        }

        @Test("raw SELECTs of a writing function beside failing ones on the loop: every write reported is kept")
        func writingSelectsKeepTheirWrites() async throws {
            let db = try await Loop.seeded("strata_raw_write", "pool=3")
            defer { db.close() }
            try await db.unsafeRawExecute("CREATE TABLE pgl_bump (task bigint NOT NULL)")
            try await db.unsafeRawExecute(
                """
                CREATE FUNCTION pgl_bump(t bigint) RETURNS bigint LANGUAGE sql VOLATILE AS
                $$ INSERT INTO pgl_bump VALUES (t) RETURNING task $$
                """)
            let before = Self.counters
            let reported = try await Loop.whileHeld(db) {
                try await Loop.bounded(120, "48 tasks of writes and failures") {
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        for t in 0..<48 {
                            group.addTask {
                                var kept = 0
                                for r in 0..<8 {
                                    if (t + r) % 3 == 0 {
                                        // A division by zero: grouped with the writes, it would undo them.
                                        let failed = await Loop.attempt {
                                            try await db.unsafeRawExecute(
                                                "SELECT 1 / (id - 5) FROM pgl_item WHERE id = 5")
                                        }
                                        if case .success = failed { kept -= 1_000 }
                                    } else {
                                        let rows = try await db.unsafeRawExecute("SELECT pgl_bump(?)", [t])
                                        if rows == [[.integer(Int64(t))]] { kept += 1 }
                                    }
                                }
                                return kept
                            }
                        }
                        return try await group.reduce(0, +)
                    }
                }
            }
            #expect(Self.counters.statements - before.statements >= 48 * 8)
            let stored = try await db.unsafeRawExecute("SELECT count(*) FROM pgl_bump")
            #expect(reported > 0)
            #expect(stored == [[.integer(Int64(reported))]], "\(reported) writes reported")
            #expect(db.connectionsInUse == 0)
            try await PostgresTestServer.dropSchema("strata_raw_write")
        }

        @Test(
            "a raw SELECT's errors on the loop are the ordinary path's: the server's, a marker count, a refused value")
        func errorsAsOrdinary() async throws {
            let db = try await Loop.seeded("strata_raw_errors", "pool=4")
            defer { db.close() }
            // Each case's values made where they are used (an array of existentials is not Sendable).
            let cases: [(String, @Sendable () -> [any DatabaseValueConvertible])] = [
                ("SELECT 1 / (id - 5) FROM pgl_item WHERE id = ?", { [5] }),
                ("SELECT name FROM pgl_item WHERE id = ? AND rank = ?", { [5] }),
                ("SELECT name FROM pgl_item WHERE name = ?", { ["a\u{0}b"] }),
                ("SELECT nothing FROM pgl_item", { [] }),
            ]
            for (sql, binds) in cases {
                // Alone: the ordinary path.
                let ordinary = await Loop.attempt { try await db.unsafeRawExecute(sql, binds()) }
                guard case .failure(let expected) = ordinary else {
                    Issue.record("\(sql) succeeded alone: \(ordinary)")
                    continue
                }
                let before = Self.counters.statements
                let looped = try await Loop.whileHeld(db) {
                    try await Loop.concurrently(tasks: 8, rounds: 2) { _, _ in
                        let result = await Loop.attempt { try await db.unsafeRawExecute(sql, binds()) }
                        return result.failureValue == expected ? [] : ["\(sql): \(result)"]
                    }
                }
                #expect(looped.isEmpty, "\(looped.prefix(2))")
                switch expected {
                case .invalidQuery, .invalidValue:
                    #expect(Self.counters.statements == before, "refused before anything was sent: \(expected)")
                default:
                    #expect(Self.counters.statements > before, "the server's error came through the loop: \(expected)")
                }
            }
            #expect(db.connectionsInUse == 0)
            #expect(try await LoopItem.query(on: db).count() == Loop.rows)
            try await PostgresTestServer.dropSchema("strata_raw_errors")
        }

        @Test("raw SQL other than a plain SELECT never goes through the loop")
        func otherRawSQLOrdinary() async throws {
            let db = try await Loop.seeded("strata_raw_other", "pool=4")
            defer { db.close() }
            let before = Self.counters.statements
            let wrong = try await Loop.whileHeld(db) {
                try await Loop.concurrently(tasks: 8, rounds: 4) { t, r in
                    let id = Int64(t * 4 + r + 1)
                    try await db.unsafeRawExecute("UPDATE pgl_item SET rank = rank + 100 WHERE id = ?", [id])
                    let rows = try await db.unsafeRawExecute(
                        "WITH x AS (SELECT rank FROM pgl_item WHERE id = ?) SELECT rank FROM x", [id])
                    return rows == [[.integer(id % 10 + 100)]] ? [] : ["\(id): \(rows)"]
                }
            }
            #expect(wrong.isEmpty, "\(wrong.prefix(3))")
            #expect(Self.counters.statements == before, "UPDATE and WITH … SELECT ran the ordinary way")
            try await PostgresTestServer.dropSchema("strata_raw_other")
        }
    }
}

extension Result {
    /// The error, or nil for a success.
    fileprivate var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
