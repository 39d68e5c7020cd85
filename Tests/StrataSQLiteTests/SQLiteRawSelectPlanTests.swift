// SQLiteRawSelectPlanTests: a raw plain SELECT keeps the connection's template plans; other raw SQL forgets them.
import Foundation
import Testing

@testable import Strata
@testable import StrataSQLite

@Model(table: "raw_plan_item")
struct RawPlanItem {
    var id: Int64?
    var n: Int64
}

@Suite("SQLite template plans and raw SQL")
struct SQLiteRawSelectPlanTests {
    @Test(
        "a raw SELECT keeps the plans of saves and finds; PRAGMA and DDL forget them, and a changed table still works")
    func rawSelectKeepsPlans() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(RawPlanItem.self)
        try await db.withConnection { tx in
            let connection = try #require(tx.connection as? SQLiteConnection)
            var item = RawPlanItem(n: 1)
            try item.save(tx)
            let id = try #require(item.id)
            #expect(try RawPlanItem.find(id, tx)?.n == 1)
            let plans = connection.templateStatements.count
            #expect(plans >= 2, "the insert's and the find's")
            #expect(try tx.unsafeRawExecute("  select n FROM raw_plan_item WHERE n = ?", [1]) == [[.integer(1)]])
            #expect(connection.templateStatements.count == plans, "a plain SELECT keeps the plans")
            #expect(try RawPlanItem.find(id, tx)?.n == 1)
            _ = try tx.unsafeRawExecute("PRAGMA user_version")
            #expect(connection.templateStatements.isEmpty, "other raw SQL forgets them")
            // A column added by raw DDL: the next save and find prepare again and work on the changed table.
            #expect(try RawPlanItem.find(id, tx)?.n == 1)
            _ = try tx.unsafeRawExecute("ALTER TABLE raw_plan_item ADD COLUMN extra TEXT")
            #expect(connection.templateStatements.isEmpty)
            var second = RawPlanItem(n: 2)
            try second.save(tx)
            #expect(try RawPlanItem.find(try #require(second.id), tx)?.n == 2)
            #expect(
                try tx.unsafeRawExecute("SELECT count(*), count(extra) FROM raw_plan_item") == [
                    [.integer(2), .integer(0)]
                ])
        }
    }
}
