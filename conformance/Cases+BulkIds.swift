// Cases+BulkIds: insertAll of a large batch (PostgreSQL: COPY into a staging table) sets ids in input order and,
// on bad input, keeps nothing of the batch.
import Strata

extension ConformanceSuite {
    /// Large enough for PostgreSQL's staging-table path (1,500 rows and more).
    static let bulkIdsBatch = 2_500

    static let bulkIdsCases: [ConformanceCase] = [
        ConformanceCase("insertAll.large-batch-ids-in-input-order") { db in
            try await Fixtures.migrate(db)
            var users = (0..<bulkIdsBatch).map { ConfUser(name: "u\($0)", email: "u\($0)@x.io") }
            try await ConfUser.insertAll(&users, on: db)
            let stored = try await ConfUser.query(on: db).all()
            try checkEqual(stored.count, bulkIdsBatch, "every row inserted")
            var names: [Int64: String] = [:]
            for user in stored { if let id = user.id { names[id] = user.name } }
            for (k, user) in users.enumerated() where user.id.flatMap({ names[$0] }) != "u\(k)" {
                throw ConformanceFailure(description: "row \(k)'s id \(String(describing: user.id)) is another row's")
            }
        },
        ConformanceCase("insertAll.large-batch-bad-row-keeps-nothing") { db in
            try await Fixtures.migrate(db)
            var kept = [ConfUser(name: "kept", email: "kept@x.io")]
            try await ConfUser.insertAll(&kept, on: db)
            var users = (0..<bulkIdsBatch).map { ConfUser(name: "u\($0)", email: "u\($0)@x.io") }
            users[bulkIdsBatch - 7].email = "kept@x.io"
            try await checkThrows(
                "a batch whose row \(bulkIdsBatch - 7) repeats a stored email",
                {
                    if case .uniqueViolation = $0 { return true }
                    return false
                }
            ) { try await ConfUser.insertAll(&users, on: db) }
            try checkEqual(try await ConfUser.query(on: db).count(), 1, "nothing of the batch kept")
            try checkEqual(users.filter { $0.id != nil }.count, 0, "no model got an id")
        },
    ]
}
