// Cases+EagerLoading: including(…) loads associations with one query per level, never one per row.
import Strata

extension ConformanceSuite {
    static let eagerLoadingCases: [ConformanceCase] = [
        ConformanceCase("eager.has-many-in-two-queries") { db in
            try await Fixtures.migrateAssociations(db)
            try await db.transaction { tx in
                for n in 0..<1000 {
                    var team = ConfTeam(title: "team\(n)")
                    try team.save(tx)
                    for k in 0..<(n % 3) {
                        var m = ConfMember(name: "m\(n)-\(k)")
                        try team.add(&m, to: ConfTeam.members, tx)
                    }
                }
            }
            let before = db.statementCount
            let teams = try await ConfTeam.query(on: db).including(ConfTeam.members).order(\.title).all()
            try checkEqual(db.statementCount - before, 2, "queries for 1,000 teams with their members")
            try checkEqual(teams.count, 1000, "teams")
            let total = try teams.reduce(0) { $0 + (try $1.loaded(ConfTeam.members).count) }
            try checkEqual(total, 999, "members attached to their teams")
            try checkEqual(
                try teams.first { $0.title == "team2" }?.loaded(ConfTeam.members).count, 2, "team2's members")
        },
        ConformanceCase("eager.nested-and-through") { db in
            let w = try await Fixtures.seedWorld(db)
            let before = db.statementCount
            let teams = try await ConfTeam.query(on: db).order(\.title)
                .including(ConfTeam.members.including(ConfMember.projects)).all()
            try checkEqual(db.statementCount - before, 4, "teams, members, join rows, projects")
            let red = try teams.first { $0.id == w.red.id }?.loaded(ConfTeam.members) ?? []
            let bob = red.first { $0.name == "Bob" }
            try checkEqual(
                try bob?.loaded(ConfMember.projects).map(\.name).sorted(), ["Apollo", "Gemini"], "nested through")
        },
        ConformanceCase("eager.belongs-to-and-has-one") { db in
            let w = try await Fixtures.seedWorld(db)
            let members = try await ConfMember.query(on: db).order(\.name)
                .including(ConfMember.team).including(ConfMember.manager).all()
            try checkEqual(
                try members.map { try $0.loaded(ConfMember.team)?.title }, ["red", "red", "blue"], "parents")
            try checkEqual(
                try members.map { try $0.loaded(ConfMember.manager)?.name }, [nil, "Ann", nil], "self parents")
            let teams = try await ConfTeam.query(on: db).including(ConfTeam.lead).all()
            try checkEqual(try teams.map { try $0.loaded(ConfTeam.lead) }, [nil, nil], "no badges")
            _ = w
        },
        ConformanceCase("eager.not-loaded-is-typed-error") { db in
            _ = try await Fixtures.seedWorld(db)
            let team = try await ConfTeam.query(on: db).first()
            try checkThrowsSync(
                "reading an association that was not included",
                {
                    if case .associationNotLoaded(model: "ConfTeam", _) = $0 { return true }
                    return false
                }
            ) { try team?.loaded(ConfTeam.members) }
        },
    ]
}
