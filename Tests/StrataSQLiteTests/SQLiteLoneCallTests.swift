// SQLiteLoneCallTests: lone calls of many databases waiting on a lock never hold every cooperative thread.
import Dispatch
import Foundation
import Strata
import StrataSQLite
import Testing

/// Whether the caller runs without a task: on a connection's own thread, not a cooperative one.
private var onConnectionThread: Bool { withUnsafeCurrentTask { $0 == nil } }

@Suite("SQLite lone calls")
struct SQLiteLoneCallTests {
    @Test("lone writes of more databases than there are cores, all waiting on another's lock, all start and all commit")
    func loneBusyWaitsLeaveACooperativeThread() async throws {
        let file = TemporarySQLiteFile()
        let path = file.path
        let setup = try Database.open("sqlite:\(path)", drivers: [.sqlite])
        defer { setup.close() }
        try await setup.unsafeRawExecute("CREATE TABLE lone_write (writer INTEGER NOT NULL)")
        // One more writer than there are cooperative threads: were each lone body on one, the last could not start.
        let writers = ProcessInfo.processInfo.activeProcessorCount + 1
        let patient = Configuration(timeout: 300, poolTimeout: 300)
        let databases = try (0..<writers).map { _ in
            try Database.open("sqlite:\(path)", drivers: [.sqlite], configuration: patient)
        }
        defer { databases.forEach { $0.close() } }
        let holder = try Database.open("sqlite:\(path)", drivers: [.sqlite])
        defer { holder.close() }

        // A plain thread holds the write lock until every writer's body has started (or 180 s have passed: the whole
        // suite on 2 cores can hold a queued task back for over a minute).
        let holding = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let allStarted = Locked(false)
        let held = Thread {
            _ = try? holder.writeSync { tx in
                try tx.unsafeRawExecute("INSERT INTO lone_write (writer) VALUES (-1)")
                holding.signal()
                var count = 0
                while count < writers, started.wait(timeout: .now() + 180) == .success { count += 1 }
                allStarted.set(count == writers)
            }
        }
        held.start()
        holding.wait()

        let placements = try await withThrowingTaskGroup(of: Bool.self) { group in
            for (i, db) in databases.enumerated() {
                group.addTask {
                    try await db.withConnection { tx in
                        started.signal()
                        try tx.unsafeRawExecute("INSERT INTO lone_write (writer) VALUES (?)", [i])  // waits for the lock
                        return onConnectionThread
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(allStarted.get(), "a lone body could not start: every cooperative thread was held by a busy wait")
        let inline = placements.filter { !$0 }.count
        #expect(inline <= InlineCalls.limit, "\(inline) lone bodies ran on cooperative threads at once")
        #expect(placements.count == writers)
        let rows = try await setup.unsafeRawExecute("SELECT count(*) FROM lone_write")
        #expect(rows == [[.integer(Int64(writers) + 1)]], "every write committed, the holder's too")
    }
}

/// A value shared between a plain thread and the test.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func set(_ new: Value) { lock.withLock { value = new } }
    func get() -> Value { lock.withLock { value } }
    /// Changes the value under the lock (a read-modify-write no other thread interleaves with).
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&value) } }
}
