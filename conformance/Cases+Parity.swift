// Cases+Parity: divergences the differential engine found between the drivers, each pinned once fixed.
import Foundation
import Strata

extension ConformanceSuite {
    static let parityCases: [ConformanceCase] = [
        ConformanceCase("parity.like-dangling-escape-is-an-error") { db in
            // PostgreSQL refuses a pattern ending in the escape character; SQLite and memory matched nothing.
            try await Fixtures.seedUsers(db)
            try await checkThrows("LIKE 'a\\'", { if case .invalidQuery = $0 { true } else { false } }) {
                try await ConfUser.query(on: db).where(\.name ~~ "a\\").count()
            }
            try await checkThrows("case-insensitive LIKE 'a\\'", { if case .invalidQuery = $0 { true } else { false } })
            {
                try await ConfUser.query(on: db).where(\.name, like: "%\\", caseInsensitive: true).count()
            }
            try checkEqual(
                try await ConfUser.query(on: db).where(\.name ~~ "\\_%").count(), 1,
                "an escaped metacharacter still works")
            try checkEqual(try await ConfUser.query(on: db).count(), 6, "nothing lost")
        },
        ConformanceCase("parity.double-negative-zero-reads-as-zero") { db in
            // SQLite cannot keep -0.0 in a REAL column; memory and PostgreSQL kept its sign. Now every driver
            // stores 0.0, so a value read back is the same everywhere.
            try await Fixtures.migrate(db)
            var u = ConfUser(name: "z", email: "z@x.io", score: -0.0)
            try await u.save(on: db)
            let score = try await ConfUser.query(on: db).first()?.score
            try check(score == 0, "score reads back as zero, got \(String(describing: score))")
            try check(score?.sign == .plus, "-0.0 reads back as +0.0 on every driver, got \(String(describing: score))")
            try checkEqual(try await ConfUser.query(on: db).where(\.score == 0.0).count(), 1, "= 0.0 finds it")
        },
        ConformanceCase("parity.bulk-insert-after-many-distinct-statements") { db in
            // SQLite's multi-row INSERT read max(rowid) through its statement cache, which, once full (512),
            // finalized the INSERT it was about to step: a crash. Run enough distinct statements to fill it.
            try await Fixtures.seedUsers(db)
            for n in 0..<600 { _ = try await ConfUser.query(on: db).where(\.name == "n\(n)").limit(n + 1).count() }
            var batch = (0..<3).map { ConfUser(name: "b\($0)", email: "b\($0)@x.io") }
            try await ConfUser.insertAll(&batch, on: db)
            try check(batch.allSatisfy { $0.id != nil }, "every inserted row has an id")
            try checkEqual(Set(batch.compactMap(\.id)).count, 3, "three distinct ids")
            try checkEqual(try await ConfUser.query(on: db).count(), 9, "six seeded and three inserted")
        },
    ]
}
