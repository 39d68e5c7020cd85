// Cases+Locking: saving a model whose row someone else deleted never brings the row back silently.
import Strata

extension ConformanceSuite {
    static let lockingCases: [ConformanceCase] = [
        ConformanceCase("locking.deleted-row-is-not-resurrected") { db in
            let users = try await Fixtures.seedUsers(db)
            guard var alex = try await ConfUser.find(users[0].id ?? -1, on: db) else {
                throw ConformanceFailure(description: "the seeded user is found")
            }
            try await ConfUser.query(on: db).where(\.name == "Alex").delete()  // someone else deletes the row
            alex.age = 31
            try await checkThrows(
                "saving a fetched model whose row is gone",
                {
                    if case .recordNotFound("ConfUser", "\(alex.id ?? -1)") = $0 { return true }
                    return false
                }
            ) {
                try await alex.save(on: db)
            }
            try checkEqual(try await ConfUser.query(on: db).count(), users.count - 1, "nothing was inserted")
            try await alex.save(on: db, insertIfMissing: true)
            try checkEqual(
                try await ConfUser.find(alex.id ?? -1, on: db)?.age, 31, "insertIfMissing writes the row back")
            try checkEqual(try await ConfUser.query(on: db).count(), users.count, "with its own id")
        },
        ConformanceCase("locking.explicit-id-model-is-upserted") { db in
            try await Fixtures.migrate(db)
            var g = ConfGroup(id: 7, title: "first")
            try await g.save(on: db)
            var again = ConfGroup(id: 7, title: "second")
            try await again.save(on: db)
            let rows = try await ConfGroup.query(on: db).all()
            try checkEqual(rows.map(\.title), ["second"], "a never-fetched model with an id updates its row")
        },
    ]
}
