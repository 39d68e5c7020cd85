// PostgresTimeoutTests: statement_timeout, a frozen server, and a write whose outcome is unknown (issue 16, item 6).
import Foundation
import Strata
import StrataPostgres
import Testing

extension PostgresServerTests {
    @Suite("PostgreSQL timeouts and dead connections")
    struct PostgresTimeoutTests {
        static func backendPID(_ db: Database) async throws -> Int32 {
            guard case .integer(let pid)? = try await db.unsafeRawExecute("SELECT pg_backend_pid()").first?.first else {
                throw StrataError.invalidQuery("pg_backend_pid() returned no integer")
            }
            return Int32(pid)
        }

        static func count(_ db: Database, _ table: String) async throws -> Int64 {
            guard case .integer(let n)? = try await db.unsafeRawExecute("SELECT count(*) FROM \(table)").first?.first
            else { throw StrataError.invalidQuery("count(*) returned no integer") }
            return n
        }

        @Test("sslmode=verify-full with a missing sslrootcert is a typed connectionFailed about SSL or the certificate")
        func tlsRefused() throws {
            #expect {
                try PostgresTestServer.open("sslmode=verify-full", "sslrootcert=/nonexistent/strata-root.crt")
            } throws: { error in
                guard case StrataError.connectionFailed(let why) = error else { return false }
                return why.contains("SSL") || why.contains("certificate")
            }
        }

        @Test("a statement past statement_timeout is statementTimeout, changes nothing, and the connection goes on")
        func statementTimeout() async throws {
            let schema = try await PostgresTestServer.freshSchema("strata_timeout")
            schema.close()
            let db = try PostgresTestServer.open("search_path=strata_timeout", "pool=1", "statement_timeout=300ms")
            defer { db.close() }
            try await db.unsafeRawExecute("CREATE TABLE slow (n integer)")
            try await db.unsafeRawExecute("INSERT INTO slow VALUES (1)")
            let pid = try await Self.backendPID(db)
            let start = ContinuousClock.now
            await #expect(throws: StrataError.statementTimeout(table: nil)) {
                try await db.unsafeRawExecute("INSERT INTO slow SELECT 2 FROM pg_sleep(3)")
            }
            #expect(ContinuousClock.now - start < .seconds(2), "cancelled at the timeout, not after the sleep")
            #expect(try await Self.backendPID(db) == pid, "the same connection runs the next statement")
            #expect(try await Self.count(db, "slow") == 1, "the cancelled insert left nothing")
            try await PostgresTestServer.dropSchema("strata_timeout")
        }

        @Test(
            "a frozen server (its backend SIGSTOPped) holds a read no longer than statement_timeout + 2 s: connectionLost, and the next call gets a new connection",
            .enabled(
                if: ServerAccess.controlsServer,
                "signals the server's backend process: needs a local throwaway server (pg_virtualenv) or STRATA_SERVER_CONTROL=1"),
            .timeLimit(.minutes(1)))
        func frozenServerRead() async throws {
            let db = try PostgresTestServer.open("pool=1", "statement_timeout=1s")
            defer { db.close() }
            let pid = try await Self.backendPID(db)
            #expect(kill(pid, SIGSTOP) == 0, "SIGSTOP \(pid): errno \(errno)")
            defer { kill(pid, SIGCONT) }
            let start = ContinuousClock.now
            await #expect {
                try await db.unsafeRawExecute("SELECT 42")
            } throws: { error in
                guard case StrataError.connectionLost(let why) = error else { return false }
                return why.contains("no answer")
            }
            let took = ContinuousClock.now - start
            #expect(took >= .seconds(2.9) && took < .seconds(5), "gave up after \(took)")
            kill(pid, SIGCONT)
            #expect(try await Self.backendPID(db) != pid, "the frozen connection was discarded")
        }

        @Test(
            "a write whose answer never came is outcomeUnknown, and it may indeed have been applied",
            .enabled(
                if: ServerAccess.controlsServer,
                "signals the server's backend process: needs a local throwaway server (pg_virtualenv) or STRATA_SERVER_CONTROL=1"),
            .timeLimit(.minutes(1)))
        func unknownOutcome() async throws {
            let schema = try await PostgresTestServer.freshSchema("strata_unknown")
            schema.close()
            let db = try PostgresTestServer.open("search_path=strata_unknown", "pool=1", "statement_timeout=1s")
            defer { db.close() }
            try await db.unsafeRawExecute("CREATE TABLE written (n integer)")
            try await db.unsafeRawExecute("INSERT INTO written VALUES (?)", [1])
            let pid = try await Self.backendPID(db)
            #expect(kill(pid, SIGSTOP) == 0, "SIGSTOP \(pid): errno \(errno)")
            defer { kill(pid, SIGCONT) }
            await #expect {
                try await db.unsafeRawExecute("INSERT INTO written VALUES (?)", [2])
            } throws: { error in
                guard case StrataError.outcomeUnknown(let why) = error else { return false }
                return why.contains("no answer")
            }
            kill(pid, SIGCONT)
            // The backend, running again, finds the insert in its socket and commits it: a retry would duplicate it.
            var rows: Int64 = 0
            for _ in 0..<50 {
                rows = try await Self.count(db, "written")
                if rows == 2 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(rows == 2, "the write the client gave up on was applied after all")
            try await PostgresTestServer.dropSchema("strata_unknown")
        }
    }
}
