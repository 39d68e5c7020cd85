// MariaDBGaleraTests: Strata on a three-node Galera cluster: writers on every node at once, certification conflicts
// absorbed by transaction(retry:), and a node killed with SIGKILL under load.
import Foundation
import Strata
import StrataMariaDB
import Testing

/// One write of the SIGKILL test: a token no other write uses (no unique index: a doubled write would show).
@Model(table: "galera_mark")
struct GaleraMark {
    var id: Int64?
    var token: String
    var writer: Int
}

/// What the writers did, with times in seconds from the log's start.
final class GaleraLog: @unchecked Sendable {
    enum Outcome: Equatable {
        case acknowledged
        /// `outcomeUnknown`: the connection broke after the write was sent.
        case unknown
        /// Any other error: the write was not applied.
        case failed(String)
    }

    struct Write {
        var token: String
        var writer: Int
        var start: Double
        var end: Double
        var outcome: Outcome
    }

    private let lock = NSLock()
    private var list: [Write] = []
    let origin = ContinuousClock.now
    var now: Double { GaleraCluster.seconds(ContinuousClock.now - origin) }

    func record(_ write: Write) {
        lock.lock()
        list.append(write)
        lock.unlock()
    }

    var writes: [Write] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}

/// Lets `parties` threads through together, round after round: each waits (at most 60 s) until all have arrived.
final class RoundBarrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var waiting = 0
    private var round = 0

    init(parties: Int) { self.parties = parties }

    func arrive() {
        condition.lock()
        defer { condition.unlock() }
        let mine = round
        waiting += 1
        if waiting == parties {
            waiting = 0
            round += 1
            condition.broadcast()
            return
        }
        let deadline = Date().addingTimeInterval(60)
        while round == mine && condition.wait(until: deadline) {}
    }
}

/// Counts shared by the writer tasks.
final class GaleraCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Int] = [:]
    private var list: [String] = []
    private var stopped = false

    func add(_ name: String, _ n: Int = 1) {
        lock.withLock { values[name, default: 0] += n }
    }

    subscript(_ name: String) -> Int { lock.withLock { values[name] ?? 0 } }

    func note(_ text: String) { lock.withLock { list.append(text) } }
    var notes: [String] { lock.withLock { list } }

    func stop() { lock.withLock { stopped = true } }
    var isRunning: Bool { lock.withLock { !stopped } }
}

@Suite(
    "MariaDB Galera (three nodes on loopback)", .serialized,
    .enabled(if: GaleraCluster.isAvailable || GaleraCluster.isRequired))
struct MariaDBGaleraTests {
    /// Runs blocking work (starting nodes, waiting on them) on a thread of its own, off the cooperative pool.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Starts a cluster, runs `body`, and stops the cluster whatever `body` did.
    static func withCluster(_ body: (GaleraCluster) async throws -> Void) async throws {
        guard GaleraCluster.isAvailable else {
            Issue.record("Galera is required here (CI) but galera-4, mariadbd or rsync is missing")
            return
        }
        let cluster = try await offPool { try GaleraCluster() }
        print(String(format: "MariaDBGaleraTests: three nodes synced in %.1f s", cluster.startSeconds))
        do {
            try await body(cluster)
        } catch {
            try? await offPool { cluster.stop() }
            throw error
        }
        try await offPool { cluster.stop() }
    }

    /// Creates the test database through node 1, and waits until every node has applied it.
    static func createDatabase(_ cluster: GaleraCluster) async throws {
        let admin = try Database.open(cluster.nodes[0].url + "/", drivers: [.mariadb])
        defer { admin.close() }
        _ = try await admin.unsafeRawExecute("DROP DATABASE IF EXISTS strata_galera")
        _ = try await admin.unsafeRawExecute(
            "CREATE DATABASE strata_galera CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin")
        for node in cluster.nodes {
            let db = try Database.open(node.url + "/", drivers: [.mariadb])
            defer { db.close() }
            let found = try await db.withConnection { tx in
                _ = try tx.unsafeRawExecute("SET SESSION wsrep_sync_wait = 15")
                return try tx.unsafeRawExecute("SHOW DATABASES LIKE 'strata_galera'")
            }
            #expect(found.count == 1, "node \(node.index) has the database")
        }
    }

