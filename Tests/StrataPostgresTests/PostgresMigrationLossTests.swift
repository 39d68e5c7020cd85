// PostgresMigrationLossTests: alterColumn keeps every value of types that do not compare equal to themselves
// once read back (real, char(n)), and the migration lock holds under repeatable read and serializable defaults.
import Foundation
import Strata
import StrataPostgres
import Synchronization
import Testing

extension PostgresServerTests {
    @Suite("PostgreSQL migrations lose nothing")
    struct PostgresMigrationLossTests {
        @Test("a type change that would drop the column's CHECK or partial index is refused, nothing changed")
        func retypeRefusedWhenItWouldDropObjects() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_alter_objects")
            defer { db.close() }
            for sql in [
                "CREATE TABLE g (id bigint PRIMARY KEY, qty text CONSTRAINT qty_short CHECK (length(qty) < 5), other text)",
                "CREATE INDEX g_big ON g (qty) WHERE qty <> '0'", "CREATE INDEX g_other ON g (other)",
                "INSERT INTO g VALUES (1, '12', 'a'), (2, '7', 'b')",
            ] {
                try await db.unsafeRawExecute(sql)
            }
            let step = Migration("001_retype") { $0.alterColumn("qty", in: "g", to: .integer, nullable: true) }
            do {
                try await db.migrate([step])
                Issue.record("the step ran and dropped qty_short and g_big")
            } catch let error as StrataError {
                guard case .invalidQuery(let reason) = error else {
                    Issue.record("wrong error: \(error)")
                    return
                }
                #expect(reason.contains("qty_short") && reason.contains("g_big"), "the refusal names them: \(reason)")
            }
            #expect(
                try await db.unsafeRawExecute(
                    "SELECT conname::text FROM pg_constraint WHERE conrelid = 'g'::regclass ORDER BY 1")
                    == [[.text("g_pkey")], [.text("qty_short")]], "constraints as they were")
            #expect(
                try await db.unsafeRawExecute("SELECT qty, other FROM g ORDER BY id")
                    == [[.text("12"), .text("a")], [.text("7"), .text("b")]], "rows as they were")
            // A retype that loses nothing (a plain index is re-created) still runs.
            try await db.migrate([
                Migration("002_other") { $0.alterColumn("other", in: "g", to: .blob, nullable: true) }
            ])
            #expect(
                try await db.unsafeRawExecute("SELECT indexname::text FROM pg_indexes WHERE tablename = 'g' ORDER BY 1")
                    == [[.text("g_big")], [.text("g_other")], [.text("g_pkey")]], "g_other re-created")
        }

        @Test(
            "a table without a primary key whose values cannot be matched back is refused: typeMismatch, nothing changed"
        )
        func unmatchedValuesRefused() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_alter_nokey")
            defer { db.close() }
            try await db.unsafeRawExecute("CREATE TABLE nk (r real, note text)")
            try await db.unsafeRawExecute("INSERT INTO nk VALUES (1.1, 'a'), (2.5, 'b'), (NULL, 'c')")
            await #expect(
                throws: StrataError.self,
                "a real 1.1 matches no float8 1.1: refused, not turned NULL"
            ) {
                try await db.migrate([
                    Migration("001_retype") { $0.alterColumn("r", in: "nk", to: .decimal, nullable: true) }
                ])
            }
            do {
                try await db.migrate([
                    Migration("001_retype") { $0.alterColumn("r", in: "nk", to: .decimal, nullable: true) }
                ])
            } catch let error as StrataError {
                guard case .typeMismatch(table: "nk", column: "r", _) = error else {
                    Issue.record("wrong error: \(error)")
                    return
                }
            }
            #expect(
                try await db.unsafeRawExecute(
                    "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'nk'::regclass AND attname = 'r'"
                )
                    == [[.text("real")]], "the column is as it was")
            #expect(
                try await db.unsafeRawExecute("SELECT r::text, note FROM nk ORDER BY note")
                    == [[.text("1.1"), .text("a")], [.text("2.5"), .text("b")], [.null, .text("c")]], "every value kept"
            )
            #expect(
                try await db.migrationStatus([
                    Migration("001_retype") { $0.alterColumn("r", in: "nk", to: .decimal, nullable: true) }
                ]).map(\.isApplied) == [false])
        }

        @Test("alterColumn of real, char(n), numeric(p,s) and timestamptz columns keeps every value (none turns NULL)")
        func alterKeepsValuesThatDoNotCompareEqual() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_alter_loss")
            defer { db.close() }
            try await db.unsafeRawExecute(
                "CREATE TABLE m (id bigint PRIMARY KEY, r real, c char(5), n numeric(6,2), t timestamptz)")
            try await db.unsafeRawExecute(
                """
                INSERT INTO m VALUES (1, 1.1, 'ab', 1.10, '2024-01-02 03:04:05.678+00'), (2, 2.5, 'xyz', 2.5, NULL),
                (3, 0.3, NULL, NULL, '1999-12-31 23:59:59+00'), (4, NULL, 'q', 0.01, NULL)
                """)
            try await db.migrate([
                Migration("001_retype") { up in
                    up.alterColumn("r", in: "m", to: .decimal, nullable: true)
                    up.alterColumn("c", in: "m", to: .blob, nullable: true)
                    up.alterColumn("n", in: "m", to: .double, nullable: true)
                    up.alterColumn("t", in: "m", to: .text, nullable: true)
                }
            ])
            let rows = try await db.unsafeRawExecute("SELECT id, r::float8, c, n, t FROM m ORDER BY id")
            let reals: [Double?] = rows.map { if case .double(let d) = $0[1] { d } else { nil } }
            #expect(reals.count == 4 && reals[3] == nil, "real → decimal: \(rows)")
            for (got, want) in zip(reals, [1.1, 2.5, 0.3]) {
                #expect(got.map { abs($0 - want) < 1e-6 } == true, "real → decimal keeps \(want): \(rows)")
            }
            #expect(
                rows.map { $0[2] } == [
                    .blob(Data("ab   ".utf8)), .blob(Data("xyz  ".utf8)), .null, .blob(Data("q    ".utf8)),
                ],
                "char(5) → blob: \(rows)")
            #expect(rows.map { $0[3] } == [.double(1.1), .double(2.5), .null, .double(0.01)], "numeric → double")
            #expect(rows[0][4] != .null && rows[1][4] == .null && rows[2][4] != .null, "timestamptz → text: \(rows)")
        }

        @Test(
            "the migration lock holds whatever the default isolation: a waiting process sees the step recorded",
            arguments: ["repeatable%5C%20read", "serializable"])
        func lockBeforeSnapshot(_ level: String) async throws {
            let schema = "strata_lock_" + (level.hasPrefix("repeatable") ? "rr" : "ser")
            let setup = try await PostgresTestServer.freshSchema(schema)
            defer { setup.close() }
            try await setup.unsafeRawExecute("CREATE TABLE runs (n int)")
            let url = PostgresTestServer.url(
                "search_path=\(schema)", "options=-c%20default_transaction_isolation%3D\(level)")
            let a = try Database.open(url, drivers: [.postgres])
            let b = try Database.open(url, drivers: [.postgres])
            defer {
                a.close()
                b.close()
            }
            let level = try await a.unsafeRawExecute("SHOW default_transaction_isolation")
            #expect(level.first?.first != .text("read committed"), "the URL sets the default: \(level)")
            let bodies = RunCounter()
            let step = Migration("001_once") { up in
                up.transform("insert once, then wait for the other process to wait on the lock") { tx in
                    bodies.count.add(1, ordering: .relaxed)
                    try tx.unsafeRawExecute("INSERT INTO runs VALUES (1)")
                    for _ in 0..<100 {
                        let waiting = try tx.unsafeRawExecute(
                            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
                        if waiting.first?.first != .integer(0) { break }
                        Thread.sleep(forTimeInterval: 0.05)
                    }
                }
            }
            async let first = a.migrate([step])
            async let second = b.migrate([step])
            let applied = try await [first, second].sorted { $0.count < $1.count }
            #expect(applied == [[], ["001_once"]], "one process applied the step, the other found it recorded")
            #expect(bodies.count.load(ordering: .relaxed) == 1, "the step's body ran once")
            #expect(try await setup.unsafeRawExecute("SELECT count(*) FROM runs") == [[.integer(1)]])
            let recorded = try await setup.migrationHistory().filter { $0.kind == "versioned" }.map(\.name)
            #expect(recorded == ["001_once"], "recorded once")
        }
    }
}

/// How many times a step's body ran, across tasks.
final class RunCounter: Sendable {
    let count = Atomic<Int>(0)
}
