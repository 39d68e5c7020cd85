// SQLiteTemplatePlanTests: the driver's last-template shortcut runs each model's own statement, and one-shot finds
// answer alike on the caller's thread and on connections' threads.
import Foundation
import Strata
import StrataSQLite
import Testing

/// Two models over one table, with different columns: their INSERT and SELECT templates share the table name.
@Model(table: "plan_shared")
struct PlanFull {
    var id: Int64?
    var label: String
    var note: String?
}

@Model(table: "plan_shared")
struct PlanLabel {
    var id: Int64?
    var label: String
}

@Suite("SQLite template plans")
struct SQLiteTemplatePlanTests {
    @Test("saves and finds of two models over one table, alternating, each run their own model's statement")
    func alternatingModelsOverOneTable() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(PlanFull.self)
        let rounds = 40
        let ids = try await db.transaction { tx in
            var ids: [(full: Int64, label: Int64)] = []
            for i in 0..<rounds {
                var full = PlanFull(label: "f\(i)", note: "n\(i)")
                try full.save(tx)
                var label = PlanLabel(label: "l\(i)")
                try label.save(tx)
                // A raw statement other than a plain SELECT forgets the plans (the schema may have changed) every
                // tenth round.
                if i % 10 == 9 { _ = try tx.unsafeRawExecute("PRAGMA user_version") }
                ids.append((try #require(full.id), try #require(label.id)))
                #expect(try PlanFull.find(ids[i].label, tx)?.note == nil)
                #expect(try PlanLabel.find(ids[i].full, tx)?.label == "f\(i)")
            }
            return ids
        }
        #expect(ids.count == rounds)
        #expect(Set(ids.flatMap { [$0.full, $0.label] }).count == 2 * rounds)
        for (i, pair) in ids.enumerated() {
            let full = try await #require(PlanFull.find(pair.full, on: db))
            #expect(full.label == "f\(i)" && full.note == "n\(i)")
            let label = try await #require(PlanLabel.find(pair.label, on: db))
            #expect(label.label == "l\(i)")
            #expect(try await PlanFull.find(pair.label, on: db)?.note == nil)
        }
        let rows = try await db.unsafeRawExecute("SELECT count(*), count(note) FROM plan_shared")
        #expect(rows == [[.integer(Int64(2 * rounds)), .integer(Int64(rounds))]])
    }

    @Test("a find stops at its row and ends its statement: another connection's TRUNCATE checkpoint is not blocked")
    func findEndsItsStatement() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)?pool=1", drivers: [.sqlite])
        defer { db.close() }
        let other = try Database.open("sqlite:\(file.path)?pool=1", drivers: [.sqlite])
        defer { other.close() }
        try await db.migrate(PlanFull.self)
        var models = (0..<5).map { PlanFull(label: "row \($0)", note: $0 % 2 == 0 ? "even" : nil) }
        try await db.transaction { tx in try PlanFull.insertAll(&models, tx) }
        let ids = models.map { $0.id ?? -1 }
        // A lease in autocommit: each find is its own read. A statement left unreset would keep a read of the WAL open,
        // and the checkpoint would report busy (its first column, 1) instead of 0.
        try await db.withConnection { tx in
            for (i, id) in ids.enumerated() {
                let found = try #require(try PlanFull.find(id, tx))
                #expect(found.label == "row \(i)" && found.note == (i % 2 == 0 ? "even" : nil))
                #expect(try PlanFull.find(-1 - id, tx) == nil)
            }
        }
        try await db.withConnection { tx in
            #expect(try PlanFull.find(ids[2], tx)?.label == "row 2")
            let checkpoint = try other.readSync { o in try o.unsafeRawExecute("PRAGMA wal_checkpoint(TRUNCATE)") }
            #expect(checkpoint.first?.first == .integer(0))
            // A found model saves as a stored one: an UPDATE of its row, not a second INSERT.
            var found = try #require(try PlanFull.find(ids[3], tx))
            found.note = "updated"
            try found.save(tx)
            #expect(found.id == ids[3])
        }
        let rows = try await db.unsafeRawExecute("SELECT count(*), count(note) FROM plan_shared")
        #expect(rows == [[.integer(5), .integer(4)]])
    }

    @Test("one-shot finds from concurrent tasks (some on connections' threads) each read their own row")
    func concurrentOneShotFinds() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)?pool=3", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(PlanFull.self)
        var models = (0..<64).map { PlanFull(label: "row \($0)", note: nil) }
        try await db.transaction { tx in try PlanFull.insertAll(&models, tx) }
        let ids = models.map { $0.id ?? -1 }
        let expected = Dictionary(uniqueKeysWithValues: models.map { ($0.id ?? -1, $0.label) })
        let tasks = 6
        let perTask = 50
        let found = try await withThrowingTaskGroup(of: Int.self) { group in
            for t in 0..<tasks {
                group.addTask {
                    var matched = 0
                    for k in 0..<perTask {
                        let id = ids[(t * 7 + k) % ids.count]
                        if try await PlanFull.find(id, on: db)?.label == expected[id] { matched += 1 }
                    }
                    return matched
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(found == tasks * perTask)
        #expect(try await PlanFull.find(-5, on: db) == nil)
    }
}