    /// Rows read on a node after it has applied every write the cluster committed (`wsrep_sync_wait = 1`).
    static func synced(_ db: Database, _ sql: String) async throws -> [[DatabaseValue]] {
        try await db.withConnection { tx in
            _ = try tx.unsafeRawExecute("SET SESSION wsrep_sync_wait = 1")
            return try tx.unsafeRawExecute(sql)
        }
    }

    /// Galera's own conflict counters summed over the nodes: local certification failures, and local
    /// transactions aborted by a replicated write (`wsrep_local_cert_failures`, `wsrep_local_bf_aborts`).
    static func conflicts(_ cluster: GaleraCluster) async throws -> (certification: Int, aborts: Int) {
        var total = (certification: 0, aborts: 0)
        for node in 1...3 {
            let status = try await offPool { cluster.wsrepStatus(node: node) }
            total.certification += Int(status["wsrep_local_cert_failures"] ?? "") ?? 0
            total.aborts += Int(status["wsrep_local_bf_aborts"] ?? "") ?? 0
        }
        return total
    }

    static func counters(_ db: Database) async throws -> [Int64] {
        try await synced(db, "SELECT hits FROM galera_counter ORDER BY id").map { try Int64(databaseValue: $0[0]) }
    }

    @Test(
        "writers on three nodes at once: certification conflicts (1213) are serializationFailure, retried away",
        .timeLimit(.minutes(10)))
    func certificationConflicts() async throws {
        try await Self.withCluster { cluster in
            try await Self.createDatabase(cluster)
            let dbs = try (1...3).map {
                try Database.open(
                    cluster.url(nodes: [$0], database: "strata_galera", pool: 3), drivers: [.mariadb])
            }
            defer { for db in dbs { db.close() } }
            // Galera's innodb_autoinc_lock_mode 2 interleaves writers' keys: INSERTs keep RETURNING there.
            let url = try DatabaseURL(
                cluster.url(nodes: [1], database: "strata_galera", pool: 1), drivers: [.mariadb])
            let connection = try MariaDBDriver(options: try MariaDBConnectionOptions(url: url)).connect()
            #expect((connection as? MariaDBConnection)?.readsKeysFromInsertID == false)
            _ = try await dbs[0].unsafeRawExecute(
                "CREATE TABLE galera_counter (id BIGINT PRIMARY KEY, hits BIGINT NOT NULL) ENGINE=InnoDB")
            _ = try await dbs[0].unsafeRawExecute("INSERT INTO galera_counter VALUES (1, 0), (2, 0), (3, 0)")
            // Galera is virtually synchronous: a node applies another's commit a moment after it returns. Until
            // nodes 2 and 3 have applied the rows (a read with wsrep_sync_wait), their writes could miss them.
            for db in dbs { #expect(try await Self.counters(db) == [0, 0, 0]) }

            // A conflict made on purpose: node 1's transaction has written row 1 when node 2 commits a write to
            // it; node 1's commit then fails certification (or its transaction was aborted by the replicated
            // write): error 1213, serializationFailure, and node 1's write is gone on every node.
            let other = dbs[1]
            await #expect(throws: StrataError.serializationFailure) {
                try await dbs[0].transaction { tx in
                    _ = try tx.unsafeRawExecute("UPDATE galera_counter SET hits = hits + 1 WHERE id = 1")
                    _ = try other.writeSync { tx2 in
                        try tx2.unsafeRawExecute("UPDATE galera_counter SET hits = hits + 10 WHERE id = 1")
                    }
                }
            }
            for db in dbs {
                let counters = try await Self.counters(db)
                #expect(counters == [10, 0, 0], "node 1's write rolled back: \(counters)")
            }

            // The same conflict under transaction(retry:): the second run commits.
            let runs = GaleraCounts()
            try await dbs[0].transaction(retry: .attempts(5, backoff: .milliseconds(1))) { tx in
                runs.add("runs")
                let run = runs["runs"]
                _ = try tx.unsafeRawExecute("UPDATE galera_counter SET hits = hits + 1 WHERE id = 1")
                if run == 1 {
                    _ = try other.writeSync { tx2 in
                        try tx2.unsafeRawExecute("UPDATE galera_counter SET hits = hits + 10 WHERE id = 1")
                    }
                }
            }
            #expect(runs["runs"] == 2, "the body ran again once")
            for db in dbs {
                let counters = try await Self.counters(db)
                #expect(counters == [21, 0, 0], "\(counters)")
            }

            // Under load: two writers per node on threads of their own, each round all six incrementing the same
            // row at once (read FOR UPDATE, then write what it read plus one) through writeSync(retry:), the
            // blocking twin of transaction(retry:) (the same RetryPolicy). The round barrier makes the writers
            // contend even on a loaded machine, where tasks on the cooperative pool could run one after another.
            let perWriter = 25
            let counts = GaleraCounts()
            let conflictsBefore = try await Self.conflicts(cluster)
            let barrier = RoundBarrier(parties: 6)
            let done = DispatchGroup()
            for w in 0..<6 {
                let db = dbs[w % 3]
                done.enter()
                Thread.detachNewThread {
                    defer { done.leave() }
                    for k in 0..<perWriter {
                        let row = Int64(k % 3 + 1)
                        barrier.arrive()
                        do {
                            try db.writeSync(retry: .attempts(200, backoff: .milliseconds(2))) { tx in
                                counts.add("runs")
                                let read = try tx.unsafeRawExecute(
                                    "SELECT hits FROM galera_counter WHERE id = ? FOR UPDATE", [row])
                                let hits = try Int64(databaseValue: read[0][0])
                                _ = try tx.unsafeRawExecute(
                                    "UPDATE galera_counter SET hits = ? WHERE id = ?", [hits + 1, row])
                            }
                            counts.add("acknowledged")
                        } catch {
                            counts.note("\(error)")
                        }
                    }
                }
            }
            await withCheckedContinuation { c in done.notify(queue: .global()) { c.resume() } }
            let acked = counts["acknowledged"]
            let retries = counts["runs"] - acked
            let conflictsAfter = try await Self.conflicts(cluster)
            print(
                "MariaDBGaleraTests: certification: 6 writers on 3 nodes, \(acked) of \(6 * perWriter) increments "
                    + "acknowledged, \(retries) serialization failures absorbed by writeSync(retry:) (Galera "
                    + "counted \(conflictsAfter.certification - conflictsBefore.certification) certification "
                    + "failures and \(conflictsAfter.aborts - conflictsBefore.aborts) transactions aborted by "
                    + "another node's write)")
            #expect(counts.notes.isEmpty, "no error escaped the retries: \(counts.notes)")
            #expect(acked == 6 * perWriter)
            #expect(retries > 0, "writers on three nodes updating three rows conflicted at least once")
            for (n, db) in dbs.enumerated() {
                let total = try await Self.counters(db).reduce(0, +)
                #expect(total == Int64(21 + acked), "node \(n + 1): every acknowledged increment, once")
            }
            try await Self.readsAfterWrites(cluster, writer: dbs[0])
        }
    }

