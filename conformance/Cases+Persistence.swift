// Cases+Persistence: save inserts then updates only changed columns; find, delete, update and delete where.
import Foundation
import Strata

extension ConformanceSuite {
    static let persistenceCases: [ConformanceCase] = [
        ConformanceCase("save.insert-assigns-ids") { db in
            try await Fixtures.migrate(db)
            var a = ConfUser(name: "A", email: "a@x.io")
            var b = ConfUser(name: "B", email: "b@x.io")
            try check(a.id == nil, "id is nil before the first save")
            try await a.save(on: db)
            try await b.save(on: db)
            try checkEqual(a.id, 1, "first id on a fresh table")
            try check((b.id ?? 0) > (a.id ?? 0), "ids grow: \(String(describing: b.id))")
        },
        ConformanceCase("save.round-trip") { db in
            try await Fixtures.migrate(db)
            var u = ConfUser(
                name: "Ann", email: "ann@x.io", age: 33, score: 2.5,
                joinedAt: Date(timeIntervalSince1970: 1_700_000_000.123456), tags: ["a", "b"])
            try await u.save(on: db)
            let back = try await ConfUser.find(u.id ?? -1, on: db)
            try checkEqual(back, u, "fetched model equals saved model")
        },
        ConformanceCase("save.updates-only-changed-columns") { db in
            let users = try await Fixtures.seedUsers(db)
            var mine = try await ConfUser.find(users[0].id ?? -1, on: db)
            // Someone else changes the email behind our back.
            try await ConfUser.query(on: db).filter(id: users[0].id ?? -1).set(\.email, to: "other@x.io").update()
            mine?.name = "Alexander"
            try await mine?.save(on: db)
            let now = try await ConfUser.find(users[0].id ?? -1, on: db)
            try checkEqual(now?.name, "Alexander", "changed column written")
            try checkEqual(now?.email, "other@x.io", "unchanged column not overwritten")
        },
        ConformanceCase("save.unchanged-writes-nothing") { db in
            let users = try await Fixtures.seedUsers(db)
            guard var u = try await ConfUser.find(users[1].id ?? -1, on: db) else {
                throw ConformanceFailure(description: "missing")
            }
            try check(!u.hasChanges, "fetched model has no changes")
            let before = db.statementCount
            try await u.save(on: db)
            try checkEqual(db.statementCount, before, "statements run by saving an unchanged model")
            u.age = 99
            try check(u.hasChanges, "edited model has changes")
        },
        ConformanceCase("save.tracks-assignments") { db in
            let users = try await Fixtures.seedUsers(db)
            guard var u = try await ConfUser.find(users[0].id ?? -1, on: db) else {
                throw ConformanceFailure(description: "missing")
            }
            u.draft = "transient"
            try check(!u.hasChanges, "a @Transient property is not a change")
            u.name = u.name
            try check(u.hasChanges, "assigning a column its own value counts as a change")
            var before = db.statementCount
            try await u.save(on: db)
            try checkEqual(db.statementCount - before, 1, "statements run by saving one assigned column")
            try check(!u.hasChanges, "saved model has no changes")
            u.tags.append("new")
            u[keyPath: \ConfUser.age] = 77
            try check(u.hasChanges, "in-place and key-path mutations are changes")
            try await u.save(on: db)
            let back = try await ConfUser.find(u.id ?? -1, on: db)
            try checkEqual(back?.tags, ["new"], "in-place mutation written")
            try checkEqual(back?.age, 77, "key-path assignment written")
            before = db.statementCount
            try await u.save(on: db)
            try checkEqual(db.statementCount, before, "statements run by saving again unchanged")
        },
        ConformanceCase("save.untracked-columns-always-written") { db in
            try await db.migrate(ConfPoint.self)
            var p = ConfPoint(x: 1, y: 2, label: "a", note: "n")
            try await p.save(on: db)
            guard let id = p.id, var mine = try await ConfPoint.find(id, on: db) else {
                throw ConformanceFailure(description: "missing")
            }
            try check(mine.hasChanges, "a model with unobserved columns always has changes")
            try await ConfPoint.query(on: db).filter(id: id).set(\.y, to: 20).set(\.note, to: "theirs").update()
            mine.x = 10
            try await mine.save(on: db)
            let now = try await ConfPoint.find(id, on: db)
            try checkEqual(now?.x, 10, "assigned column written")
            try checkEqual(now?.y, 2, "unobserved column written with the model's value")
            try checkEqual(now?.note, "theirs", "observed unassigned column not overwritten")
            try checkEqual(now?.label, "a", "column with its own observer written with the model's value")
            mine.label = "b"
            try checkEqual(mine.edits, 1, "the property's own observer still runs")
        },
        ConformanceCase("save.explicit-id-inserts") { db in
            try await Fixtures.migrate(db)
            var u = ConfUser(id: 100, name: "Hundred", email: "h@x.io")
            try await u.save(on: db)
            try checkEqual(try await ConfUser.find(100, on: db)?.name, "Hundred", "row stored under its explicit id")
            u.name = "Changed"
            try await u.save(on: db)
            try checkEqual(try await ConfUser.query(on: db).count(), 1, "second save updates, not inserts")
        },
        ConformanceCase("insert-all.sets-ids-in-order") { db in
            try await Fixtures.migrate(db)
            var groups = (0..<5000).map { ConfGroup(title: "g\($0)") }
            try await ConfGroup.insertAll(&groups, on: db)
            try check(groups.allSatisfy { $0.id != nil }, "every model got an id")
            try checkEqual(Set(groups.compactMap(\.id)).count, 5000, "distinct ids")
            let sample = try await ConfGroup.find(groups[4321].id ?? -1, on: db)
            try checkEqual(sample?.title, "g4321", "the id belongs to the model that got it")
            try checkEqual(try await ConfGroup.query(on: db).count(), 5000, "all stored")
            var accounts = [ConfAccount(name: "ok", email: "ok@x.io"), ConfAccount(name: "", email: "bad")]
            try await checkThrows(
                "one invalid model",
                {
                    if case .validationFailed = $0 { return true }
                    return false
                }
            ) { try await ConfAccount.insertAll(&accounts, on: db) }
            try checkEqual(try await ConfAccount.query(on: db).count(), 0, "nothing written")
        },
        ConformanceCase("find.by-id-and-missing") { db in
            let users = try await Fixtures.seedUsers(db)
            try checkEqual(try await ConfUser.find(users[2].id ?? -1, on: db)?.name, "Zoe", "found by id")
            try checkEqual(try await ConfUser.find(987_654, on: db), nil, "missing id gives nil")
        },
        ConformanceCase("delete.model") { db in
            let users = try await Fixtures.seedUsers(db)
            try check(try await users[0].delete(on: db), "first delete removes the row")
            try check(!(try await users[0].delete(on: db)), "second delete finds nothing")
            try checkEqual(try await ConfUser.find(users[0].id ?? -1, on: db), nil, "deleted row is gone")
            try checkEqual(try await ConfUser.query(on: db).count(), Fixtures.people.count - 1, "others remain")
        },
        ConformanceCase("delete.unsaved-is-typed-error") { db in
            try await Fixtures.migrate(db)
            let u = ConfUser(name: "x", email: "x@x.io")
            try await checkThrows("delete unsaved", { $0 == .notPersisted(model: "ConfUser") }) {
                try await u.delete(on: db)
            }
        },
        ConformanceCase("delete.where") { db in
            try await Fixtures.seedUsers(db)
            let n = try await ConfUser.query(on: db).where(\.active == false).delete()
            try checkEqual(n, 2, "rows deleted")
            try checkEqual(try await ConfUser.query(on: db).where(\.active == false).count(), 0, "none left")
            try checkEqual(try await ConfUser.query(on: db).count(), 4, "others kept")
        },
        ConformanceCase("update.where-sets-columns") { db in
            try await Fixtures.seedUsers(db)
            let n = try await ConfUser.query(on: db).where(\.age == 30).set(\.active, to: false).set(\.score, to: nil)
                .update()
            try checkEqual(n, 2, "rows updated")
            let rows = try await ConfUser.query(on: db).where(\.age == 30).all()
            try check(rows.allSatisfy { !$0.active && $0.score == nil }, "both columns set on matched rows")
            try checkEqual(try await ConfUser.query(on: db).where(\.active == true).count(), 2, "other rows untouched")
        },
        ConformanceCase("update.without-set-is-error") { db in
            try await Fixtures.seedUsers(db)
            try await checkThrows(
                "update without set",
                {
                    if case .invalidQuery = $0 { return true }
                    return false
                }
            ) { try await ConfUser.query(on: db).update() }
        },
        ConformanceCase("transient.not-stored") { db in
            try await Fixtures.migrate(db)
            var u = ConfUser(name: "T", email: "t@x.io")
            u.draft = "typed but unsaved"
            try await u.save(on: db)
            try checkEqual(
                try await ConfUser.find(u.id ?? -1, on: db)?.draft, "unsaved", "transient comes back as its default")
        },
        ConformanceCase("defaults.honoured") { db in
            try await Fixtures.migrate(db)
            var u = ConfUser(name: "D", email: "d@x.io")
            try await u.save(on: db)
            let back = try await ConfUser.find(u.id ?? -1, on: db)
            try checkEqual(back?.active, true, "Bool default")
            try checkEqual(back?.tags, [], "array default")
            try check(abs((back?.joinedAt.timeIntervalSinceNow ?? 1e9)) < 600, "Date() default is now")
        },
        ConformanceCase("query.for-each-streams") { db in
            try await Fixtures.seedUsers(db)
            var seen: [String] = []
            try await db.withConnection { tx in
                try ConfUser.query(on: tx).order(\.name).forEach { seen.append($0.name) }
            }
            try checkEqual(seen, ["Alex", "Alice", "Zoe", "_under", "bob", "émile"], "streamed in order")
        },
    ]
}
