// PostgresRowLockTests: isolation levels, retries of real serialization failures and deadlocks, and row locks
// (NOWAIT, SKIP LOCKED, a job queue) between real concurrent PostgreSQL transactions.
import Foundation
import Strata
import StrataConformance
import StrataPostgres
import Synchronization
import Testing

@Model(table: "pgt_job")
struct PGJob {
    var id: Int64?
    var status: String
    var worker: Int?
}

@Model(table: "pgt_ledger")
struct PGLedger {
    var id: Int64?
    var amount: Int64
}

/// Two parties meet here once: each `arrive` waits (up to 20 s) until the other has arrived too.
final class Rendezvous: Sendable {
    private let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]

    /// Party `side` (0 or 1) arrives and waits for the other.
    func arrive(_ side: Int) {
        arrived[side].signal()
        _ = arrived[1 - side].wait(timeout: .now() + 20)
    }
}

extension PostgresServerTests {
    @Suite("PostgreSQL isolation, retries and row locks")
    struct PostgresRowLockTests {
        @Test("each isolation level begins the transaction at that level on the server")
        func levels() async throws {
            let db = try PostgresTestServer.open()
            defer { db.close() }
            for level in IsolationLevel.allCases {
                let shown = try await db.transaction(isolation: level) { tx in
                    try tx.unsafeRawExecute("SHOW transaction_isolation").first?.first
                }
                #expect(shown == .text(level.description))
            }
            let sync = try db.writeSync(isolation: .repeatableRead) { tx in
                try tx.unsafeRawExecute("SHOW transaction_isolation").first?.first
            }
            #expect(sync == .text("repeatable read"))
            #expect(try await db.unsafeRawExecute("SHOW transaction_isolation").first?.first == .text("read committed"))
        }

        /// Each transaction reads the ledger's sum and appends sum + 1: run one after the other from {1} they
        /// give {1, 2, 4}; run side by side at SERIALIZABLE one of them fails with 40001.
        @Test("a real serialization failure (40001) is retried and the result equals serial execution")
        func serializationRetry() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_tx_serial", "pool=4")
            defer { db.close() }
            try await db.migrate(PGLedger.self)
            var seed = PGLedger(amount: 1)
            try await seed.save(on: db)
            let meet = Rendezvous()
            let attempts = Atomic<Int>(0)
            let workers = (0..<2).map { side in
                Siblings.onOwnThread {
                    var mine = 0
                    try await db.transaction(isolation: .serializable, retry: .attempts(8)) { tx in
                        mine += 1
                        attempts.add(1, ordering: .relaxed)
                        let sum = try PGLedger.query(on: tx).values(\.amount).reduce(0, +)
                        if mine == 1 { meet.arrive(side) }  // both read before either writes
                        var entry = PGLedger(amount: sum + 1)
                        try entry.save(tx)
                    }
                }
            }
            for w in workers { try await w.value }
            let amounts = try await PGLedger.query(on: db).order(\.amount).values(\.amount)
            #expect(amounts == [1, 2, 4])  // exactly what serial execution gives: 3 rows
            #expect(attempts.load(ordering: .relaxed) >= 3)  // at least one attempt failed and ran again
        }