    /// `?wsrep_sync_wait=1` in the URL: a row inserted through node 1 is counted at once on node 3, every time.
    static func readsAfterWrites(_ cluster: GaleraCluster, writer: Database) async throws {
        let reader = try Database.open(
            cluster.url(nodes: [3], database: "strata_galera", pool: 1) + "&wsrep_sync_wait=1", drivers: [.mariadb])
        defer { reader.close() }
        let session = try await reader.unsafeRawExecute("SELECT @@SESSION.wsrep_sync_wait")
        #expect(try session.first.map { try Int64(databaseValue: $0[0]) } == 1, "the session took the URL's value")
        _ = try await writer.unsafeRawExecute("CREATE TABLE galera_seen (id BIGINT PRIMARY KEY) ENGINE=InnoDB")
        var missed = 0
        for k in 1...200 {
            _ = try await writer.unsafeRawExecute("INSERT INTO galera_seen VALUES (\(k))")
            let seen = try await reader.unsafeRawExecute("SELECT COUNT(*) FROM galera_seen")
            if try seen.first.map({ try Int64(databaseValue: $0[0]) }) != Int64(k) { missed += 1 }
        }
        print("MariaDBGaleraTests: wsrep_sync_wait=1: 200 inserts on node 1, \(missed) not yet seen on node 3")
        #expect(missed == 0, "every insert acknowledged on node 1 is read on node 3 right after")
    }

