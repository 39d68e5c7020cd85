// PostgresPgBouncerTests: the driver through a real PgBouncer in transaction-pooling mode (issue 16, item 1).
import Foundation
import Strata
import StrataConformance
import StrataPostgres
import Testing

extension PostgresServerTests {
    /// Each test starts its own pgbouncer (transaction mode) in front of a fresh database `strata_bouncer`.
    @Suite(
        "PostgreSQL through PgBouncer (transaction mode)",
        .enabled(
            if: ServerAccess.runsPgBouncer,
            "needs the pgbouncer binary (apt-get install pgbouncer; .ci/run installs it and sets STRATA_SERVER_CONTROL=1)"
        ))
    struct PostgresPgBouncerTests {
        static let database = "strata_bouncer"

        /// A fresh database and a pgbouncer in front of it.
        static func start(poolSize: Int = 4) async throws -> PgBouncerProcess {
            let admin = try PostgresTestServer.open()
            defer { admin.close() }
            try await admin.unsafeRawExecute("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
            try await admin.unsafeRawExecute("CREATE DATABASE \(database)")
            return try PgBouncerProcess(database: database, poolSize: poolSize)
        }

        /// A direct connection (no pooler) to the bouncer's database.
        static func direct() throws -> Database {
            try PostgresTestServer.open("dbname=\(database)")
        }

        @Test("the whole conformance suite passes through PgBouncer in transaction mode with prepare=off")
        func conformanceThroughPgBouncer() async throws {
            let bouncer = try await Self.start()
            defer { bouncer.stop() }
            let db = try Database.open(bouncer.url("prepare=off", "pool=4"), drivers: [.postgres])
            defer { db.close() }
            let results = await ConformanceSuite.runAll(on: db)
            let passed = results.filter { $0.outcome == .passed }.count
            print("conformance[postgres via pgbouncer, prepare=off]: \(passed)/\(results.count) cases pass")
            for r in results where r.outcome != .passed {
                Issue.record("conformance via pgbouncer \(r.name): \(r.outcome)")
            }
            #expect(passed == ConformanceSuite.cases.count && passed > 0)
        }

        /// Inserts a row, has every server connection behind the pooler closed (as `server_lifetime` or a
        /// failover would), and inserts again with the same statement.
        static func insertAcrossServerConnections(_ parameters: String) async throws -> (Result<Void, any Error>, Int) {
            let bouncer = try await start(poolSize: 1)
            defer { bouncer.stop() }
            let admin = try direct()
            defer { admin.close() }
            try await admin.unsafeRawExecute("CREATE TABLE dropped (n integer NOT NULL)")
            let db = try Database.open(bouncer.url(parameters, "pool=1"), drivers: [.postgres])
            defer { db.close() }
            try await db.unsafeRawExecute("INSERT INTO dropped (n) VALUES (?)", [1])
            try await admin.unsafeRawExecute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()",
                [database])
            for _ in 0..<50 {  // wait (5 s at most) until the server connections are gone
                let left = try await admin.unsafeRawExecute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()", [database])
                if left.first?.first == .integer(0) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let second: Result<Void, any Error>
            do {
                try await db.unsafeRawExecute("INSERT INTO dropped (n) VALUES (?)", [2])
                second = .success(())
            } catch {
                second = .failure(error)
            }
            guard case .integer(let count)? = try await admin.unsafeRawExecute("SELECT count(*) FROM dropped").first?.first
            else { throw StrataError.invalidQuery("count(*) returned no integer") }
            return (second, Int(count))
        }

        @Test(
            "prepare=off and auto (the pooler detected) send unnamed statements, which survive a new server connection",
            arguments: ["prepare=off", "prepare=auto"])
        func unnamedStatementsSurvive(_ parameters: String) async throws {
            let (second, count) = try await Self.insertAcrossServerConnections(parameters)
            #expect(throws: Never.self) { try second.get() }
            #expect(count == 2)
        }

        @Test("prepare=on: a prepared statement the pooler dropped is a typed error naming prepare=off; nothing is lost")
        func droppedPreparedStatement() async throws {
            let (second, count) = try await Self.insertAcrossServerConnections("prepare=on")
            #expect(throws: StrataError.self) { try second.get() }
            if case .failure(StrataError.unsupported(let feature, "postgres")) = second {
                #expect(feature.contains("prepare=off"), "\(feature)")
            } else {
                Issue.record("expected unsupported naming prepare=off, got \(second)")
            }
            #expect(count == 1, "the first row stays, the failed insert added none")
        }
    }
}
