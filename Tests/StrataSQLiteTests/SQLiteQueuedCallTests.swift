// SQLiteQueuedCallTests: a call that waits for a connection queues with its body, which the connection's thread runs.
import Dispatch
import Foundation
import Strata
import StrataSQLite
import Testing

/// Whether the caller runs without a task: on a connection's own thread, not a cooperative one.
private var onConnectionThread: Bool { withUnsafeCurrentTask { $0 == nil } }

@Suite("SQLite queued calls")
struct SQLiteQueuedCallTests {
    /// A database of one connection, and a plain thread holding that connection (`writeSync`) until `release` is
    /// signalled, having written the row 0.
    private struct Held {
        let db: Database
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)

        init(_ path: String, poolTimeout: Double) async throws {
            db = try Database.open(
                "sqlite:\(path)?pool=1", drivers: [.sqlite], configuration: Configuration(poolTimeout: poolTimeout))
            try await db.unsafeRawExecute("CREATE TABLE queued (n INTEGER NOT NULL)")
            let (db, release, done) = (db, release, done)
            let holding = DispatchSemaphore(value: 0)
            Thread {
                _ = try? db.writeSync { tx in
                    try tx.unsafeRawExecute("INSERT INTO queued (n) VALUES (0)")
                    holding.signal()
                    _ = release.wait(timeout: .now() + 300)
                }
                done.signal()
            }.start()
            holding.wait()
        }

        /// Waits (at most 180 s: the whole suite on 2 cores can hold a task back) until `count` calls queue.
        func untilQueued(_ count: Int) async throws -> Bool {
            for _ in 0..<18_000 {
                if db.callsWaiting >= count { return true }
                try await Task.sleep(for: .milliseconds(10))
            }
            return false
        }

