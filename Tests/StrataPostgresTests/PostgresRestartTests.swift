// PostgresRestartTests: a server stops and starts in the middle of a run of queries; the same Database recovers.
import Foundation
import Strata
import StrataPostgres
import Synchronization
import Testing

/// What one query of the run ended with, and how long it took.
enum QueryOutcome: Sendable {
    case success
    case failure(StrataError, Duration)
    case untyped(String)
}

/// The outcomes so far, shared between the querying task and the test.
final class OutcomeLog: Sendable {
    private let state = Mutex<(outcomes: [QueryOutcome], running: Bool)>(([], true))
    func append(_ o: QueryOutcome) { state.withLock { $0.outcomes.append(o) } }
    var outcomes: [QueryOutcome] { state.withLock { $0.outcomes } }
    var running: Bool { state.withLock { $0.running } }
    func stop() { state.withLock { $0.running = false } }
}

extension PostgresServerTests {
    @Suite("PostgreSQL server restart")
    struct PostgresRestartTests {
        static let timeout = 2.0

        /// Runs one query, timed; two at once so that both pooled connections are in use.
        static func probe(_ db: Database) async -> [QueryOutcome] {
            async let a = one(db)
            async let b = one(db)
            return await [a, b]
        }

        static func one(_ db: Database) async -> QueryOutcome {
            let clock = ContinuousClock()
            let start = clock.now
            do {
                _ = try await PGItem.query(on: db).count()
                return .success
            } catch let error as StrataError {
                return .failure(error, clock.now - start)
            } catch {
                return .untyped("\(error)")
            }
        }

        @Test(
            "stop and start the server mid-run: typed errors while it is away, then queries succeed again",
            .enabled(if: StandbyCluster.enabled, "makes a server of its own: needs initdb and pg_ctl, run as root"),
            .timeLimit(.minutes(3)))
        func restart() async throws {
            // A server of its own: stopping the one every other test of the run uses would fail them.
            try await StandbyCluster.with(standby: false, port: StandbyCluster.restartPort) { cluster in
                try await Self.restart(cluster)
            }
        }

        static func restart(_ cluster: StandbyCluster) async throws {
            let db = try Database.open(
                cluster.primaryURL + "?pool=2", drivers: [.postgres], configuration: Configuration(timeout: Self.timeout))
            defer { db.close() }
            try await db.migrate(PGItem.self)
            var item = PGItem(name: "before")
            try await item.save(on: db)

            let log = OutcomeLog()
            let loop = Task {
                while log.running {
                    for o in await Self.probe(db) { log.append(o) }
                    try? await Task.sleep(for: .milliseconds(25))
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            let beforeStop = log.outcomes.count
            try await cluster.stopPrimary()
            try await Task.sleep(for: .seconds(1))
            try await cluster.startPrimary()
            let afterStart = log.outcomes.count
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let tail = log.outcomes.dropFirst(afterStart)
                if tail.suffix(6).count == 6
                    && tail.suffix(6).allSatisfy({ if case .success = $0 { true } else { false } })
                {
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            log.stop()
            await loop.value

            let outcomes = log.outcomes
            #expect(
                beforeStop >= 2
                    && outcomes.prefix(beforeStop).allSatisfy { if case .success = $0 { true } else { false } },
                "queries succeed before the stop")
            var lost = 0
            var failed = 0
            for o in outcomes {
                switch o {
                case .success: break
                case .failure(.connectionLost, let took):
                    lost += 1
                    #expect(took < .seconds(Self.timeout + 1), "connectionLost took \(took)")
                case .failure(.connectionFailed, let took):
                    failed += 1
                    #expect(took < .seconds(Self.timeout + 1), "connectionFailed took \(took)")
                case .failure(let other, _): Issue.record("untyped for a restart: \(other)")
                case .untyped(let e): Issue.record("untyped error \(e)")
                }
            }
            print("restart: \(outcomes.count) queries, \(lost) connectionLost, \(failed) connectionFailed")
            #expect(lost + failed >= 1, "the queries while the server was away failed with typed errors")
            #expect(
                outcomes.suffix(6).allSatisfy { if case .success = $0 { true } else { false } },
                "queries succeed again through the same Database")
            var after = PGItem(name: "after")
            try await after.save(on: db)
            #expect(try await PGItem.query(on: db).order(\.name).all().map(\.name) == ["after", "before"])
        }
    }
}
