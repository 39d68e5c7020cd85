// SQLiteSyncEntryTests: writeSync/readSync block their thread on a pooled connection, from a thread or a Task.
import Foundation
import Strata
import StrataSQLite
import Synchronization
import Testing

@Model(table: "sync_entry")
struct SyncEntry {
    var id: Int64?
    var writer: Int
    var n: Int
}

@Suite("Synchronous entry (SQLite)")
struct SQLiteSyncEntryTests {
    @Test("writeSync commits, a throwing body rolls back, readSync reads, all from a plain thread")
    func fromAThread() throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        try db.writeSync { tx in try tx.migrate([SyncEntry.self]) }
        try db.writeSync { tx in
            var e = SyncEntry(writer: 0, n: 1)
            try e.save(tx)
        }
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.writeSync { tx in
                var e = SyncEntry(writer: 0, n: 2)
                try e.save(tx)
                throw Boom()
            }
        }
        #expect(try db.readSync { tx in try SyncEntry.query(on: tx).all().map(\.n) } == [1])
    }

    @Test("writeSync from plain threads and from Tasks at once, on a one-connection pool, all finish")
    func fromThreadsAndTasks() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open(
            "sqlite:\(file.path)?pool=1", drivers: [.sqlite], configuration: Configuration(poolTimeout: 60))
        defer { db.close() }
        try await db.migrate(SyncEntry.self)
        // Threads contend for the one connection, handed from thread to thread with no task involved. Only two
        // Tasks block a cooperative thread, briefly: the test shares the cooperative pool with the whole run.
        let threads = 6
        let failures = Atomic<Int>(0)
        let done = DispatchGroup()
        for w in 0..<threads {
            done.enter()
            Thread {
                defer { done.leave() }
                for n in 0..<10 {
                    do {
                        try db.writeSync { tx in
                            var e = SyncEntry(writer: w, n: n)
                            try e.save(tx)
                        }
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
            }.start()
        }
        let first = Task { try db.writeSync { tx in try SyncEntry(writer: 100, n: 0).inserted(tx) } }
        let second = Task { try db.writeSync { tx in try SyncEntry(writer: 101, n: 0).inserted(tx) } }
        try await first.value
        try await second.value
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            done.notify(queue: .global()) { c.resume() }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        let inTask = try await Task { try db.readSync { tx in try SyncEntry.query(on: tx).count() } }.value
        #expect(inTask == threads * 10 + 2)
    }

    @Test("writeSync inside a body of the same one-connection database throws poolTimeout instead of hanging")
    func nested() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open(
            "sqlite:\(file.path)?pool=1", drivers: [.sqlite], configuration: Configuration(poolTimeout: 0.5))
        defer { db.close() }
        try await db.migrate(SyncEntry.self)
        let start = ContinuousClock.now
        await #expect(throws: StrataError.poolTimeout(seconds: 0.5)) {
            try await db.transaction { _ in
                try db.writeSync { tx in
                    var e = SyncEntry(writer: 9, n: 9)
                    try e.save(tx)
                }
            }
        }
        // It ends (no hang); how soon depends on the machine's load (a whole test run on 2 cores: up to a minute).
        #expect(ContinuousClock.now - start < .seconds(150))
        #expect(try db.readSync { tx in try SyncEntry.query(on: tx).count() } == 0)
    }
}

extension SyncEntry {
    /// Saves a copy of the entry (for a `Task` body, which cannot capture a mutable model).
    func inserted(_ tx: Transaction) throws {
        var copy = self
        try copy.save(tx)
    }
}
