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
        ConformanceCase("parity.raw-like-dangling-escape-refused-before-any-row") { db in
            // A raw LIKE pattern ending in its escape: memory refused it as it parsed the condition, SQLite and
            // PostgreSQL only when matching a row reached the escape (so an empty table, a row failing earlier or
            // an OR decided first answered). The core now refuses it before any driver, whatever the rows.
            let refused = { (e: StrataError) in e == .invalidQuery("LIKE pattern ends with the escape character \\") }
            try await checkThrows("raw LIKE on an empty table", refused) {
                try await ConfUser.query(on: db).where(unsafeRaw: "name LIKE ? ESCAPE '\\'", "a\\").count()
            }
            try await Fixtures.seedUsers(db)
            try await checkThrows("an OR decided by its first operand", refused) {
                try await ConfUser.query(on: db).where(unsafeRaw: "name IS NOT NULL OR name LIKE ?", "%\\").all()
            }
            try await checkThrows("a row failing before the escape", refused) {
                try await ConfUser.query(on: db).where(unsafeRaw: "name LIKE ? ESCAPE '\\'", "zz\\").count()
            }
            try await checkThrows("a raw DELETE", refused) {
                try await ConfUser.query(on: db).where(unsafeRaw: "name LIKE ?", "\\").delete()
            }
            try checkEqual(try await ConfUser.query(on: db).count(), 6, "nothing deleted")
            try checkEqual(
                try await ConfUser.query(on: db).where(unsafeRaw: "name LIKE ? ESCAPE '\\'", "\\_%").count(), 1,
                "an escaped metacharacter in a raw LIKE still works")
        },
        ConformanceCase("parity.shared-refusals-before-any-driver") { db in
            // The refusals every driver shares are made once by the core, in one order, before any driver looks a
            // table up: a statement with several faults fails with the same error everywhere (memory used to find
            // the missing table first, and SQLite and PostgreSQL each named a repeated join alias in their words).
            try await Fixtures.migrate(db)
            func refused(_ what: String, _ message: String, _ statement: Statement) async throws {
                try await checkThrows(what, { $0 == .invalidQuery(message) }) {
                    try await db.withConnection { tx in try tx.execute(statement) }
                }
            }
            try await refused(
                "UPDATE without columns of a missing table", "UPDATE without any column to set",
                .update(Update(table: "no_such_table", assignments: [], filter: nil)))
            try await refused(
                "a repeated join alias", "join alias 'j' is used twice",
                .select(
                    Select(
                        table: "no_such_table", selection: .columns(["id"]),
                        joins: [
                            Join(.inner, table: "conf_user", alias: "j", on: .constant(true)),
                            Join(.inner, table: "conf_user", alias: "j", on: .constant(true)),
                        ])))
            try await refused(
                "a dangling LIKE escape with a negative limit", "LIKE pattern ends with the escape character \\",
                .select(
                    Select(
                        table: "no_such_table", selection: .columns(["id"]),
                        filter: .like(.column("name"), "a\\", caseInsensitive: false), limit: -1)))
            try await refused(
                "a SELECT without columns", "SELECT without columns",
                .select(Select(table: "no_such_table", selection: .columns([]), limit: -1)))
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
            // Bulk inserts keep their ids right while the statement cache (512 on SQLite) fills and is evicted.
            // SQLite's multi-row INSERT used to read max(rowid) through that cache, which could finalize the
            // INSERT it was about to step (a crash); StrataDifferentialTests hits that at every fill level.
            try await Fixtures.migrate(db)
            var inserted = 0
            for n in 0..<560 {
                let names = (0...n).map { "n\($0)" }  // a different SQL text each time (n + 1 binds)
                _ = try await ConfUser.query(on: db).where(\.name, in: names).count()
                var batch = (0..<2).map { ConfUser(name: "b\(n)", email: "b\(n).\($0)@x.io") }
                try await ConfUser.insertAll(&batch, on: db)
                try check(batch.allSatisfy { $0.id != nil }, "every inserted row has an id")
                inserted += 2
            }
            try checkEqual(try await ConfUser.query(on: db).count(), inserted, "every row inserted")
            try checkEqual(Set(try await ConfUser.query(on: db).all().compactMap(\.id)).count, inserted, "distinct ids")
        },
    ]
}
