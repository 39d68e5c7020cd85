// DatabaseServiceTests: a database in a real ServiceGroup lets its calls in flight commit on graceful shutdown, then
// refuses new ones; on memory, a SQLite file and PostgreSQL.
import Foundation
import Logging
import ServiceLifecycle
import Strata
import StrataConformance
import StrataMemory
import StrataPostgres
import StrataSQLite
import StrataServiceLifecycle
import Synchronization
import Testing

@Model(table: "lifecycle_job")
struct LifecycleJob {
    var id: Int64?
    var title: String
}

/// A backend the service runs on: each test opens its own database there.
enum Backend: String, CustomTestStringConvertible, Sendable {
    case memory, sqliteFile, postgres

    var testDescription: String { rawValue }

    /// The backends to run on: PostgreSQL when a server answers (`pg_virtualenv` sets libpq's environment), or in
    /// CI, where a missing server must fail.
    static let available: [Backend] = {
        let environment = ProcessInfo.processInfo.environment
        let probe = try? Database.open(postgresURL, drivers: [.postgres])
        defer { probe?.close() }
        let reachable = probe != nil
        return reachable || environment["CI"]?.lowercased() == "true"
            ? [.memory, .sqliteFile, .postgres] : [.memory, .sqliteFile]
    }()

    static let postgresURL =
        ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "postgres://"

    /// A URL for a new, empty database (PostgreSQL's table is dropped first); the same URL opens it again.
    func freshURL() async throws -> String {
        switch self {
        case .memory: return "memory:"
        case .sqliteFile:
            return "sqlite:"
                + FileManager.default.temporaryDirectory.appendingPathComponent("svc-\(UUID()).sqlite").path
        case .postgres:
            let admin = try Database.open(Self.postgresURL, drivers: [.postgres])
            defer { admin.close() }
            try await admin.unsafeRawExecute(#"DROP TABLE IF EXISTS "lifecycle_job""#)
            return Self.postgresURL
        }
    }

    /// Whether a second database opened on the same URL sees the first one's rows.
    var persists: Bool { self != .memory }
}

let drivers: [DriverFactory] = [.memory, .sqlite, .postgres]
let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

/// Whether `error` is the refusal of a call made once the database closed.
func isClosedRefusal(_ error: any Error) -> Bool {
    guard case StrataError.connectionFailed(let reason) = error else { return false }
    return reason == "the database is closed"
}

@Suite("DatabaseService in a ServiceGroup", .serialized)
struct DatabaseServiceTests {
    @Test(
        "graceful shutdown lets the call in flight commit, refuses new calls, then the group returns",
        arguments: Backend.available)
    func drainsThenRefuses(_ backend: Backend) async throws {
        let url = try await backend.freshURL()
        let db = try Database.open(url, drivers: drivers, configuration: Configuration(maxConnections: 4))
        try await db.migrate(LifecycleJob.self)
        let group = ServiceGroup(services: [DatabaseService(db, gracePeriod: .seconds(120))], logger: quiet)
        let returned = Atomic<Bool>(false)
        let running = Task {
            try await group.run()
            returned.store(true, ordering: .sequentiallyConsistent)
        }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }  // on a failed expectation too: the call in flight must not hold its lock on
        let inFlight = Siblings.onOwnThread {
            try await db.transaction { tx in
                var job = LifecycleJob(title: "in flight")
                try job.save(tx)
                holding.signal()
                _ = release.wait(timeout: .now() + 120)
                return job.id
            }
        }
        while holding.wait(timeout: .now()) == .timedOut { await Task.yield() }

        await group.triggerGracefulShutdown()
        // Bounded for a failure only: under a whole test run on 2 cores the group's tasks can wait a minute or more
        // for a cooperative thread.
        let until = ContinuousClock.now + .seconds(300)
        while !db.isClosed && ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(1)) }
        // Required: a call made on a database still open would wait for the call in flight's lock (memory, SQLite).
        try #require(db.isClosed, "graceful shutdown closed the database to new calls")
        await #expect(throws: StrataError.self, "a call made now is refused") {
            do {
                _ = try await LifecycleJob.query(on: db).count()
            } catch {
                #expect(isClosedRefusal(error), "as closed: \(error)")
                throw error
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        let returnedEarly = returned.load(ordering: .sequentiallyConsistent)
        #expect(!returnedEarly, "the group waits for the call in flight")

        release.signal()
        let id = try await inFlight.value
        try await running.value
        let returnedAtLast = returned.load(ordering: .sequentiallyConsistent)
        #expect(returnedAtLast)
        #expect(db.connectionsInUse == 0)
        #expect(id != nil, "the call in flight saved its row")
        if backend.persists {
            let reopened = try Database.open(url, drivers: drivers)
            defer { reopened.close() }
            let titles = try await LifecycleJob.query(on: reopened).all().map(\.title)
            #expect(titles == ["in flight"], "and it committed")
        }
    }

    @Test(
        "under load every call completes or is refused as closed, and the drain ends within the grace period",
        arguments: Backend.available)
    func drainsUnderLoad(_ backend: Backend) async throws {
        let url = try await backend.freshURL()
        let db = try Database.open(url, drivers: drivers, configuration: Configuration(maxConnections: 4))
        try await db.migrate(LifecycleJob.self)
        let grace = Duration.seconds(300)
        let group = ServiceGroup(services: [DatabaseService(db, gracePeriod: grace)], logger: quiet)
        let running = Task { try await group.run() }
        let saved = Tally()
        let callers = 16
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for n in 0..<callers {
                    tasks.addTask {
                        var i = 0
                        while true {
                            i += 1
                            do {
                                try await db.transaction { tx in
                                    var job = LifecycleJob(title: "c\(n)-\(i)")
                                    try job.save(tx)
                                    _ = try LifecycleJob.find(job.id ?? 0, tx)
                                }
                                saved.add()
                            } catch  where isClosedRefusal(error) {
                                return
                            }
                        }
                    }
                }
                try await tasks.waitForAll()
            }
        }
        let until = ContinuousClock.now + .seconds(300)
        while saved.value < 200 && ContinuousClock.now < until {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(saved.value >= 200, "the callers saved before the shutdown")
        let start = ContinuousClock.now
        await group.triggerGracefulShutdown()
        try await running.value
        let drain = ContinuousClock.now - start
        try await load.value  // any error other than the refusal fails the test here
        print("drain under load (\(backend.rawValue), \(callers) callers, pool 4): \(drain)")
        #expect(drain < grace, "drained within the grace period (\(drain))")
        #expect(db.connectionsInUse == 0)
        if backend.persists {
            let reopened = try Database.open(url, drivers: drivers)
            defer { reopened.close() }
            let rows = try await LifecycleJob.query(on: reopened).count()
            let returnedCalls = saved.value
            #expect(rows == returnedCalls, "every call that returned committed, no other did")
        }
    }

    @Test("cancelling the group closes the database at once", arguments: Backend.available)
    func cancellationClosesAtOnce(_ backend: Backend) async throws {
        let db = try Database.open(try await backend.freshURL(), drivers: drivers)
        try await db.migrate(LifecycleJob.self)
        let group = ServiceGroup(services: [DatabaseService(db, gracePeriod: .seconds(120))], logger: quiet)
        let running = Task { try await group.run() }
        _ = try await LifecycleJob.query(on: db).count()
        running.cancel()
        _ = try? await running.value
        #expect(db.isClosed)
        await #expect(throws: StrataError.self) { try await LifecycleJob.query(on: db).count() }
    }
}

/// A count that tasks bump.
final class Tally: Sendable {
    private let count = Atomic<Int>(0)

    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
