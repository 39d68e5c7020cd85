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
                // A raw statement forgets the plans (the schema may have changed) every tenth round.
                if i % 10 == 9 { _ = try tx.unsafeRawExecute("SELECT 1") }
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
