// Cases+Joins: inner, left, right and full joins on associations or columns; joined filters, order, pairs.
import Strata

extension ConformanceSuite {
    /// Pairs as `left/right` names (`-` for nil), for order-free comparison.
    static func pairNames(_ pairs: [(ConfMember?, ConfTeam?)]) -> [String] {
        pairs.map { "\($0.0?.name ?? "-")/\($0.1?.title ?? "-")" }.sorted()
    }

    /// The world plus a member without a team (Dee) and a team without members (green).
    static func seedJoinWorld(_ db: Database) async throws -> Fixtures.World {
        let w = try await Fixtures.seedWorld(db)
        var dee = ConfMember(name: "Dee")
        try await dee.save(on: db)
        var green = ConfTeam(title: "green")
        try await green.save(on: db)
        return w
    }

    static let joinCases: [ConformanceCase] = [
        ConformanceCase("join.inner-on-belongs-to") { db in
            _ = try await seedJoinWorld(db)
            let pairs = try await ConfMember.query(on: db).join(ConfMember.team).allJoined(ConfMember.team)
            try checkEqual(pairNames(pairs), ["Ann/red", "Bob/red", "Cid/blue"], "inner join drops Dee")
        },
        ConformanceCase("join.left-keeps-unmatched") { db in
            _ = try await seedJoinWorld(db)
            let pairs = try await ConfMember.query(on: db).join(ConfMember.team, .left).allJoined(ConfMember.team)
            try checkEqual(pairNames(pairs), ["Ann/red", "Bob/red", "Cid/blue", "Dee/-"], "left join keeps Dee")
        },
        ConformanceCase("join.right-and-full") { db in
            _ = try await seedJoinWorld(db)
            let right = try await ConfMember.query(on: db).join(ConfMember.team, .right).allJoined(ConfMember.team)
            try checkEqual(pairNames(right), ["-/green", "Ann/red", "Bob/red", "Cid/blue"], "right join keeps green")
            let full = try await ConfMember.query(on: db).join(ConfMember.team, .full).allJoined(ConfMember.team)
            try checkEqual(
                pairNames(full), ["-/green", "Ann/red", "Bob/red", "Cid/blue", "Dee/-"], "full join keeps both")
        },
        ConformanceCase("join.filter-and-order-by-joined-columns") { db in
            _ = try await seedJoinWorld(db)
            let reds = try await ConfMember.query(on: db).join(ConfMember.team)
                .where(ConfMember.team, \.title == "red").order(\.name, .descending).all()
            try checkEqual(reds.map(\.name), ["Bob", "Ann"], "members of red, by name descending")
            let byTeam = try await ConfMember.query(on: db).join(ConfMember.team)
                .order(ConfMember.team, \.title).order(\.name).all()
            try checkEqual(byTeam.map(\.name), ["Cid", "Ann", "Bob"], "ordered by team title, then name")
            try checkEqual(
                try await ConfMember.query(on: db).join(ConfMember.team).where(ConfMember.team, \.title ~~ "b%")
                    .count(), 1, "count over a join")
        },
        ConformanceCase("join.has-many-repeats-owner") { db in
            _ = try await seedJoinWorld(db)
            let rows = try await ConfTeam.query(on: db).join(ConfTeam.members, .left).order(\.title)
                .order(ConfTeam.members, \.name).allJoined(ConfTeam.members)
            let names = rows.map { "\($0.0?.title ?? "-"):\($0.1?.name ?? "-")" }
            try checkEqual(names, ["blue:Cid", "green:-", "red:Ann", "red:Bob"], "one row per member, in order")
        },
        ConformanceCase("join.self-referential") { db in
            _ = try await seedJoinWorld(db)
            let pairs = try await ConfMember.query(on: db).join(ConfMember.manager).allJoined(ConfMember.manager)
            try checkEqual(
                pairs.map { "\($0.0?.name ?? "-")<\($0.1?.name ?? "-")" }, ["Bob<Ann"], "a table joined to itself")
            let managed = try await ConfMember.query(on: db).join(ConfMember.manager)
                .where(ConfMember.manager, \.name == "Ann").all()
            try checkEqual(managed.map(\.name), ["Bob"], "filter on the aliased side")
        },
        ConformanceCase("join.through") { db in
            _ = try await seedJoinWorld(db)
            let onGemini = try await ConfMember.query(on: db).join(ConfMember.projects)
                .where(ConfMember.projects, \.name == "Gemini").order(\.name).all()
            try checkEqual(onGemini.map(\.name), ["Bob", "Cid"], "members through memberships")
        },
        ConformanceCase("join.explicit-columns") { db in
            _ = try await seedJoinWorld(db)
            let pairs = try await ConfBadgeless.query(on: db)
                .join(ConfTeam.self, on: \.confTeamID, equals: \.id, .left)
                .where(ConfTeam.self, \.title != "blue")
                .allJoined(ConfTeam.self)
            try checkEqual(
                pairs.map { "\($0.0?.name ?? "-")/\($0.1?.title ?? "-")" }.sorted(), ["Ann/red", "Bob/red"],
                "joined on named columns; NULL title fails the filter")
        },
        ConformanceCase("join.not-joined-is-typed-error") { db in
            _ = try await seedJoinWorld(db)
            try await checkThrows(
                "filter on a join never added",
                {
                    if case .invalidQuery = $0 { return true }
                    return false
                }
            ) { try await ConfMember.query(on: db).where(ConfMember.team, \.title == "red").all() }
        },
    ]
}
