// PostgresReplicaTests: reads on a real streaming hot standby, writes on the primary, fallback when the standby is down.
import Foundation
import Strata
import StrataConformance
import StrataPostgres
import Testing

@Model(table: "replica_note")
struct ReplicaNote {
    var id: Int64?
    var body: String
}

/// What `pg_is_in_recovery()` and `inet_server_port()` say on the connection a body ran on.
private func whereAmI(_ tx: Transaction) throws -> (standby: Bool, port: Int64) {
    let row = try tx.unsafeRawExecute("SELECT pg_is_in_recovery()::int, inet_server_port()").first ?? []
    guard row.count == 2, case .integer(let recovering) = row[0], case .integer(let port) = row[1] else {
        throw StrataError.database(code: 0, message: "unexpected row \(row)")
    }
    return (recovering != 0, port)
}

/// Polls `check` (at most 20 s) until it is true.
private func eventually(_ check: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if try await check() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return false
}

/// Options for a database whose replicas are tried again 1 s after failing, logging to `logs`.
private func options(_ logs: CapturedLogs, retryInterval: Double = 1) -> Configuration {
    var configuration = Configuration(timeout: 5, logger: logs.logger(level: .notice))
    configuration.replicaRetryInterval = retryInterval
    return configuration
}

private let primaryPort = Int64(StandbyCluster.primaryPort)
private let standbyPort = Int64(StandbyCluster.standbyPort)

