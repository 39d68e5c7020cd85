// Cases+Keys: explicit and automatic ids together, and migrations that follow associations and references.
import Strata

/// A model whose foreign key references a table no one migrates.
@Model(table: "conf_ghost")
struct ConfGhost {
    var id: Int64?
    var name: String
}

@Model(table: "conf_haunted")
struct ConfHaunted {
    var id: Int64?
    var ghostID: Int64?
    static var foreignKeys: [ForeignKey] { [.from(\ConfHaunted.ghostID, to: ConfGhost.self)] }
}

extension ConformanceSuite {
    static let keyCases: [ConformanceCase] = [
        ConformanceCase("key.explicit-then-automatic") { db in
            try await db.migrate(ConfGroup.self)
            var explicit = ConfGroup(id: 100, title: "explicit")
            try await explicit.save(on: db)
            var auto = ConfGroup(title: "automatic")
            try await auto.save(on: db)
            try check((auto.id ?? 0) > 100, "the automatic id after an explicit 100 is past it, got \(auto.id ?? 0)")
            var low = ConfGroup(id: 50, title: "explicit below")
            try await low.save(on: db)
            var next = ConfGroup(title: "automatic again")
            try await next.save(on: db)
            try check(
                (next.id ?? 0) > (auto.id ?? 0),
                "an explicit id below the last automatic one does not move ids back: \(next.id ?? 0)")
            let titles = try await ConfGroup.query(on: db).order(\.id).all().map(\.title)
            try checkEqual(titles, ["explicit below", "explicit", "automatic", "automatic again"], "every row kept")
        },
        ConformanceCase("migrate.follows-associations") { db in
            try await db.migrate(ConfMember.self)
            for table in ["conf_member", "conf_team", "conf_project", "conf_membership", "conf_badge"] {
                let columns = try await db.withConnection { tx in try tx.columns(of: table) }
                try check(columns != nil, "migrate(ConfMember.self) created \(table), which its associations need")
            }
            try await db.transaction { tx in
                var team = ConfTeam(title: "red")
                var ann = ConfMember(name: "Ann")
                try team.add(&ann, to: ConfTeam.members, tx)
                var apollo = ConfProject(name: "Apollo")
                try ann.add(&apollo, to: ConfMember.projects, tx)
            }
            try checkEqual(try await ConfMembership.query(on: db).count(), 1, "the through table works")
        },
        ConformanceCase("migrate.referenced-first-whatever-the-order") { db in
            try await db.migrate(ConfUser.self, ConfGroup.self)
            var g = ConfGroup(title: "g")
            try await g.save(on: db)
            var u = ConfUser(name: "u", email: "u@x.io", groupID: g.id)
            try await u.save(on: db)
            try checkEqual(try await ConfUser.query(on: db).count(), 1, "a user referencing its group is saved")
        },
        ConformanceCase("migrate.missing-referenced-table-changes-nothing") { db in
            try await db.migrate(ConfGroup.self)
            try await checkThrows(
                "a foreign key to a table no one migrates",
                {
                    if case .missingReferencedTable("conf_haunted", "ghost_id", "conf_ghost") = $0 { return true }
                    return false
                }
            ) {
                try await db.migrate(ConfGroup.self, ConfHaunted.self)
            }
            try checkEqual(
                try await db.withConnection { tx in try tx.columns(of: "conf_haunted") }, nil,
                "nothing was created")
            try checkEqual(try await ConfGroup.query(on: db).count(), 0, "the other model's table is intact")
        },
    ]
}

/// A table name of 66 bytes, past PostgreSQL's limit of 63.
@Model(table: "conf_long_name_0123456789012345678901234567890123456789012345678901")
struct ConfLongName {
    var id: Int64?
}

/// Two columns whose names differ only in letter case.
@Model(table: "conf_case")
struct ConfCaseClash {
    var id: Int64?
    @Column("Label") var upper: String
    @Column("label") var lower: String
}

extension ConformanceSuite {
    static let identifierCases: [ConformanceCase] = [
        ConformanceCase("migrate.identifier-over-63-bytes-refused") { db in
            try await checkThrows(
                "a table name over 63 bytes",
                {
                    if case .invalidIdentifier(let name, _) = $0 { return name.utf8.count > 63 }
                    return false
                }
            ) {
                try await db.migrate(ConfGroup.self, ConfLongName.self)
            }
            try checkEqual(
                try await db.withConnection { tx in try tx.columns(of: "conf_group") }, nil,
                "nothing was created, not even the valid model's table")
        },
        ConformanceCase("migrate.names-differing-only-in-case-refused") { db in
            try await checkThrows(
                "columns Label and label",
                {
                    if case .invalidIdentifier("label", _) = $0 { return true }
                    return false
                }
            ) {
                try await db.migrate(ConfCaseClash.self)
            }
            try checkEqual(
                try await db.withConnection { tx in try tx.columns(of: "conf_case") }, nil, "nothing was created")
        },
    ]
}
