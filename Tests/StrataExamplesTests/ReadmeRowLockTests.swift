// ReadmeRowLockTests: the README's "Isolation, retries and row locks" example, compiled and run on SQLite and
// memory, then as a job queue of 4 workers over 40 jobs on each.
import Foundation
import Strata
import StrataConformance
import StrataMemory
import StrataSQLite
import Testing

// README: "Isolation, retries and row locks"
@Model struct Job {
    var id: Int64?
    var status = "pending"
    var worker: Int?
}

@Suite("README row lock example")
struct ReadmeRowLockTests {
    static func open(_ driver: String, _ path: String) throws -> Database {
        try Database.open(driver == "sqlite" ? "sqlite:\(path)?pool=4" : "memory:?pool=4", drivers: [.sqlite, .memory])
    }

    @Test("the README example: a job taken with SKIP LOCKED, a serializable count with retries", arguments: ["sqlite", "memory"])
    func example(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Self.open(driver, path)
        defer { db.close() }
        try await db.migrate(Job.self)
        var jobs = [Job(), Job()]
        try await Job.insertAll(&jobs, on: db)

        // A job queue: each worker takes the oldest pending job no other worker holds, and marks it done.
        let taken = try await db.transaction { tx -> Int64? in
            guard
                var job = try Job.query(on: tx).where(\.status == "pending").order(\.id).limit(1)
                    .forUpdate(.skipLocked).first()  // PostgreSQL: … LIMIT $2 FOR UPDATE SKIP LOCKED
            else { return nil }
            job.status = "done"
            job.worker = 1
            try job.save(tx)
            return job.id
        }

        // A serializable transaction that runs again, from scratch, when it loses a race (40001, a deadlock, busy).
        let pending = try await db.transaction(isolation: .serializable, retry: .attempts(5)) { tx in
            try Job.query(on: tx).where(\.status == "pending").count()
        }

        #expect(taken == jobs[0].id)
        #expect(pending == 1)
        #expect(try await Job.find(jobs[0].id ?? -1, on: db)?.worker == 1)
    }

    @Test("a job queue: 4 workers take 40 jobs with forUpdate(.skipLocked), each exactly once", arguments: ["sqlite", "memory"])
    func queue(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Self.open(driver, path)
        defer { db.close() }
        try await db.migrate(Job.self)
        var jobs = (0..<40).map { _ in Job() }
        try await Job.insertAll(&jobs, on: db)
        let workers = (0..<4).map { worker in
            Siblings.onOwnThread {
                var taken: [Int64] = []
                while true {
                    let job = try await db.transaction(retry: .attempts(20)) { tx -> Int64? in
                        guard
                            var job = try Job.query(on: tx).where(\.status == "pending").order(\.id).limit(1)
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
        for w in workers { all += try await w.value }
        #expect(all.count == 40 && Set(all) == Set(jobs.compactMap(\.id)))  // each job handed out exactly once
        #expect(try await Job.query(on: db).where(\.status == "done").count() == 40)
        #expect(try await Job.query(on: db).count() == 40)
    }
}
