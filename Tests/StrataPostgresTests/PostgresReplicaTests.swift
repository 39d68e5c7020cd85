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
    let row = try tx.unsafeRawExecute("SELECT pg_is_in_recovery(), inet_server_port()").first ?? []
    guard row.count == 2, case .integer(let port) = row[1] else {
        throw StrataError.database(code: 0, message: "unexpected row \(row)")
    }
    let standby: Bool
    switch row[0] {
    case .integer(let v): standby = v != 0
    case .text(let t): standby = t == "t" || t == "true"
    default: standby = false
    }
    return (standby, port)
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

@Suite("PostgreSQL read replicas (a real streaming standby)", .serialized, .enabled(if: StandbyCluster.enabled))
struct PostgresReplicaTests {
    @Test("reads go to the standby, writes and transactions to the primary; a down standby falls back")
    func routing() async throws {
        let cluster = try StandbyCluster.start()
        defer { cluster.stop() }
        let logs = CapturedLogs()
        let db = try Database.open(
            cluster.primaryURL + "?replicas=\(cluster.standbyHost)", drivers: [.postgres],
            configuration: Configuration(logger: logs.logger(level: .notice)))
        defer { db.close() }
        #expect(db.hasReplicas)
        try await db.migrate(ReplicaNote.self)

        // Reads outside transactions: the standby.
        let read = try await db.read { tx in try whereAmI(tx) }
        #expect(read.standby && read.port == Int64(StandbyCluster.standbyPort))
        // A write through the read path fails on the standby (it is read-only): proof of where reads go.
        await #expect(throws: StrataError.self) {
            try await db.read { tx in try tx.unsafeRawExecute("INSERT INTO replica_note (body) VALUES ('x')") }
        }
        // Transactions, raw SQL and the primary view: the primary.
        let inTx = try await db.transaction { tx in try whereAmI(tx) }
        #expect(!inTx.standby && inTx.port == Int64(StandbyCluster.primaryPort))
        let viaPrimary = try await db.primary.read { tx in try whereAmI(tx) }
        #expect(!viaPrimary.standby && viaPrimary.port == Int64(StandbyCluster.primaryPort))

        // A write, then read-your-writes from the primary at once; the standby sees it after replay.
        var note = ReplicaNote(body: "héllo, ✓")
        try await note.save(on: db)
        let id = try #require(note.id)
        #expect(try await ReplicaNote.find(id, on: db.primary)?.body == "héllo, ✓")
        #expect(try await ReplicaNote.query(on: db.primary).count() == 1)
        let replayed = try await eventually { try await ReplicaNote.query(on: db).count() == 1 }
        #expect(replayed, "the standby never replayed the row")
        #expect(try await ReplicaNote.find(id, on: db)?.body == "héllo, ✓")
        let before = db.statementCount
        _ = try await ReplicaNote.query(on: db.primary).all()
        #expect(db.statementCount == before + 1, "a primary view's statements count on its database")

        // The standby stops: reads fall back to the primary, no error to the caller, logged at .warning.
        try cluster.stopStandby()
        try await note.save(on: db)  // (no change: a no-op save still works)
        var second = ReplicaNote(body: "after")
        try await second.save(on: db)
        #expect(try await ReplicaNote.query(on: db).count() == 2)
        let fallback = try await db.read { tx in try whereAmI(tx) }
        #expect(!fallback.standby && fallback.port == Int64(StandbyCluster.primaryPort))
        #expect(try await ReplicaNote.query(on: db).order(\.id).all().map(\.body) == ["héllo, ✓", "after"])
        #expect(
            logs.records.contains { $0.level == .warning && $0.message.contains("replica unreachable") },
            "the fallback is logged at .warning")

        // The standby comes back: after the retry interval reads go to it again.
        try cluster.startStandby()
        let back = try await eventually {
            try await db.read { tx in try whereAmI(tx) }.standby
        }
        #expect(back, "reads never went back to the restarted standby")
    }

    @Test("a replica that does not answer: reads fall back to the primary, nothing lost")
    func deadReplica() async throws {
        let cluster = try StandbyCluster.start()
        defer { cluster.stop() }
        let logs = CapturedLogs()
        let db = try Database.open(
            cluster.primaryURL + "?replicas=127.0.0.1:\(StandbyCluster.deadPort)", drivers: [.postgres],
            configuration: Configuration(logger: logs.logger(level: .notice)))
        defer { db.close() }
        try await db.migrate(ReplicaNote.self)
        var notes = (0..<3).map { ReplicaNote(body: "n\($0)") }
        try await ReplicaNote.insertAll(&notes, on: db)
        #expect(try await ReplicaNote.query(on: db).count() == 3)
        let at = try await db.read { tx in try whereAmI(tx) }
        #expect(at.port == Int64(StandbyCluster.primaryPort))
        let warnings = logs.records.filter { $0.level == .warning && $0.message.contains("replica unreachable") }
        #expect(warnings.count == 1, "one warning, then the replica is skipped for the retry interval")
        #expect(warnings.first?.metadata["db.replica"] == "127.0.0.1:\(StandbyCluster.deadPort)")
    }
}
