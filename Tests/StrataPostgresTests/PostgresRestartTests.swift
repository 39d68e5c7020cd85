// PostgresRestartTests: the server stops and starts in the middle of a run of queries; the same Database recovers.
import Foundation
import Strata
import StrataPostgres
import Synchronization
import Testing

/// Stops and starts the server under test: `STRATA_POSTGRES_CTL` (a command taking `stop` or `start`
/// as its last argument), or `pg_ctlcluster <version> <cluster>` for a Debian cluster such as the one
/// `pg_virtualenv` makes (found from the server's `config_file`).
struct ServerControl {
    let command: String

    static func find(_ db: Database) async throws -> ServerControl? {
        if let custom = PostgresTestServer.environment["STRATA_POSTGRES_CTL"], !custom.isEmpty {
            return ServerControl(command: custom)
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pg_ctlcluster"),
            case .text(let path)? = try await db.unsafeRawExecute("SHOW config_file").first?.first
        else { return nil }
        // …/<version>/<cluster>/postgresql.conf
        let parts = path.split(separator: "/")
        guard parts.count >= 3, parts[parts.count - 1] == "postgresql.conf" else { return nil }
        return ServerControl(command: "/usr/bin/pg_ctlcluster \(parts[parts.count - 3]) \(parts[parts.count - 2])")
    }

    /// Runs `command action` on its own thread (posix_spawn and waitpid) and waits without blocking a task.
    func run(_ action: String) async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-pgctl-\(UUID().uuidString).log"
        ).path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let argv = ["/bin/sh", "-c", "\(command) \(action) > '\(output)' 2>&1"]
        let status: Int32 = await withCheckedContinuation { c in
            Thread.detachNewThread {
                let args: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
                defer { for a in args { free(a) } }
                var pid: pid_t = 0
                guard posix_spawn(&pid, "/bin/sh", nil, nil, args, environ) == 0 else {
                    c.resume(returning: -1)
                    return
                }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                c.resume(returning: status)
            }
        }
        guard status == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw StrataError.database(code: Int(status), message: "'\(command) \(action)' failed: \(text)")
        }
    }
}

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
            .enabled(
                if: ServerAccess.controlsServer,
                "restarts the server: needs pg_ctlcluster on a pg_virtualenv cluster, STRATA_POSTGRES_CTL, or STRATA_SERVER_CONTROL=1"),
            .timeLimit(.minutes(2)))
        func restart() async throws {
            let admin = try PostgresTestServer.open()
            defer { admin.close() }
            let control = try #require(
                try await ServerControl.find(admin),
                "no way to restart the server: set STRATA_POSTGRES_CTL or run under pg_virtualenv")
            let schema = try await PostgresTestServer.freshSchema("strata_restart")
            schema.close()
            let db = try Database.open(
                PostgresTestServer.url("search_path=strata_restart", "pool=2"), drivers: [.postgres],
                configuration: Configuration(timeout: Self.timeout))
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
            try await control.run("stop -m fast")
            try await Task.sleep(for: .seconds(1))
            try await control.run("start")
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
            try await PostgresTestServer.dropSchema("strata_restart")
        }
    }
}