    @Test(
        "SIGKILL of a node under writers: no acknowledged write lost or doubled, the host-list pool moves on",
        .timeLimit(.minutes(10)))
    func killedNode() async throws {
        try await Self.withCluster { cluster in
            try await Self.createDatabase(cluster)
            // Node 1 first: the pool's connections all go there until it dies.
            let failover = try Database.open(
                cluster.url(nodes: [1, 2, 3], database: "strata_galera", pool: 4), drivers: [.mariadb])
            defer { failover.close() }
            try await failover.migrate(GaleraMark.self)
            let pinned = try [2, 3].map {
                try Database.open(
                    cluster.url(nodes: [$0], database: "strata_galera", pool: 2), drivers: [.mariadb])
            }
            defer { for db in pinned { db.close() } }
            for db in pinned { _ = try await Self.synced(db, "SELECT COUNT(*) FROM galera_mark") }
            let port = { (db: Database) async throws -> Int64 in
                try Int64(databaseValue: try await db.unsafeRawExecute("SELECT @@port")[0][0])
            }
            #expect(try await port(failover) == Int64(cluster.nodes[0].port), "the pool starts on node 1")

            // Writers 0-2 through the host list (node 1), writers 3 and 4 on nodes 2 and 3.
            let log = GaleraLog()
            let running = GaleraCounts()
            let writers = (0..<5).map { w in
                let db = w < 3 ? failover : pinned[w - 3]
                return Task {
                    var i = 0
                    while running.isRunning && i < 100_000 {
                        i += 1
                        let token = "w\(w)-\(i)"
                        let start = log.now
                        var mark = GaleraMark(token: token, writer: w)
                        do {
                            try await mark.save(on: db)
                            log.record(
                                .init(token: token, writer: w, start: start, end: log.now, outcome: .acknowledged))
                        } catch StrataError.outcomeUnknown {
                            log.record(
                                .init(token: token, writer: w, start: start, end: log.now, outcome: .unknown))
                        } catch {
                            log.record(
                                .init(
                                    token: token, writer: w, start: start, end: log.now,
                                    outcome: .failed("\(error)")))
                            try? await Task.sleep(for: .milliseconds(20))
                        }
                        try? await Task.sleep(for: .milliseconds(5))
                    }
                }
            }
            try await Task.sleep(for: .seconds(3))
            let killedAt = log.now
            try await Self.offPool { cluster.kill(node: 1) }
            let deadAt = log.now  // the node reaped: every write in flight on it has lost its connection
            // Bounded: until each writer has a write acknowledged that began after the kill, then 2 s more.
            var back: [Int: Double] = [:]
            for _ in 0..<600 where back.count < 5 {
                try await Task.sleep(for: .milliseconds(100))
                for write in log.writes where write.start > killedAt && write.outcome == .acknowledged {
                    back[write.writer] = min(back[write.writer] ?? .infinity, write.end - killedAt)
                }
            }
            try await Task.sleep(for: .seconds(2))
            running.stop()
            for writer in writers { await writer.value }
            try await Self.offPool { try cluster.waitUntil(node: 2, clusterSize: 2, seconds: 30) }

            // Counted on each survivor, after it applied everything committed.
            let writes = log.writes
            var stored: [[String: Int]] = []
            for db in pinned {
                var counts: [String: Int] = [:]
                for row in try await Self.synced(db, "SELECT token, COUNT(*) FROM galera_mark GROUP BY token") {
                    counts[try String(databaseValue: row[0])] = Int(try Int64(databaseValue: row[1]))
                }
                stored.append(counts)
            }
            #expect(stored[0] == stored[1], "the survivors hold the same rows")
            let rows = stored[0]
            let acknowledged = writes.filter { $0.outcome == .acknowledged }
            let unknown = writes.filter { $0.outcome == .unknown }
            let failed = writes.filter {
                if case .failed = $0.outcome { return true }
                return false
            }
            let lost = acknowledged.filter { rows[$0.token] == nil }
            let doubled = rows.filter { $0.value > 1 }
            let unknownApplied = unknown.filter { rows[$0.token] != nil }.count
            let failedApplied = failed.filter { rows[$0.token] != nil }
            let inFlight = writes.filter { $0.start < deadAt && $0.end > killedAt }
            let movedTo = try await port(failover)
            let poolBack = (0..<3).compactMap { back[$0] }.max() ?? .infinity
            let pinnedBack = (3..<5).compactMap { back[$0] }.max() ?? .infinity
            print(
                "MariaDBGaleraTests: SIGKILL of node 1 at \(String(format: "%.1f", killedAt)) s under 5 writers: "
                    + "\(acknowledged.count) acknowledged (\(acknowledged.filter { $0.end < killedAt }.count) before, "
                    + "\(acknowledged.filter { $0.start > deadAt }.count) after), \(lost.count) lost, "
                    + "\(unknown.count) unknown "
                    + "(\(unknownApplied) applied), \(failed.count) failed (\(failedApplied.count) applied), "
                    + "\(doubled.count) doubled, \(inFlight.count) in flight; writes back in "
                    + String(
                        format: "%.2f s through the host list (pool now on port %d), %.2f s on the survivors",
                        poolBack, Int(movedTo), pinnedBack))
            for failure in failed.prefix(5) {
                print("MariaDBGaleraTests: failed \(failure.token): \(failure.outcome)")
            }
            #expect(acknowledged.count > 0)
            #expect(lost.isEmpty, "acknowledged writes missing on the survivors: \(lost.prefix(5).map(\.token))")
            #expect(doubled.isEmpty, "doubled: \(doubled.prefix(5))")
            #expect(failedApplied.isEmpty, "a write that failed outright was applied: \(failedApplied.prefix(5))")
            #expect(rows.count == acknowledged.count + unknownApplied, "no row but the writes' own")
            for write in inFlight where write.writer < 3 {
                #expect(
                    write.outcome == .acknowledged || write.outcome == .unknown,
                    "a write in flight at the kill through node 1 ended \(write.outcome)")
            }
            #expect(back.count == 5, "every writer wrote again after the kill: \(back)")
            #expect(movedTo == Int64(cluster.nodes[1].port), "the pool moved to node 2, the next live host")

            // Node 2 killed too: node 3, one of three, is no longer a primary component and refuses statements
            // (1047). A pooled connection to it fails with connectionLost (the statement did not run), not
            // outcomeUnknown; a host list skips it (wsrep_ready OFF) and names why.
            try await Self.offPool { cluster.kill(node: 2) }
            let notReady = try await Self.offPool {
                for _ in 0..<240 {
                    if cluster.wsrepStatus(node: 3)["wsrep_ready"] == "OFF" { return true }
                    usleep(250_000)
                }
                return false
            }
            #expect(notReady, "node 3 alone is not ready")
            await #expect {
                var mark = GaleraMark(token: "after-quorum-loss", writer: 9)
                try await mark.save(on: pinned[1])
            } throws: { error in
                guard case StrataError.connectionLost = error else { return false }
                return true
            }
            var quick = Configuration()
            quick.timeout = 2
            #expect {
                try Database.open(
                    cluster.url(nodes: [1, 3], database: "strata_galera", pool: 1), drivers: [.mariadb],
                    configuration: quick)
            } throws: { error in
                guard case StrataError.connectionFailed(let reason) = error else { return false }
                return reason.contains("not ready")
            }
        }
    }
}