        func rows() async throws -> [Int64] {
            try await db.unsafeRawExecute("SELECT n FROM queued ORDER BY n").map {
                if case .integer(let n) = $0[0] { n } else { -1 }
            }
        }
    }

    @Test("calls queued behind a busy connection each run their body on its thread and wake with the answer")
    func queuedBodiesRunOnTheConnectionsThread() async throws {
        let file = TemporarySQLiteFile()
        let held = try await Held(file.path, poolTimeout: 300)
        defer { held.db.close() }
        let callers = 6
        let placed = Task {
            try await withThrowingTaskGroup(of: (Int, Bool, ObjectIdentifier).self) { group in
                for i in 1...callers {
                    group.addTask {
                        try await held.db.withConnection { tx in
                            try tx.unsafeRawExecute("INSERT INTO queued (n) VALUES (?)", [i])
                            return (i, onConnectionThread, ObjectIdentifier(Thread.current))
                        }
                    }
                }
                return try await group.reduce(into: [(Int, Bool, ObjectIdentifier)]()) { $0.append($1) }
            }
        }
        #expect(try await held.untilQueued(callers), "the calls queued for the one connection")
        held.release.signal()
        let answers: [(Int, Bool, ObjectIdentifier)] = try await placed.value
        #expect(answers.map { $0.0 }.sorted() == Array(1...callers), "every call answered with its own result")
        #expect(answers.allSatisfy { $0.1 }, "every queued body ran on a connection's thread, not a cooperative one")
        #expect(Set(answers.map { $0.2 }).count == 1, "all on the one connection's thread")
        #expect(try await held.rows() == Array(0...Int64(callers)))
        #expect(held.db.callsWaiting == 0 && held.db.connectionsInUse == 0, "nothing left queued or leased")
        held.done.wait()
    }

    @Test("queued bodies run while every cooperative thread is blocked: no task has to wake to start them")
    func queuedBodiesNeedNoCooperativeThread() async throws {
        let file = TemporarySQLiteFile()
        let held = try await Held(file.path, poolTimeout: 300)
        defer { held.db.close() }
        let callers = 3
        let bodiesRan = DispatchSemaphore(value: 0)
        let queued = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 1...callers {
                    group.addTask {
                        try await held.db.withConnection { tx in
                            try tx.unsafeRawExecute("INSERT INTO queued (n) VALUES (?)", [i])
                            bodiesRan.signal()
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(try await held.untilQueued(callers))
        // Every cooperative thread is then held by a task blocked on `unblock`; a plain thread lets the holder give
        // the connection back and counts the queued bodies that run (each waits at most 60 s) before unblocking.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let entered = DispatchSemaphore(value: 0)
        let unblock = DispatchSemaphore(value: 0)
        let counted = DispatchSemaphore(value: 0)
        let ranWhileBlocked = Locked(0)
        Thread {
            var blocked = 0
            while blocked < cores, entered.wait(timeout: .now() + 180) == .success { blocked += 1 }
            held.release.signal()
            while ranWhileBlocked.get() < callers, bodiesRan.wait(timeout: .now() + 60) == .success {
                ranWhileBlocked.update { $0 += 1 }
            }
            for _ in 0..<cores { unblock.signal() }
            counted.signal()
        }.start()
        let blockers = (0..<cores).map { _ in
            Task.detached {
                entered.signal()
                unblock.wait()
            }
        }
        for b in blockers { await b.value }
        try await queued.value
        await withCheckedContinuation { c in
            DispatchQueue.global().async {
                counted.wait()
                c.resume()
            }
        }
        #expect(ranWhileBlocked.get() == callers, "queued bodies ran with every cooperative thread blocked")
        #expect(try await held.rows() == Array(0...Int64(callers)))
        held.done.wait()
    }

    @Test("a queued call that times out, is cancelled or finds the database closed never runs its body")
    func queuedBodiesThatNeverGetAConnectionNeverRun() async throws {
        let file = TemporarySQLiteFile()
        let ran = Locked(false)
        // A timeout: the pool's wait ends, the body is dropped.
        let held = try await Held(file.path, poolTimeout: 0.3)
        await #expect(throws: StrataError.poolTimeout(seconds: 0.3)) {
            try await held.db.withConnection { tx in
                ran.set(true)
                try tx.unsafeRawExecute("INSERT INTO queued (n) VALUES (1)")
            }
        }
        held.release.signal()
        held.done.wait()
        #expect(try await held.rows() == [0], "only the holder's row")
        // A cancellation while queued, on a pool that would wait long: only the cancellation ends the wait (with the
        // 0.3 s above, a loaded machine could time the call out before the test cancelled it).
        let third = TemporarySQLiteFile()
        let waiting = try await Held(third.path, poolTimeout: 300)
        let cancelled = Task {
            try await waiting.db.withConnection { tx in
                ran.set(true)
                try tx.unsafeRawExecute("INSERT INTO queued (n) VALUES (2)")
            }
        }
        #expect(try await waiting.untilQueued(1))
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        waiting.release.signal()
        waiting.done.wait()
        #expect(try await waiting.rows() == [0], "only the holder's row")
        // The database closed while a call waits: it is woken without a connection, asks again and is refused.
        let second = TemporarySQLiteFile()
        let closing = try await Held(second.path, poolTimeout: 300)
        let refused = Task {
            try await closing.db.withConnection { tx in
                ran.set(true)
                try tx.unsafeRawExecute("INSERT INTO queued (n) VALUES (3)")
            }
        }
        #expect(try await closing.untilQueued(1))
        closing.db.close()
        await #expect {
            try await refused.value
        } throws: { error in
            if case StrataError.connectionFailed = error { return true }
            return false
        }
        closing.release.signal()
        closing.done.wait()
        #expect(!ran.get(), "no queued body ran")
        #expect(held.db.callsWaiting == 0 && waiting.db.callsWaiting == 0 && closing.db.callsWaiting == 0)
        held.db.close()
        waiting.db.close()
    }
}
