// PostgresNotifyTests: observation across processes: psql commits, LISTEN/NOTIFY tells this process's observers.
import Foundation
import Strata
import StrataPostgres
import Testing

@Model(table: "notified_note")
struct PGNotifiedNote {
    var id: Int64?
    var body: String
    static let notifiesOtherProcesses = true
}

extension PostgresServerTests {
    @Suite("PostgreSQL change notification")
    struct PostgresNotifyTests {
        static let schema = "strata_notify"

        /// Runs the real `psql` tool (another process) in the test schema; returns when it has exited.
        func psql(_ sql: String) async throws -> ContinuousClock.Instant {
            // On a thread of its own: the wait for psql must not hold one of the cooperative threads the observer
            // under test runs on.
            let command = "SET search_path TO \(Self.schema); " + sql
            return try await withCheckedThrowingContinuation { done in
                Thread.detachNewThread {
                    done.resume(with: Result { try PSQLTool.run(nil, command) }.map { _ in ContinuousClock.now })
                }
            }
        }

        func listeners(_ db: Database) async throws -> Int64 {
            let rows = try await db.unsafeRawExecute(
                "SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN strata_changes' AND datname = current_database()"
            )
            guard case .integer(let n) = rows.first?.first else { return -1 }
            return n
        }

        @Test(
            "a commit by another process reaches an observer within 100 ms; a rollback sends nothing",
            .timeLimit(.minutes(1)))
        func otherProcessesCommitsAreObserved() async throws {
            try #require(PostgresTestServer.baseURL == "postgres://", "psql follows the PG* environment only")
            let db = try await PostgresTestServer.freshSchema(Self.schema)
            defer { db.close() }
            try await db.migrate(PGNotifiedNote.self)
            let triggers = try await db.unsafeRawExecute(
                "SELECT count(*) FROM pg_trigger WHERE tgname = 'strata_notify_notified_note'")
            #expect(triggers.first?.first == .integer(1), "the migration installed the trigger")
            try await db.migrate(PGNotifiedNote.self)  // installing again is harmless

            try await observeCommits(db)
            var rounds = 0
            while try await listeners(db) > 0 && rounds < 500 {
                rounds += 1
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(db.observationCount == 0, "no observation left once its iterator is gone")
            #expect(try await listeners(db) == 0, "the listening connection is closed")
        }

        /// Observes the table while psql and this process commit; the observation ends with the function.
        func observeCommits(_ db: Database) async throws {
            var values = PGNotifiedNote.query(on: db).order(\.id).observe().makeAsyncIterator()
            #expect(try await values.next()?.map(\.body) == [])
            #expect(try await listeners(db) == 1, "one listening connection while observing")

            var delays: [Duration] = []
            var expected: [String] = []
            for n in 0..<5 {
                let exited = try await psql("INSERT INTO notified_note (body) VALUES ('psql \(n)')")
                expected.append("psql \(n)")
                #expect(try await values.next()?.map(\.body) == expected, "commit \(n) from psql")
                delays.append(max(.zero, ContinuousClock.now - exited))
            }
            let median = delays.sorted()[delays.count / 2]
            #expect(median <= .milliseconds(100), "median delay from psql's exit to the new results: \(delays)")

            _ = try await psql("BEGIN; INSERT INTO notified_note (body) VALUES ('rolled back'); ROLLBACK;")
            var own = PGNotifiedNote(body: "own")
            try await own.save(on: db)  // announced by this process once; its NOTIFY is ignored
            expected.append("own")
            #expect(try await values.next()?.map(\.body) == expected, "the own commit, not the rollback")
            _ = try await psql("INSERT INTO notified_note (body) VALUES ('last')")
            expected.append("last")
            #expect(try await values.next()?.map(\.body) == expected, "the next commit, not the own one again")
        }
    }
}