@Suite("PostgreSQL read replicas (a real streaming standby)", .serialized, .enabled(if: StandbyCluster.enabled))
struct PostgresReplicaTests {
    @Test("reads outside transactions go to the standby; writes, transactions and db.primary to the primary")
    func routing() async throws {
        try await StandbyCluster.with { cluster in
            let db = try Database.open(
                cluster.primaryURL + "?replicas=\(cluster.standbyHost)", drivers: [.postgres],
                configuration: options(CapturedLogs()))
            defer { db.close() }
            #expect(db.hasReplicas && !db.primary.hasReplicas)
            try await db.migrate(ReplicaNote.self)
            var first = ReplicaNote(body: "héllo, ✓")
            try await first.save(on: db)
            var second = ReplicaNote(body: "two")
            try await second.save(on: db)
            try await cluster.waitForReplay()

            // Where each kind of call runs, by the server's own word.
            let read = try await db.read { tx in try whereAmI(tx) }
            #expect(read.standby && read.port == standbyPort, "db.read ran on \(read)")
            let inTx = try await db.transaction { tx in try whereAmI(tx) }
            #expect(!inTx.standby && inTx.port == primaryPort, "a transaction ran on \(inTx)")
            let onConnection = try await db.withConnection { tx in try whereAmI(tx) }
            #expect(!onConnection.standby && onConnection.port == primaryPort, "withConnection ran on \(onConnection)")
            let viaPrimary = try await db.primary.read { tx in try whereAmI(tx) }
            #expect(!viaPrimary.standby && viaPrimary.port == primaryPort, "db.primary.read ran on \(viaPrimary)")

            // The standby stops replaying: a row written now is on the primary only, so each query call shows by
            // what it sees where it ran.
            try await cluster.pauseReplay(true)
            var third = ReplicaNote(body: "third")
            try await third.save(on: db)
            let thirdID = try #require(third.id)
            #expect(try await ReplicaNote.query(on: db).count() == 2)
            #expect(try await ReplicaNote.query(on: db).order(\.id).all().map(\.body) == ["héllo, ✓", "two"])
            #expect(try await ReplicaNote.find(thirdID, on: db) == nil)
            #expect(try await ReplicaNote.query(on: db).where(\.body == "third").exists() == false)
            #expect(try await ReplicaNote.query(on: db).max(\.id) == second.id)
            // Read-your-writes: the same calls on db.primary, and any read in a transaction, see the new row.
            #expect(try await ReplicaNote.query(on: db.primary).count() == 3)
            #expect(try await ReplicaNote.find(thirdID, on: db.primary)?.body == "third")
            #expect(try await ReplicaNote.query(on: db.primary).where(\.body == "third").exists())
            #expect(try await db.transaction { tx in try ReplicaNote.query(on: tx).count() } == 3)
            let before = db.statementCount
            _ = try await ReplicaNote.query(on: db.primary).all()
            #expect(db.statementCount == before + 1, "a primary view's statements count on its database")

            // A write through the read path runs on the standby, which refuses it: a typed error, nothing written.
            let refused = await #expect(throws: StrataError.self) {
                try await db.read { tx in try tx.unsafeRawExecute("INSERT INTO replica_note (body) VALUES ('x')") }
            }
            #expect("\(String(describing: refused))".contains("read-only"), "\(String(describing: refused))")
            #expect(try await ReplicaNote.query(on: db.primary).count() == 3)

            // Replay resumes: once the standby has replayed (bounded wait), reads on it see the row.
            try await cluster.pauseReplay(false)
            try await cluster.waitForReplay()
            #expect(try await ReplicaNote.query(on: db).count() == 3)
            #expect(try await ReplicaNote.find(thirdID, on: db)?.body == "third")
            let stillStandby = try await db.read { tx in try whereAmI(tx) }
            #expect(stillStandby.standby && stillStandby.port == standbyPort)
        }
    }

    @Test("a standby that stops: reads fall back to the primary with no error and nothing lost, then return")
    func standbyDown() async throws {
        try await StandbyCluster.with { cluster in
            let logs = CapturedLogs()
            let db = try Database.open(
                cluster.primaryURL + "?replicas=\(cluster.standbyHost)", drivers: [.postgres],
                configuration: options(logs))
            defer { db.close() }
            try await db.migrate(ReplicaNote.self)
            var note = ReplicaNote(body: "before")
            try await note.save(on: db)
            try await cluster.waitForReplay()
            // The replica's pool now holds an idle connection, which the stop kills.
            #expect(try await ReplicaNote.query(on: db).count() == 1)
            #expect(try await db.read { tx in try whereAmI(tx) }.standby)

            try await cluster.stopStandby()
            #expect(!LoopbackPort.answers(StandbyCluster.standbyPort), "the stopped standby still accepts")
            let fallback = try await db.read { tx in try whereAmI(tx) }
            #expect(
                !fallback.standby && fallback.port == primaryPort, "a read with the standby down ran on \(fallback)")
            var after = ReplicaNote(body: "after")
            try await after.save(on: db)
            #expect(try await ReplicaNote.query(on: db).count() == 2)
            #expect(try await ReplicaNote.query(on: db).order(\.id).all().map(\.body) == ["before", "after"])
            #expect(try await ReplicaNote.find(try #require(after.id), on: db)?.body == "after")
            let warnings = logs.records.filter { $0.level == .warning && $0.message.contains("replica unreachable") }
            #expect(!warnings.isEmpty, "the fallback is logged at .warning")
            #expect(warnings.allSatisfy { $0.metadata["db.replica"] == cluster.standbyHost })

            // The standby comes back: after the retry interval (1 s) reads go to it again, and it has caught up.
            try await cluster.startStandby()
            let back = try await eventually { try await db.read { tx in try whereAmI(tx) }.standby }
            #expect(back, "reads never went back to the restarted standby")
            try await cluster.waitForReplay()
            #expect(try await ReplicaNote.query(on: db).order(\.id).all().map(\.body) == ["before", "after"])
            #expect(logs.records.contains { $0.level == .notice && $0.message.contains("answers again") })
        }
    }

    @Test("a replica that refuses, one that never answers, and a malformed one: the documented behaviour")
    func deadReplica() async throws {
        try await StandbyCluster.with(standby: false) { cluster in
            #expect(!LoopbackPort.answers(StandbyCluster.deadPort), "something listens on the dead port")

            // Refused: every read runs on the primary, with no error; one warning, then the replica is skipped for
            // the retry interval (10 minutes here, so that a slow machine's reads all fall within it).
            let logs = CapturedLogs()
            let db = try Database.open(
                cluster.primaryURL + "?replicas=127.0.0.1:\(StandbyCluster.deadPort)", drivers: [.postgres],
                configuration: options(logs, retryInterval: 600))
            defer { db.close() }
            try await db.migrate(ReplicaNote.self)
            var notes = (0..<3).map { ReplicaNote(body: "n\($0)") }
            try await ReplicaNote.insertAll(&notes, on: db)
            #expect(try await ReplicaNote.query(on: db).count() == 3)
            #expect(try await ReplicaNote.query(on: db).order(\.id).all().map(\.body) == ["n0", "n1", "n2"])
            let at = try await db.read { tx in try whereAmI(tx) }
            #expect(at.port == primaryPort)
            let warnings = logs.records.filter { $0.level == .warning && $0.message.contains("replica unreachable") }
            #expect(warnings.count == 1, "one warning, then the replica is skipped for the retry interval")
            #expect(warnings.first?.metadata["db.replica"] == "127.0.0.1:\(StandbyCluster.deadPort)")

            // Never answers (the connection completes, then silence): the read waits at most connect_timeout (2 s),
            // then runs on the primary.
            let silent = try SilentListener()
            defer { silent.close() }
            let silentLogs = CapturedLogs()
            let frozen = try Database.open(
                cluster.primaryURL + "?connect_timeout=2&replicas=127.0.0.1:\(silent.port)", drivers: [.postgres],
                configuration: options(silentLogs))
            defer { frozen.close() }
            let started = ContinuousClock.now
            let count = try await ReplicaNote.query(on: frozen).count()
            let waited = ContinuousClock.now - started
            #expect(count == 3)
            #expect(waited < .seconds(10), "a silent replica held a read for \(waited)")
            #expect(
                silentLogs.records.contains {
                    $0.level == .warning && $0.metadata["db.replica"] == "127.0.0.1:\(silent.port)"
                })

            // Malformed: invalidURL naming the entry, at open; the data is untouched.
            let malformed = #expect(throws: StrataError.self) {
                try Database.open(cluster.primaryURL + "?replicas=127.0.0.1:99999", drivers: [.postgres]).close()
            }
            guard case .invalidURL(_, let reason)? = malformed else {
                Issue.record("a malformed replica gave \(String(describing: malformed)), not invalidURL")
                return
            }
            #expect(reason.contains("127.0.0.1:99999"), "\(reason)")
            #expect(try await ReplicaNote.query(on: db.primary).count() == 3)
        }
    }
}
