// SQLiteSyncEntryTests: writeSync/readSync block their thread on a pooled connection, from a thread or a Task.
import Foundation
import Strata
import StrataSQLite
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

    @Test("many Tasks calling writeSync on a one-connection pool all finish (more callers than cooperative threads)")
    func fromInsideTasks() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open(
            "sqlite:\(file.path)?pool=1", drivers: [.sqlite], configuration: Configuration(poolTimeout: 20))
        defer { db.close() }
        try await db.migrate(SyncEntry.self)
        let writers = 4 * max(2, ProcessInfo.processInfo.activeProcessorCount)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<writers {
                group.addTask {
                    for n in 0..<10 {
                        try db.writeSync { tx in
                            var e = SyncEntry(writer: w, n: n)
                            try e.save(tx)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let inTask = try await Task { try db.readSync { tx in try SyncEntry.query(on: tx).count() } }.value
        #expect(inTask == writers * 10)
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
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(try db.readSync { tx in try SyncEntry.query(on: tx).count() } == 0)
    }
}
