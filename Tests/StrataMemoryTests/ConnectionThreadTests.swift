// ConnectionThreadTests: where a call's body runs: alone on the caller's thread, meeting others on its connection's.
import Foundation
import Strata
import StrataConformance
import StrataMemory
import Synchronization
import Testing

/// Whether a body runs on a connection's own thread: there it sees no task (on the caller's thread it
/// runs inside the caller's task). Thread names cannot tell: Linux's Foundation does not apply them.
private var onConnectionThread: Bool { withUnsafeCurrentTask { $0 == nil } }

/// How many bodies run now, and the most at once. Sendable: atomics.
private final class Peak: Sendable {
    let inBody = Atomic<Int>(0)
    let most = Atomic<Int>(0)
}

@Suite("Where calls run")
struct ConnectionThreadTests {
    /// A pool wait far past the default 30 s: while the whole suite runs on 2 cores, a task resumed after its wait can
    /// queue behind other suites' work for tens of seconds; what these tests pin is where calls run, not how fast.
    static let patient = Configuration(poolTimeout: 180)

    @Test("a call alone runs on the caller's thread; calls that meet others run on connection threads, many at once")
    func manyInFlight() async throws {
        let db = try Database.open(
            "memory:?pool=8", drivers: [.memory], configuration: Self.patient)
        defer { db.close() }
        try await db.migrate(Note.self)
        // Alone: on the caller's thread, unless other tests' lone calls hold every slot of InlineCalls right then
        // (they hold one for a few milliseconds), so one of a few tries runs inline.
        var inline = false
        for _ in 0..<500 where !inline {  // at most 10 s
            inline = try await db.withConnection { _ in !onConnectionThread }
            if !inline { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(inline, "a call alone never ran on the caller's thread")
        // One call held open, so every other call meets it (under a busy test run, tasks that never
        // overlap would each be alone and rightly run inline).
        let release = DispatchSemaphore(value: 0)
        let holder = await Siblings.holdOne(db, until: release)
        let peak = Peak()
        let placed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try await db.withConnection { _ in
                        let now = peak.inBody.add(1, ordering: .relaxed).newValue
                        _ = peak.most.max(now, ordering: .relaxed)
                        Thread.sleep(forTimeInterval: 0.1)
                        peak.inBody.subtract(1, ordering: .relaxed)
                        return onConnectionThread
                    }
                }
            }
            var placed: [Bool] = []
            for try await p in group { placed.append(p) }
            return placed
        }
        release.signal()
        try await holder.value
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let most = peak.most.load(ordering: .relaxed)
        #expect(most > min(cores, 6), "\(most) bodies at once over \(cores) cooperative threads and 7 free connections")
        #expect(placed.allSatisfy { $0 }, "calls that met others ran on connection threads")
    }

    @Test("forEach streams, and row callbacks run statements, inside bodies on connection threads")
    func streamingOnConnectionThreads() async throws {
        let db = try Database.open(
            "memory:?pool=4", drivers: [.memory], configuration: Self.patient)
        defer { db.close() }
        try await db.migrate(Note.self)
        try await db.transaction { tx in
            for i in 0..<500 {
                var n = Note(title: "n\(i)", score: i)
                try n.save(tx)
            }
        }
        let release = DispatchSemaphore(value: 0)
        let holder = await Siblings.holdOne(db, until: release)
        let results = try await withThrowingTaskGroup(of: (Int, Int, Bool).self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await db.withConnection { tx in
                        var streamed = 0
                        var counted = 0
                        try Note.query(on: tx).order(\.score).forEach { _ in
                            streamed += 1
                            if streamed % 100 == 0 { counted += try Note.query(on: tx).count() }
                        }
                        return (streamed, counted, onConnectionThread)
                    }
                }
            }
            var all: [(Int, Int, Bool)] = []
            for try await r in group { all.append(r) }
            return all
        }
        release.signal()
        try await holder.value
        #expect(results.count == 6)
        for (streamed, counted, placed) in results {
            #expect(streamed == 500)
            #expect(counted == 5 * 500)
            #expect(placed)
        }
    }

    @Test("a task cancelled while its body runs on a connection thread finishes the body: it commits whole")
    func cancelledMidBody() async throws {
        let db = try Database.open(
            "memory:?pool=4", drivers: [.memory], configuration: Self.patient)
        defer { db.close() }
        try await db.migrate(Note.self)
        let release = DispatchSemaphore(value: 0)
        let holder = await Siblings.holdOne(db, until: release)
        let started = DispatchSemaphore(value: 0)
        let task = Task {
            try await db.transaction { tx in
                var a = Note(title: "a")
                try a.save(tx)
                started.signal()
                Thread.sleep(forTimeInterval: 0.1)
                var b = Note(title: "b")
                try b.save(tx)
                return onConnectionThread
            }
        }
        while started.wait(timeout: .now()) == .timedOut { await Task.yield() }
        task.cancel()
        #expect(try await task.value, "the body ran on a connection thread")
        release.signal()
        try await holder.value
        #expect(try await Note.query(on: db).order(\.title).all().map(\.title) == ["a", "b"])
    }
}
