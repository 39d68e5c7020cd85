// Cases+SetOperations: UNION, UNION ALL, INTERSECT and EXCEPT of queries over one model, the same on every driver.
import Foundation
import Strata

extension ConformanceSuite {
    /// Whether `error` is an invalid query whose message holds every one of `parts`.
    static func isInvalidQuery(_ error: StrataError, naming parts: String...) -> Bool {
        guard case .invalidQuery(let message) = error else { return false }
        return parts.allSatisfy { message.contains($0) }
    }

    static let setOperationCases: [ConformanceCase] = [
        ConformanceCase("setop.union-drops-duplicate-rows-null-equal-to-null") { db in
            try await Fixtures.seedUsers(db)
            // Ages 30, NULL, 30 on the left; NULL, 25 on the right.
            let left = ConfUser.query(on: db).where(\.name, in: ["Alex", "Alice", "_under"]).only(\.age)
            let right = ConfUser.query(on: db).where(\.name, in: ["Alice", "bob"]).only(\.age)
            try checkEqual(
                try await left.union(right).order(\.age).values(\.age), [nil, 25, 30],
                "UNION keeps each distinct age once, one NULL, NULL first ascending")
            try checkEqual(
                try await left.unionAll(right).order(\.age).values(\.age), [nil, nil, 25, 30, 30],
                "UNION ALL keeps every row")
        },
        ConformanceCase("setop.union-all-of-models-keeps-duplicates") { db in
            try await Fixtures.seedUsers(db)
            let users = try await ConfUser.query(on: db).where(\.active == true)
                .unionAll(ConfUser.query(on: db).where(\.age == 30))
                .order(\.name).order(\.id).all()
            try checkEqual(
                users.map(\.name), ["Alex", "Alex", "Zoe", "_under", "_under", "bob"],
                "active users, then users aged 30 again, ordered by name by code point")
            let once = try await ConfUser.query(on: db).where(\.active == true)
                .union(ConfUser.query(on: db).where(\.age == 30)).order(\.name).all()
            try checkEqual(once.map(\.name), ["Alex", "Zoe", "_under", "bob"], "UNION reads each user once")
            try checkEqual(once.first?.tags, [], "whole models decode from the combined rows")
        },
        ConformanceCase("setop.intersect-and-except") { db in
            try await Fixtures.seedUsers(db)
            let active = ConfUser.query(on: db).where(\.active == true)
            let thirty = ConfUser.query(on: db).where(\.age == 30)
            try checkEqual(
                try await active.intersect(thirty).order(\.name).values(\.name), ["Alex", "_under"],
                "INTERSECT: active users aged 30")
            try checkEqual(
                try await active.except(thirty).order(\.name).values(\.name), ["Zoe", "bob"],
                "EXCEPT: active users not aged 30")
            // Scores 1.5, 0.0, NULL, NULL on the left; -2.0, NULL on the right: NULL is found on both sides.
            let left = active.only(\.score)
            let right = ConfUser.query(on: db).where(\.name, in: ["Alice", "bob"]).only(\.score)
            try checkEqual(
                try await left.intersect(right).values(\.score), [nil], "INTERSECT matches NULL with NULL, once")
            try checkEqual(
                try await left.except(right).order(\.score).values(\.score), [0.0, 1.5],
                "EXCEPT drops the NULL found on the right and repeats nothing")
        },
        ConformanceCase("setop.operators-apply-left-to-right") { db in
            try await Fixtures.seedUsers(db)
            let thirty = ConfUser.query(on: db).where(\.age == 30)  // Alex, _under
            let bob = ConfUser.query(on: db).where(\.name == "bob")
            let some = ConfUser.query(on: db).where(\.name, in: ["bob", "Alex"])
            // (thirty ∪ bob) ∩ some; PostgreSQL's own precedence would read thirty ∪ (bob ∩ some).
            try checkEqual(
                try await thirty.union(bob).intersect(some).order(\.name).values(\.name), ["Alex", "bob"],
                "UNION then INTERSECT, left to right")
            try checkEqual(
                try await some.except(bob).unionAll(bob).order(\.name).values(\.name), ["Alex", "bob"],
                "EXCEPT then UNION ALL, left to right")
        },
        ConformanceCase("setop.order-limit-filter-and-count-apply-to-the-combined-rows") { db in
            try await Fixtures.seedUsers(db)
            let combined = ConfUser.query(on: db).where(\.active == true)
                .union(ConfUser.query(on: db).where(\.age == nil))
            try checkEqual(
                try await combined.order(\.name, .descending).limit(2).offset(1).values(\.name), ["_under", "Zoe"],
                "ORDER BY, LIMIT and OFFSET page the combined rows (text by code point)")
            try checkEqual(try await combined.count(), 5, "COUNT counts the combined rows")
            try checkEqual(
                try await combined.where(\.age >= 30).order(\.id).values(\.name), ["Alex", "Zoe", "_under"],
                "a where after union filters the combined rows")
            try checkEqual(try await combined.where(\.age >= 30).count(), 3, "and counts them")
        },
        ConformanceCase("setop.arithmetic-error-in-a-branch-fails-the-whole-query") { db in
            // Found by the generator (seed 7): every row of a branch is evaluated, so a row that fails fails the
            // query on every driver, whatever the other branch finds. (A filter of the combined rows may let
            // PostgreSQL skip the row: it pushes such filters into the branches.)
            try await seedCounters(db)
            let some = ConfCounter.query(on: db).where(\.views > 5)
            try await checkThrows("UNION with step / step, a step being 0", isArithmetic) {
                try await some.union(ConfCounter.query(on: db).where(\.step / \.step == 1)).all()
            }
            try await checkThrows("EXCEPT with views % 0 on the right", isArithmetic) {
                try await some.except(ConfCounter.query(on: db).where(\.views % 0 == 1)).count()
            }
            try checkEqual(
                try await some.union(ConfCounter.query(on: db).where(\.step == 0)).order(\.label).values(\.label),
                ["alpha", "DELTA", "gamma"].sorted(), "without the failing expression the same UNION answers")
        },
        ConformanceCase("setop.unknown-column-in-a-later-branch-comes-before-row-errors") { db in
            // The generator's minimal case (seed 11): SQL backends resolve every name when they prepare, before
            // the first branch divides by zero on a row; the memory driver resolves them first too.
            try await Fixtures.seedUsers(db)
            let columns = Select.Selection.columns(["id", "name"])
            let failing = Select(
                table: "conf_user", selection: columns,
                filter: .compare(
                    .greaterOrEqual, .arithmetic(.remainder, .column("id"), .value(.integer(0))), .value(.integer(0))))
            let misspelt = Select(
                table: "conf_user", selection: columns,
                filter: .compare(.equal, .column("no_such_column"), .value(.integer(1))))
            var s = Select(table: "conf_user", selection: .count)
            s.compound = Compound(failing, [SetOperation(.except, misspelt)])
            try await checkThrows(
                "unknown column in branch 2", { if case .unknownColumn = $0 { true } else { false } }
            ) {
                try await db.withConnection { tx in try tx.execute(.select(s)) }
            }
        },
        ConformanceCase("setop.different-columns-are-refused-naming-the-branch") { db in
            try await Fixtures.seedUsers(db)
            let names = ConfUser.query(on: db).only(\.name)
            let emails = ConfUser.query(on: db).only(\.email)
            let branch2 = { (e: StrataError) in isInvalidQuery(e, naming: "branch 2", "conf_user") }
            try await checkThrows("UNION of different columns", branch2) {
                try await names.union(emails).values(\.name)
            }
            try await checkThrows("INTERSECT of different columns", { isInvalidQuery($0, naming: "INTERSECT") }) {
                try await names.intersect(emails).values(\.name)
            }
        },
        ConformanceCase("setop.ordered-or-limited-branch-is-refused-naming-the-branch") { db in
            try await Fixtures.seedUsers(db)
            let ordered = ConfUser.query(on: db).order(\.name)
            let plain = ConfUser.query(on: db)
            try await checkThrows("ordered first branch", { isInvalidQuery($0, naming: "branch 1", "ORDER BY") }) {
                try await ordered.union(plain).all()
            }
            try await checkThrows("limited second branch", { isInvalidQuery($0, naming: "branch 2", "LIMIT") }) {
                try await plain.except(plain.limit(1)).all()
            }
        },
    ]
}
