// Cases+Constraints: unique, not-null, type and foreign-key violations raise the same typed errors everywhere.
import Strata

extension ConformanceSuite {
    static let constraintCases: [ConformanceCase] = [
        ConformanceCase("unique.violation-keeps-stored-row") { db in
            let users = try await Fixtures.seedUsers(db)
            guard var second = try await ConfUser.find(users[1].id ?? -1, on: db) else {
                throw ConformanceFailure(description: "missing")
            }
            second.email = users[0].email
            second.name = "Hijacked"
            try await checkThrows(
                "unique email",
                {
                    $0 == .uniqueViolation(table: "conf_user", columns: ["email"])
                }
            ) { try await second.save(on: db) }
            let stored = try await ConfUser.find(users[1].id ?? -1, on: db)
            try checkEqual(stored?.name, "Alice", "stored row unchanged")
            try checkEqual(stored?.email, users[1].email, "stored email unchanged")
        },
        ConformanceCase("constraint.two-broken-at-once-fail-with-one-and-change-nothing") { db in
            let users = try await Fixtures.seedUsers(db)
            let before = try await ConfUser.query(on: db).order(\.id).all()
            // Each statement breaks the unique email and the foreign key at once. Which of the two a backend reports
            // is its own order (PostgreSQL, SQLite and memory check foreign keys at the statement's end, MariaDB row
            // by row); what holds everywhere: one of the two, and nothing changed.
            let either: (StrataError) -> Bool = {
                switch $0 {
                case .uniqueViolation(table: "conf_user", columns: ["email"]), .foreignKeyViolation: return true
                default: return false
                }
            }
            guard var second = try await ConfUser.find(users[1].id ?? -1, on: db) else {
                throw ConformanceFailure(description: "missing")
            }
            second.email = users[0].email
            second.groupID = 424_242
            let attempted = second
            try await checkThrows("save breaking both", either) { try await second.save(on: db) }
            try checkEqual(second, attempted, "the model as the caller left it")
            try await checkThrows("update breaking both", either) {
                try await ConfUser.query(on: db).set(\.email, to: users[0].email).set(\.groupID, to: 424_242).update()
            }
            try checkEqual(try await ConfUser.query(on: db).order(\.id).all(), before, "no row changed")
        },
        ConformanceCase("unique.nulls-are-distinct") { db in
            try await Fixtures.migrate(db)
            try await db.withConnection { tx in
                _ = try tx.execute(.createIndex(table: "conf_user", Index(columns: ["age"], unique: true)))
            }
            var a = ConfUser(name: "a", email: "a@x.io")
            var b = ConfUser(name: "b", email: "b@x.io")
            try await a.save(on: db)
            try await b.save(on: db)
            try checkEqual(
                try await ConfUser.query(on: db).where(\.age == nil).count(), 2, "two NULLs under a unique index")
        },
        ConformanceCase("not-null.violation") { db in
            try await db.migrate(ConfStrict.self)
            var loose = ConfLoose(count: "1", label: nil)
            try await checkThrows(
                "NULL into NOT NULL",
                {
                    if case .notNullViolation(table: "conf_strict", column: "label") = $0 { return true }
                    if case .typeMismatch = $0 { return true }  // count is checked first on some backends
                    return false
                }
            ) { try await loose.save(on: db) }
            var looseTyped = ConfLoose(count: "x", label: "fine")
            try await checkThrows(
                "text into an integer column",
                {
                    if case .typeMismatch(table: "conf_strict", column: "count", _) = $0 { return true }
                    return false
                }
            ) { try await looseTyped.save(on: db) }
            try checkEqual(try await ConfStrict.query(on: db).count(), 0, "nothing stored")
        },
        ConformanceCase("decode.wrong-type-is-typed-error") { db in
            try await db.migrate(ConfLoose.self)
            var row = ConfLoose(count: "not a number", label: "l")
            try await row.save(on: db)
            try await checkThrows(
                "reading text as Int",
                {
                    if case .decodingFailed(model: "ConfStrict", column: "count", let value, expected: "Int") = $0 {
                        return value.contains("not a number")
                    }
                    return false
                }
            ) { try await ConfStrict.query(on: db).all() }
            try await db.migrate(ConfEvolveV2.self)
            var withoutNote = ConfEvolveV2(name: "n", note: nil)
            try await withoutNote.save(on: db)
            try await checkThrows(
                "reading NULL as String",
                {
                    if case .decodingFailed(model: "ConfEvolveNote", column: "note", "NULL", expected: "String") = $0 {
                        return true
                    }
                    return false
                }
            ) { try await ConfEvolveNote.query(on: db).all() }
        },
        ConformanceCase("foreign-key.enforced-on-insert") { db in
            try await Fixtures.migrate(db)
            var orphan = ConfUser(name: "o", email: "o@x.io", groupID: 424_242)
            try await checkThrows(
                "orphan insert",
                isForeignKeyViolation
            ) { try await orphan.save(on: db) }
            try checkEqual(try await ConfUser.query(on: db).count(), 0, "orphan not stored")
        },
        ConformanceCase("foreign-key.update-to-a-missing-parent-refused") { db in
            let (g, u) = try await groupWithMember(db)
            let id = try unwrap(u.id, "the child's id")
            try await checkThrows(
                "a child's key set to no parent",
                isForeignKeyViolation
            ) { try await ConfUser.query(on: db).where(\.id == id).set(\.groupID, to: 424_242).update() }
            try checkEqual(try await ConfUser.find(id, on: db)?.groupID, g.id, "the child still names its parent")
        },
        ConformanceCase("foreign-key.update-of-other-columns-on-both-sides") { db in
            // Writes that touch no key column on either side of a foreign key: checked only where they write one.
            var (g, u) = try await groupWithMember(db)
            try checkEqual(
                try await ConfGroup.query(on: db).set(\.title, to: "renamed").update(), 1, "the parent renamed")
            try checkEqual(try await ConfUser.query(on: db).set(\.name, to: "n").update(), 1, "the child renamed")
            g.title = "again"
            try await g.save(on: db)
            try checkEqual(try await ConfGroup.query(on: db).all().map(\.title), ["again"], "parent saved")
            let child = try await ConfUser.find(try unwrap(u.id, "the child's id"), on: db)
            try checkEqual(child?.name, "n", "child's column written")
            try checkEqual(child?.groupID, g.id, "child's key kept")
        },
        ConformanceCase("foreign-key.blocks-deleting-parent") { db in
            var (g, u) = try await groupWithMember(db)
            try await checkThrows(
                "delete referenced parent",
                isForeignKeyViolation
            ) { try await g.delete(on: db) }
            try checkEqual(try await ConfGroup.query(on: db).count(), 1, "parent kept")
            try await u.delete(on: db)
            try check(try await g.delete(on: db), "parent deletable once unreferenced")
        },
    ]
}

/// Whether `error` is the typed foreign-key violation.
private func isForeignKeyViolation(_ error: StrataError) -> Bool {
    if case .foreignKeyViolation = error { return true }
    return false
}

/// Migrates the fixtures and saves a group with one member (a parent row and a child row naming it).
private func groupWithMember(_ db: Database) async throws -> (ConfGroup, ConfUser) {
    try await Fixtures.migrate(db)
    var g = ConfGroup(title: "g")
    try await g.save(on: db)
    var u = ConfUser(name: "m", email: "m@x.io", groupID: g.id)
    try await u.save(on: db)
    return (g, u)
}