        @Test("a serialization failure past the last attempt is rethrown unchanged and writes nothing")
        func serializationExhausted() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_tx_serial_x", "pool=4")
            defer { db.close() }
            try await db.migrate(PGLedger.self)
            var seed = PGLedger(amount: 1)
            try await seed.save(on: db)
            let meet = Rendezvous()
            let results = (0..<2).map { side in
                Siblings.onOwnThread {
                    try await db.transaction(isolation: .serializable, retry: .never) { tx in
                        let sum = try PGLedger.query(on: tx).values(\.amount).reduce(0, +)
                        meet.arrive(side)
                        var entry = PGLedger(amount: sum + 1)
                        try entry.save(tx)
                    }
                }
            }
            var errors: [StrataError] = []
            for r in results {
                do { try await r.value } catch let e as StrataError { errors.append(e) }
            }
            #expect(errors == [.serializationFailure])
            #expect(try await PGLedger.query(on: db).order(\.amount).values(\.amount) == [1, 2])
        }

        /// Each transaction adds 1 to both rows, in opposite orders: side by side they deadlock (40P01), and the
        /// victim's retry makes the result what serial execution gives: both rows at 2.
        @Test("a real deadlock (40P01) is a serializationFailure, retried to the serial result")
        func deadlockRetry() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_tx_deadlock", "pool=4")
            defer { db.close() }
            try await db.migrate(PGLedger.self)
            var a = PGLedger(amount: 0)
            var b = PGLedger(amount: 0)
            try await a.save(on: db)
            try await b.save(on: db)
            let ids = [a.id ?? -1, b.id ?? -1]
            let meet = Rendezvous()
            let attempts = Atomic<Int>(0)
            let seen = Mutex<[StrataError]>([])
            let workers = (0..<2).map { side in
                Siblings.onOwnThread {
                    var mine = 0
                    try await db.transaction(retry: .attempts(5)) { tx in
                        mine += 1
                        attempts.add(1, ordering: .relaxed)
                        do {
                            let order = side == 0 ? ids : ids.reversed()
                            let add = #"UPDATE "pgt_ledger" SET "amount" = "amount" + 1 WHERE "id" = ?"#
                            try tx.unsafeRawExecute(add, [order[0]])
                            if mine == 1 { meet.arrive(side) }  // each holds one row, then wants the other's
                            try tx.unsafeRawExecute(add, [order[1]])
                        } catch let e as StrataError {
                            seen.withLock { $0.append(e) }
                            throw e
                        }
                    }
                }
            }
            for w in workers { try await w.value }
            #expect(seen.withLock { $0 } == [.serializationFailure])  // one victim, mapped to the retryable case
            #expect(attempts.load(ordering: .relaxed) == 3)
            #expect(try await PGLedger.query(on: db).count() == 2)
            #expect(try await PGLedger.query(on: db).order(\.id).values(\.amount) == [2, 2])  // as run serially
        }

        /// Three jobs; one transaction holds job 1 with FOR UPDATE while the other asks for it.
        @Test("two transactions: SKIP LOCKED passes a held row, NOWAIT names its table, nothing is lost")
        func twoTransactions() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_tx_locks", "pool=4")
            defer { db.close() }
            try await db.migrate(PGJob.self)
            for _ in 0..<3 {
                var j = PGJob(status: "pending")
                try await j.save(on: db)
            }
            let holding = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let holder = Siblings.onOwnThread {
                try await db.transaction { tx in
                    let held = try PGJob.query(on: tx).order(\.id).limit(1).forUpdate().all()
                    holding.signal()
                    _ = release.wait(timeout: .now() + 20)
                    return held.map { $0.id ?? -1 }
                }
            }
            while holding.wait(timeout: .now()) == .timedOut { await Task.yield() }
            // SKIP LOCKED: the first pending job this transaction can lock is job 2.
            let skipped = try await db.transaction { tx in
                try PGJob.query(on: tx).where(\.status == "pending").order(\.id).limit(1).forUpdate(.skipLocked)
                    .first()?.id
            }
            // NOWAIT on the held row: a typed error naming the table. Caught inside the body, the transaction goes
            // on and its earlier write commits; let out of the body, everything rolls back.
            let kept = try await db.transaction { tx -> StrataError? in
                var extra = PGJob(status: "written before the lock")
                try extra.save(tx)
                var failure: StrataError?
                do {
                    _ = try PGJob.query(on: tx).order(\.id).forUpdate(.noWait).all()
                } catch let e as StrataError {
                    failure = e
                }
                var after = PGJob(status: "written after the failed lock")
                try after.save(tx)
                return failure
            }
            await #expect(throws: StrataError.lockNotAvailable(table: "pgt_job")) {
                try await db.transaction { tx in
                    var lost = PGJob(status: "rolled back")
                    try lost.save(tx)
                    _ = try PGJob.query(on: tx).forShare(.noWait).all()
                }
            }
            release.signal()
            let held = try await holder.value
            #expect(held.count == 1 && skipped == (held[0] + 1))
            #expect(kept == .lockNotAvailable(table: "pgt_job"))
            #expect(try await PGJob.query(on: db).count() == 5)  // 3 jobs + the 2 kept writes; the rolled-back one gone
            #expect(try await PGJob.query(on: db).where(\.status == "rolled back").count() == 0)
        }

        @Test("a job queue: 6 workers take 60 jobs with FOR UPDATE SKIP LOCKED, each job exactly once")
        func jobQueue() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_tx_queue", "pool=6")
            defer { db.close() }
            try await db.migrate(PGJob.self)
            var jobs = (0..<60).map { _ in PGJob(status: "pending") }
            try await PGJob.insertAll(&jobs, on: db)
            let workers = (0..<6).map { worker in
                Siblings.onOwnThread {
                    var taken: [Int64] = []
                    while true {
                        let job = try await db.transaction { tx -> Int64? in
                            guard
                                var job = try PGJob.query(on: tx).where(\.status == "pending").order(\.id).limit(1)
                                    .forUpdate(.skipLocked).first()
                            else { return nil }
                            job.status = "done"
                            job.worker = worker
                            try job.save(tx)
                            return job.id
                        }
                        guard let job else { return taken }
                        taken.append(job)
                    }
                }
            }
            var all: [Int64] = []
            var perWorker: [Int] = []
            for w in workers {
                let taken = try await w.value
                all += taken
                perWorker.append(taken.count)
            }
            #expect(all.count == 60 && Set(all).count == 60)  // every job handed out exactly once
            #expect(Set(all) == Set(jobs.compactMap(\.id)))
            #expect(try await PGJob.query(on: db).where(\.status == "done").count() == 60)
            #expect(try await PGJob.query(on: db).count() == 60)  // none lost, none added
            let owners = try await PGJob.query(on: db).values(\.worker)
            for (worker, count) in perWorker.enumerated() {
                #expect(owners.filter { $0 == worker }.count == count)  // the row names the worker that took it
            }
        }
    }
}
