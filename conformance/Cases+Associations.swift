// Cases+Associations: belongsTo, hasOne, hasMany, through and self-references, with every delete rule.
import Strata

extension ConformanceSuite {
    static func titles(_ db: Database) async throws -> [String] {
        try await ConfTeam.query(on: db).order(\.title).all().map(\.title)
    }

    static func memberNames(_ db: Database) async throws -> [String] {
        try await ConfMember.query(on: db).order(\.name).all().map(\.name)
    }

    static let associationCases: [ConformanceCase] = [
        ConformanceCase("assoc.has-many-add-and-fetch") { db in
            let w = try await Fixtures.seedWorld(db)
            try checkEqual(w.ann.confTeamID, w.red.id, "add sets the child's foreign key")
            let red = try await w.red.fetch(ConfTeam.members, on: db).map(\.name).sorted()
            try checkEqual(red, ["Ann", "Bob"], "children fetched by foreign key")
            try checkEqual(try await w.blue.fetch(ConfTeam.members, on: db).map(\.name), ["Cid"], "other parent")
        },
        ConformanceCase("assoc.add-to-unsaved-parent-saves-it") { db in
            try await Fixtures.migrateAssociations(db)
            var team = ConfTeam(title: "new")
            var dan = ConfMember(name: "Dan")
            try await team.add(&dan, to: ConfTeam.members, on: db)
            try check(team.id != nil, "the parent was saved first")
            try checkEqual(dan.confTeamID, team.id, "no silent orphan")
        },
        ConformanceCase("assoc.has-many-remove") { db in
            var w = try await Fixtures.seedWorld(db)
            try await db.transaction { tx in try w.red.remove(&w.bob, from: ConfTeam.members, tx) }
            try checkEqual(w.bob.confTeamID, nil, "removed child's key cleared")
            try checkEqual(try await w.red.fetch(ConfTeam.members, on: db).map(\.name), ["Ann"], "one child left")
            try checkEqual(try await ConfMember.find(w.bob.id ?? -1, on: db)?.name, "Bob", "removed child still exists")
        },
        ConformanceCase("assoc.belongs-to-fetch-set-clear") { db in
            var w = try await Fixtures.seedWorld(db)
            try checkEqual(try await w.cid.fetch(ConfMember.team, on: db)?.title, "blue", "parent fetched")
            try w.cid.set(ConfMember.team, to: w.red)
            try await w.cid.save(on: db)
            try checkEqual(try await ConfMember.find(w.cid.id ?? -1, on: db)?.confTeamID, w.red.id, "parent set")
            try w.cid.set(ConfMember.team, to: nil)
            try await w.cid.save(on: db)
            try checkEqual(try await w.cid.fetch(ConfMember.team, on: db), nil, "parent cleared")
            let unsaved = ConfTeam(title: "ghost")
            try await checkThrows("pointing at an unsaved parent", { $0 == .notPersisted(model: "ConfTeam") }) {
                try w.cid.set(ConfMember.team, to: unsaved)
            }
        },
        ConformanceCase("assoc.has-one") { db in
            let w = try await Fixtures.seedWorld(db)
            var red = w.red
            var badge = ConfBadge(label: "gold")
            try await db.transaction { tx in try red.set(&badge, as: ConfTeam.lead, tx) }
            let fetched = try await db.withConnection { tx in try w.red.fetch(ConfTeam.lead, tx) }
            try checkEqual(fetched?.label, "gold", "hasOne fetched")
            let none = try await db.withConnection { tx in try w.blue.fetch(ConfTeam.lead, tx) }
            try checkEqual(none, nil, "no child")
        },
        ConformanceCase("assoc.self-referential") { db in
            let w = try await Fixtures.seedWorld(db)
            try checkEqual(try await w.bob.fetch(ConfMember.manager, on: db)?.name, "Ann", "belongsTo self")
            try checkEqual(try await w.ann.fetch(ConfMember.reports, on: db).map(\.name), ["Bob"], "hasMany self")
            try await w.ann.delete(on: db)
            try checkEqual(try await ConfMember.find(w.bob.id ?? -1, on: db)?.managerID, nil, "reports nullified")
        },
        ConformanceCase("assoc.through-add-fetch-remove") { db in
            let w = try await Fixtures.seedWorld(db)
            try checkEqual(
                try await w.bob.fetch(ConfMember.projects, on: db).map(\.name).sorted(), ["Apollo", "Gemini"],
                "targets through join rows")
            try await db.transaction { tx in try w.bob.remove(w.apollo, from: ConfMember.projects, tx) }
            try checkEqual(try await w.bob.fetch(ConfMember.projects, on: db).map(\.name), ["Gemini"], "link removed")
            try checkEqual(try await ConfProject.query(on: db).count(), 2, "the target itself stays")
            try checkEqual(try await ConfMembership.query(on: db).count(), 3, "one join row deleted")
        },
        ConformanceCase("assoc.remove-takes-the-same-forms") { db in
            var w = try await Fixtures.seedWorld(db)
            try await db.transaction { tx in
                try w.red.remove(w.bob, from: ConfTeam.members, tx)  // by value on hasMany
                try w.bob.remove(&w.apollo, from: ConfMember.projects, tx)  // inout on hasMany(through:)
            }
            try checkEqual(try await w.red.fetch(ConfTeam.members, on: db).map(\.name), ["Ann"], "by-value remove")
            try checkEqual(try await w.bob.fetch(ConfMember.projects, on: db).map(\.name), ["Gemini"], "inout remove")
            try await w.red.remove(w.ann, from: ConfTeam.members, on: db)
            try await w.bob.remove(&w.gemini, from: ConfMember.projects, on: db)
            try checkEqual(try await w.red.fetch(ConfTeam.members, on: db).count, 0, "async by-value remove")
            try checkEqual(try await w.bob.fetch(ConfMember.projects, on: db).count, 0, "async inout remove")
        },
        ConformanceCase("assoc.destroy-cascades-through-levels") { db in
            let w = try await Fixtures.seedWorld(db)
            try await w.red.delete(on: db)
            try checkEqual(try await titles(db), ["blue"], "team deleted")
            try checkEqual(try await memberNames(db), ["Cid"], "its members destroyed")
            try checkEqual(try await ConfMembership.query(on: db).count(), 1, "their memberships destroyed")
            try checkEqual(try await ConfProject.query(on: db).count(), 2, "projects kept")
        },
        ConformanceCase("assoc.nullify-keeps-children") { db in
            let w = try await Fixtures.seedWorld(db)
            guard let red = try await ConfTeamNullify.find(w.red.id ?? -1, on: db) else {
                throw ConformanceFailure(description: "team missing")
            }
            try await red.delete(on: db)
            try checkEqual(try await titles(db), ["blue"], "team deleted")
            try checkEqual(try await memberNames(db), ["Ann", "Bob", "Cid"], "members kept")
            try checkEqual(try await ConfMember.query(on: db).where(\.confTeamID == nil).count(), 2, "with a nil key")
        },
        ConformanceCase("assoc.restrict-refuses-and-deletes-nothing") { db in
            let w = try await Fixtures.seedWorld(db)
            guard let red = try await ConfTeamRestrict.find(w.red.id ?? -1, on: db) else {
                throw ConformanceFailure(description: "team missing")
            }
            try await checkThrows(
                "restricted delete",
                {
                    if case .deleteRestricted = $0 { return true }
                    return false
                }
            ) { try await red.delete(on: db) }
            try checkEqual(try await titles(db), ["blue", "red"], "nothing deleted")
            guard let blue = try await ConfTeamRestrict.find(w.blue.id ?? -1, on: db) else {
                throw ConformanceFailure(description: "team missing")
            }
            try await db.transaction { tx in
                for m in try ConfMember.query(on: tx).where(\.confTeamID == blue.id).all() {
                    var m = m
                    try m.set(ConfMember.team, to: nil)
                    try m.save(tx)
                }
            }
            try check(try await blue.delete(on: db), "an empty team can be deleted")
        },
        ConformanceCase("assoc.none-rule-leaves-it-to-the-foreign-key") { db in
            let w = try await Fixtures.seedWorld(db)
            try await checkThrows(
                "deleting a referenced project",
                {
                    if case .foreignKeyViolation = $0 { return true }
                    return false
                }
            ) { try await w.apollo.delete(on: db) }
            try checkEqual(try await ConfProject.query(on: db).count(), 2, "project kept")
        },
        ConformanceCase("assoc.schema-declares-on-delete") { db in
            let w = try await Fixtures.seedWorld(db)
            // A bulk delete bypasses the ORM's rules; the schema's ON DELETE CASCADE still applies.
            try await ConfMember.query(on: db).where(\.id == w.cid.id).set(\.managerID, to: nil).update()
            _ = try await ConfTeam.query(on: db).where(\.id == w.blue.id).delete()
            try checkEqual(try await memberNames(db), ["Ann", "Bob"], "members cascaded by the foreign key")
        },
    ]
}
