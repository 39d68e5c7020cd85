// SQLiteConcurrencyStressTests: lost writes and pool deadlocks under many concurrent tasks on one file.
import Foundation
import Strata
import StrataSQLite
import Testing

@Model(table: "stress_item")
struct StressItem {
    var id: Int64?
    var worker: Int
    var n: Int
}

@Suite("SQLite concurrency stress")
struct SQLiteConcurrencyStressTests {
    @Test("16 tasks x 40 saves through a pool of 3 lose nothing and never deadlock")
    func noLostWrites() async throws {
        let file = TemporarySQLiteFile()
        // A 180 s pool wait: the test pins lost writes and deadlocks, not waits, and a whole test run on 2 cores can
        // hold a task back for over a minute before it takes the connection handed to it.
        let db = try Database.open(
            "sqlite:\(file.path)?pool=3", drivers: [.sqlite], configuration: Configuration(poolTimeout: 180))
        try await db.migrate(StressItem.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    for n in 0..<40 {
                        if n % 10 == 0 {
                            try await db.transaction { tx in
                                var item = StressItem(worker: worker, n: n)
                                try item.save(tx)
                            }
                        } else {
                            var item = StressItem(worker: worker, n: n)
                            try await item.save(on: db)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await StressItem.query(on: db).count() == 640)
        let perWorker = try await StressItem.query(on: db).where(\.worker == 7).count()
        #expect(perWorker == 40)
    }
}
