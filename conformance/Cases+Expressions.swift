// Cases+Expressions: subqueries (IN, NOT IN, EXISTS through associations, scalar) and computed values, alike everywhere.
import Strata

/// Counters for arithmetic: integer, optional integer, double and text columns.
@Model(table: "conf_counter")
struct ConfCounter: Equatable {
    var id: Int64?
    var label: String
    var views: Int64
    var clicks: Int64 = 0
    var step: Int64?
    var ratio: Double = 0
    var note: String?
}

extension ConformanceSuite {
    /// Five counters: `alpha` 10 (step 3), `Beta` -5 (no step), `gamma` 0 (step 0), `DELTA` 7 (step -2),
    /// `epsilon` 2 (step 1).
    @discardableResult
    static func seedCounters(_ db: Database) async throws -> [ConfCounter] {
        try await db.withConnection { tx in try tx.dropTable("conf_counter") }
        try await db.migrate(ConfCounter.self)
        let rows: [ConfCounter] = [
            ConfCounter(label: "alpha", views: 10, clicks: 1, step: 3, ratio: 1.5, note: "x"),
            ConfCounter(label: "Beta", views: -5, clicks: 2, step: nil, ratio: -2.0, note: nil),
            ConfCounter(label: "gamma", views: 0, clicks: 3, step: 0, ratio: 0.25, note: "Émile"),
            ConfCounter(label: "DELTA", views: 7, clicks: 4, step: -2, ratio: 4.0, note: "déjà"),
            ConfCounter(label: "epsilon", views: 2, clicks: 5, step: 1, ratio: 0.5, note: nil),
        ]
        return try await db.transaction { tx in
            var out: [ConfCounter] = []
            for var row in rows {
                try row.save(tx)
                out.append(row)
            }
            return out
        }
    }

    /// The labels of the matching counters, in id order unless the query orders them.
    static func labels(_ q: QueryBuilder<ConfCounter, Database>, ordered: Bool = false) async throws -> [String] {
        try await (ordered ? q : q.order(\.id)).all().map(\.label)
    }

    static func memberNames(_ q: QueryBuilder<ConfMember, Database>) async throws -> [String] {
        try await q.order(\.name).all().map(\.name)
    }

    static func isArithmetic(_ e: StrataError) -> Bool {
        if case .arithmeticError = e { return true }
        return false
    }

    static let expressionCases: [ConformanceCase] = subqueryCases + computedCases + computedErrorCases

    static let subqueryCases: [ConformanceCase] = [
        ConformanceCase("subquery.in-select-column") { db in
            let w = try await Fixtures.seedWorld(db)
            let apollo = ConfMembership.query(on: db).where(\.confProjectID == w.apollo.id).select(\.confMemberID)
            try checkEqual(
                try await memberNames(ConfMember.query(on: db).where(\.id, in: apollo)), ["Ann", "Bob"], "IN (SELECT …)"
            )
        },
        ConformanceCase("subquery.not-in-select-column") { db in
            let w = try await Fixtures.seedWorld(db)
            let apollo = ConfMembership.query(on: db).where(\.confProjectID == w.apollo.id).select(\.confMemberID)
            try checkEqual(
                try await memberNames(ConfMember.query(on: db).where(\.id, notIn: apollo)), ["Cid"], "NOT IN (SELECT …)"
            )
        },
        ConformanceCase("subquery.not-in-with-null-matches-nothing") { db in
            let w = try await Fixtures.seedWorld(db)
            try await db.transaction { tx in
                var orphan = ConfMembership(confMemberID: nil, confProjectID: w.apollo.id)
                try orphan.save(tx)
            }
            let apollo = ConfMembership.query(on: db).where(\.confProjectID == w.apollo.id).select(\.confMemberID)
            try checkEqual(
                try await ConfMember.query(on: db).where(\.id, notIn: apollo).count(), 0,
                "NOT IN a subquery holding NULL is never true")
            try checkEqual(
                try await memberNames(ConfMember.query(on: db).where(\.id, in: apollo)), ["Ann", "Bob"],
                "IN still matches")
        },
        ConformanceCase("subquery.empty-in-and-not-in") { db in
            _ = try await Fixtures.seedWorld(db)
            let none = ConfMembership.query(on: db).where(\.role == "nobody").select(\.confMemberID)
            try checkEqual(try await ConfMember.query(on: db).where(\.id, in: none).count(), 0, "IN (empty)")
            try checkEqual(try await ConfMember.query(on: db).where(\.id, notIn: none).count(), 3, "NOT IN (empty)")
        },
        ConformanceCase("subquery.exists-through-has-many-through") { db in
            _ = try await Fixtures.seedWorld(db)
            try checkEqual(
                try await memberNames(ConfMember.query(on: db).whereExists(ConfMember.projects, \.name == "Gemini")),
                ["Bob", "Cid"], "members with a Gemini project")
            try checkEqual(
                try await memberNames(ConfMember.query(on: db).whereExists(ConfMember.projects)),
                ["Ann", "Bob", "Cid"], "members with any project")
        },
        ConformanceCase("subquery.not-exists-through-has-many-through") { db in
            _ = try await Fixtures.seedWorld(db)
            try checkEqual(
                try await memberNames(ConfMember.query(on: db).whereNotExists(ConfMember.projects, \.name == "Gemini")),
                ["Ann"], "members without a Gemini project")
        },
        ConformanceCase("subquery.exists-through-has-many") { db in
            _ = try await Fixtures.seedWorld(db)
            try await db.transaction { tx in
                var empty = ConfTeam(title: "green")
                try empty.save(tx)
            }
            let cid = try await ConfTeam.query(on: db).whereExists(ConfTeam.members, \.name == "Cid").all()
            try checkEqual(cid.map(\.title), ["blue"], "teams with Cid")
            let staffed = try await ConfTeam.query(on: db).whereExists(ConfTeam.members).order(\.title).all()
            try checkEqual(staffed.map(\.title), ["blue", "red"], "teams with members")
            let empty = try await ConfTeam.query(on: db).whereNotExists(ConfTeam.members).all()
            try checkEqual(empty.map(\.title), ["green"], "teams without members")
        },
        ConformanceCase("subquery.exists-through-belongs-to-self") { db in
            _ = try await Fixtures.seedWorld(db)
            try checkEqual(
                try await memberNames(ConfMember.query(on: db).whereExists(ConfMember.manager)), ["Bob"],
                "members with a manager (self-reference)")
            try checkEqual(
                try await memberNames(ConfMember.query(on: db).whereNotExists(ConfMember.manager)), ["Ann", "Cid"],
                "a NULL key has no manager")
            try checkEqual(
                try await memberNames(ConfMember.query(on: db).whereExists(ConfMember.reports, \.name == "Bob")),
                ["Ann"], "members managing Bob")
        },
        ConformanceCase("subquery.exists-through-has-one") { db in
            let w = try await Fixtures.seedWorld(db)
            try await db.transaction { tx in
                var badge = ConfBadge(label: "lead", confTeamID: w.red.id)
                try badge.save(tx)
            }
            let led = try await ConfTeam.query(on: db).whereExists(ConfTeam.lead, \.label == "lead").all()
            try checkEqual(led.map(\.title), ["red"], "teams with a lead badge")
            let unled = try await ConfTeam.query(on: db).whereNotExists(ConfTeam.lead).all()
            try checkEqual(unled.map(\.title), ["blue"], "teams without one")
        },
        ConformanceCase("subquery.scalar-comparison") { db in
            try await seedCounters(db)
            let delta = ConfCounter.query(on: db).where(\.label == "DELTA").select(\.views)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.views >= delta)), ["alpha", "DELTA"], ">=")
            try checkEqual(try await labels(ConfCounter.query(on: db).where(\.views == delta)), ["DELTA"], "==")
        },
        ConformanceCase("subquery.scalar-empty-is-null") { db in
            try await seedCounters(db)
            let none = ConfCounter.query(on: db).where(\.label == "nobody").select(\.views)
            try checkEqual(try await ConfCounter.query(on: db).where(\.views != none).count(), 0, "<> NULL")
            try checkEqual(try await ConfCounter.query(on: db).where(\.views < none).count(), 0, "< NULL")
        },
        ConformanceCase("subquery.scalar-reads-first-row-by-order") { db in
            try await seedCounters(db)
            let top = ConfCounter.query(on: db).order(\.views, .descending).select(\.views)
            try checkEqual(try await labels(ConfCounter.query(on: db).where(\.views == top)), ["alpha"], "largest")
            let low = ConfCounter.query(on: db).order(\.views).offset(1).select(\.views)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.views == low)), ["gamma"], "second lowest")
        },
        ConformanceCase("subquery.two-columns-refused") { db in
            _ = try await Fixtures.seedWorld(db)
            let two = ConfMembership.query(on: db).only(\.confMemberID, \.confProjectID)
            let named: (StrataError) -> Bool = {
                if case .invalidQuery(let m) = $0 {
                    return m.contains("ConfMembership") && m.contains("ConfMember.id") && m.contains("conf_member_id")
                }
                return false
            }
            try await checkThrows("IN two columns", named) {
                try await ConfMember.query(on: db).where(\.id, in: two).all()
            }
            try await checkThrows("delete NOT IN two columns", named) {
                try await ConfMember.query(on: db).where(\.id, notIn: two).delete()
            }
            try checkEqual(try await ConfMember.query(on: db).count(), 3, "nothing deleted")
        },
        ConformanceCase("subquery.in-update-and-delete") { db in
            let w = try await Fixtures.seedWorld(db)
            let gemini = ConfMembership.query(on: db).where(\.confProjectID == w.gemini.id).select(\.confMemberID)
            let renamed = try await ConfMember.query(on: db).where(\.id, in: gemini).set(\.name, to: \.name + "!")
                .update()
            try checkEqual(renamed, 2, "updated through a subquery")
            try checkEqual(try await memberNames(ConfMember.query(on: db)), ["Ann", "Bob!", "Cid!"], "names")
            let apollo = ConfMembership.query(on: db).where(\.confProjectID == w.apollo.id).select(\.id)
            try checkEqual(try await ConfMembership.query(on: db).where(\.id, in: apollo).delete(), 2, "deleted")
            try checkEqual(try await ConfMembership.query(on: db).count(), 2, "left")
        },
        ConformanceCase("subquery.render-errors-come-before-missing-tables") { db in
            // Found by `strata fuzz` (seed 7): the memory driver ran the subquery (no such table) before refusing
            // the LIKE pattern that SQL drivers refuse while rendering, before the database sees anything.
            try await Fixtures.seedUsers(db)
            let missing = ConfCounter.query(on: db).select(\.id)
            let invalidPattern: (StrataError) -> Bool = {
                if case .invalidQuery(let m) = $0 { return m.contains("escape") }
                return false
            }
            try await checkThrows("lone escape, then a subquery on a table never created", invalidPattern) {
                try await ConfUser.query(on: db).where(\.name, like: "a\\").where(\.id, in: missing).all()
            }
            try await checkThrows("the same in a DELETE", invalidPattern) {
                try await ConfUser.query(on: db).where(\.name, like: "a\\").where(\.id, in: missing).delete()
            }
            try checkEqual(try await ConfUser.query(on: db).count(), 6, "nothing deleted")
        },
        ConformanceCase("subquery.render-errors-come-before-unknown-join-columns") { db in
            // The fuzzer's minimal case: a join on a column that does not exist, and a LIKE pattern ending in `\`.
            try await Fixtures.seedUsers(db)
            let s = Select(
                table: "conf_user", selection: .count,
                joins: [
                    Join(
                        .left, table: "conf_group", alias: "j",
                        on: .compare(.equal, .column("no_such_column"), .value(.integer(0))))
                ],
                filter: .like(.column("name"), "\\"))
            try await checkThrows(
                "lone escape, then an unknown column", { if case .invalidQuery = $0 { true } else { false } }
            ) {
                try await db.withConnection { tx in try tx.execute(.select(s)) }
            }
        },
        ConformanceCase("subquery.nested-subquery") { db in
            let w = try await Fixtures.seedWorld(db)
            let gemini = ConfProject.query(on: db).where(\.name == "Gemini").select(\.id)
            let members = ConfMembership.query(on: db).where(\.confProjectID, in: gemini).select(\.confMemberID)
            try checkEqual(
                try await memberNames(ConfMember.query(on: db).where(\.id, in: members)), ["Bob", "Cid"], "two levels")
            try checkEqual(w.gemini.name, "Gemini", "fixture")
        },
    ]

    static let computedCases: [ConformanceCase] = [
        ConformanceCase("expression.arithmetic-in-filter") { db in
            try await seedCounters(db)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.views + 5 > 10)), ["alpha", "DELTA"], "+")
            try checkEqual(try await labels(ConfCounter.query(on: db).where(\.views * 2 == 14)), ["DELTA"], "*")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.views - \.clicks < 0)),
                ["Beta", "gamma", "epsilon"], "-")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.views + \.clicks * 2 == 15)), ["DELTA"],
                "precedence: views + (clicks * 2)")
        },
        ConformanceCase("expression.integer-division-truncates") { db in
            try await seedCounters(db)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.views / 2 == -2)), ["Beta"], "-5 / 2 = -2")
            try checkEqual(try await labels(ConfCounter.query(on: db).where(\.views / 2 == 3)), ["DELTA"], "7 / 2 = 3")
        },
        ConformanceCase("expression.modulo-of-negatives-truncates") { db in
            try await seedCounters(db)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.views % 3 == -2)), ["Beta"], "-5 % 3 = -2")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.views % 3 == 1)), ["alpha", "DELTA"], "% 3 = 1")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.views % -3 == 1)), ["alpha", "DELTA"],
                "the divisor's sign does not matter")
        },
        ConformanceCase("expression.double-arithmetic") { db in
            try await seedCounters(db)
            try checkEqual(try await labels(ConfCounter.query(on: db).where(\.ratio * 2 > 3)), ["DELTA"], "*")
            try checkEqual(try await labels(ConfCounter.query(on: db).where(\.ratio / 4 == 1)), ["DELTA"], "/")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.ratio - 0.25 == 0)), ["gamma"], "-")
        },
        ConformanceCase("expression.null-propagates") { db in
            try await seedCounters(db)
            let withStep = try await labels(ConfCounter.query(on: db).where(\.step + 1 != 100))
            try checkEqual(withStep, ["alpha", "gamma", "DELTA", "epsilon"], "NULL + 1 is NULL, never != 100")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.step + \.step == 6)), ["alpha"], "column + column")
        },
        ConformanceCase("expression.coalesce") { db in
            try await seedCounters(db)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(coalesce(\.step, 100) > 50)), ["Beta"], "int")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(coalesce(\.note, "none") == "none")),
                ["Beta", "epsilon"], "text")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(coalesce(\.step + 1, 0) == 0)), ["Beta"],
                "coalesce of an expression")
        },
        ConformanceCase("expression.concat") { db in
            try await seedCounters(db)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.label + "!" == "alpha!")), ["alpha"], "+ text")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.label + "-" + \.label == "Beta-Beta")), ["Beta"],
                "column + text + column")
        },
        ConformanceCase("expression.concat-null-is-null") { db in
            try await seedCounters(db)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.note + "?" != "")), ["alpha", "gamma", "DELTA"],
                "NULL || text is NULL")
        },
        ConformanceCase("expression.lower-upper-ascii-only") { db in
            try await seedCounters(db)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(lower(\.label) == "delta")), ["DELTA"], "lower")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(upper(\.label) == "BETA")), ["Beta"], "upper")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(upper(\.note) == "ÉMILE")), ["gamma"],
                "upper keeps É, folds the ASCII letters")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(upper(\.note) == "DéJà")), ["DELTA"],
                "upper leaves é and à")
            try checkEqual(
                try await ConfCounter.query(on: db).where(lower(\.note) == "émile").count(), 0, "lower leaves É")
        },
        ConformanceCase("expression.lower-in-like") { db in
            try await seedCounters(db)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(lower(\.label) ~~ "%ta")), ["Beta", "DELTA"],
                "lower(label) LIKE '%ta'")
        },
        ConformanceCase("expression.order-by-arithmetic") { db in
            try await seedCounters(db)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).order(\.views * -1).order(\.id), ordered: true),
                ["alpha", "DELTA", "epsilon", "gamma", "Beta"], "views * -1 ascending")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).order(\.views % 3, .descending).order(\.id), ordered: true),
                ["epsilon", "alpha", "DELTA", "gamma", "Beta"], "views % 3 descending")
        },
        ConformanceCase("expression.order-by-nulls-first") { db in
            try await seedCounters(db)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).order(\.step + 0), ordered: true),
                ["Beta", "DELTA", "gamma", "epsilon", "alpha"], "NULL first ascending")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).order(\.step * 1, .descending), ordered: true),
                ["alpha", "epsilon", "gamma", "DELTA", "Beta"], "NULL last descending")
        },
        ConformanceCase("expression.order-by-lower") { db in
            try await seedCounters(db)
            try checkEqual(
                try await labels(ConfCounter.query(on: db).order(lower(\.label)), ordered: true),
                ["alpha", "Beta", "DELTA", "epsilon", "gamma"], "lower(label)")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).order(\.label), ordered: true),
                ["Beta", "DELTA", "alpha", "epsilon", "gamma"], "label by code point")
        },
        ConformanceCase("expression.update-increment") { db in
            try await seedCounters(db)
            let n = try await ConfCounter.query(on: db).where(\.label == "alpha").update(set: \.views, to: \.views + 1)
            try checkEqual(n, 1, "one row")
            try checkEqual(
                try await ConfCounter.query(on: db).order(\.id).all().map(\.views), [11, -5, 0, 7, 2], "views + 1")
            let all = try await ConfCounter.query(on: db).update(set: \.ratio, to: \.ratio * 2)
            try checkEqual(all, 5, "every row")
            try checkEqual(
                try await ConfCounter.query(on: db).order(\.id).all().map(\.ratio), [3.0, -4.0, 0.5, 8.0, 1.0],
                "ratio * 2")
        },
        ConformanceCase("expression.update-reads-old-values") { db in
            try await seedCounters(db)
            try await ConfCounter.query(on: db).where(\.label == "DELTA").set(\.views, to: \.clicks)
                .set(\.clicks, to: \.views).update()
            let delta = try await ConfCounter.query(on: db).where(\.label == "DELTA").first()
            try checkEqual(delta.map { [$0.views, $0.clicks] }, [4, 7], "swapped from the old row")
        },
        ConformanceCase("expression.negative-zero-reads-as-zero") { db in
            // 0.0 * -1 is -0.0: SQLite stores it as 0, the memory driver writes 0.0, PostgreSQL kept the sign.
            try await seedCounters(db)
            try await ConfCounter.query(on: db).where(\.label == "gamma").update(set: \.ratio, to: \.ratio - 0.25)
            try await ConfCounter.query(on: db).where(\.label == "gamma").update(set: \.ratio, to: \.ratio * -1)
            let ratio = try await ConfCounter.query(on: db).where(\.label == "gamma").first()?.ratio
            try checkEqual(ratio.map { $0.sign == .plus && $0 == 0 }, true, "0.0, not -0.0")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(\.ratio == 0)), ["gamma"], "-0.0 = 0 anyway")
        },
        ConformanceCase("expression.update-text-and-coalesce") { db in
            try await seedCounters(db)
            try await ConfCounter.query(on: db).update(set: \.note, to: coalesce(\.note, "") + "+")
            try checkEqual(
                try await ConfCounter.query(on: db).order(\.id).all().map(\.note), ["x+", "+", "Émile+", "déjà+", "+"],
                "coalesce(note, '') || '+'")
            try await ConfCounter.query(on: db).update(set: \.label, to: upper(\.label))
            try checkEqual(
                try await ConfCounter.query(on: db).order(\.id).all().map(\.label),
                ["ALPHA", "BETA", "GAMMA", "DELTA", "EPSILON"], "upper(label)")
        },
    ]

    static let computedErrorCases: [ConformanceCase] = [
        ConformanceCase("expression.transient-property-is-unknown-column") { db in
            try await Fixtures.seedUsers(db)
            let unknown: (StrataError) -> Bool = {
                if case .unknownColumn(let model, _) = $0 { return model == "ConfUser" }
                return false
            }
            try await checkThrows("filter on draft + text", unknown) {
                try await ConfUser.query(on: db).where(\.draft + "!" == "x").all()
            }
            try await checkThrows("SET name = draft", unknown) {
                try await ConfUser.query(on: db).update(set: \.name, to: lower(\.draft))
            }
            try checkEqual(try await names(ConfUser.query(on: db).where(\.name == "Alex")), ["Alex"], "nothing renamed")
        },
        ConformanceCase("expression.division-by-zero-is-an-error") { db in
            try await seedCounters(db)
            try await checkThrows("views / 0", isArithmetic) {
                try await ConfCounter.query(on: db).where(\.views / 0 > 1).all()
            }
            try await checkThrows("views % 0", isArithmetic) {
                try await ConfCounter.query(on: db).where(\.views % 0 == 1).count()
            }
            try await checkThrows("step / step where a step is 0", isArithmetic) {
                try await ConfCounter.query(on: db).where(\.step / \.step == 1).all()
            }
        },
        ConformanceCase("expression.double-division-by-zero-is-an-error") { db in
            try await seedCounters(db)
            try await checkThrows("ratio / 0.0", isArithmetic) {
                try await ConfCounter.query(on: db).where(\.ratio / 0 > 1).all()
            }
        },
        ConformanceCase("expression.division-by-null-is-null") { db in
            try await seedCounters(db)
            try await ConfCounter.query(on: db).where(\.label == "gamma").delete()
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(coalesce(\.step / \.step, 42) == 42)),
                ["Beta"], "NULL / NULL is NULL, not an error")
        },
        ConformanceCase("expression.division-by-zero-with-nothing-to-divide-answers") { db in
            try await seedCounters(db)
            try await ConfCounter.query(on: db).where(\.step != nil).delete()
            // Only Beta is left, its step NULL: NULL % 0 and NULL / 0 are NULL, as a NULL divisor makes them.
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(coalesce(\.step % 0, 42) == 42)), ["Beta"],
                "NULL % 0 is NULL")
            try checkEqual(
                try await labels(ConfCounter.query(on: db).where(coalesce(\.step / 0, 42) == 42)), ["Beta"],
                "NULL / 0 is NULL")
            // With no row left, a zero divisor divides nothing: the query answers (no backend folds it first).
            try await ConfCounter.query(on: db).delete()
            try checkEqual(try await ConfCounter.query(on: db).where(\.views % 0 == 1).count(), 0, "views % 0")
            try checkEqual(try await ConfCounter.query(on: db).where(\.views / 0 > 1).count(), 0, "views / 0")
            try checkEqual(try await ConfCounter.query(on: db).where(\.ratio / 0 > 1).count(), 0, "ratio / 0.0")
        },
        ConformanceCase("expression.integer-overflow-is-an-error") { db in
            try await seedCounters(db)
            try await db.transaction { tx in
                var big = ConfCounter(label: "max", views: .max, step: .min)
                try big.save(tx)
            }
            let big = ConfCounter.query(on: db).where(\.label == "max")
            try await checkThrows("Int64.max + 1", isArithmetic) { try await big.where(\.views + 1 > 0).all() }
            try await checkThrows("Int64.max * 2", isArithmetic) { try await big.where(\.views * 2 > 0).all() }
            try await checkThrows("Int64.min - 1", isArithmetic) { try await big.where(\.step - 1 < 0).all() }
            try await checkThrows("Int64.min / -1", isArithmetic) { try await big.where(\.step / -1 > 0).all() }
            try checkEqual(
                try await labels(big.where(\.step % -1 == 0)), ["max"], "Int64.min % -1 is 0")
            try checkEqual(
                try await labels(big.where(\.views - 1 == Int64.max - 1)), ["max"], "in range stays exact")
        },
        ConformanceCase("expression.double-overflow-is-an-error") { db in
            try await seedCounters(db)
            try await db.transaction { tx in
                var huge = ConfCounter(label: "huge", views: 0, ratio: 1e308)
                try huge.save(tx)
            }
            let huge = ConfCounter.query(on: db).where(\.label == "huge")
            try await checkThrows("1e308 * 10", isArithmetic) { try await huge.where(\.ratio * 10 > 0).all() }
            try await checkThrows("1e308 + 1e308", isArithmetic) { try await huge.where(\.ratio + \.ratio > 0).all() }
        },
        ConformanceCase("expression.double-underflow-is-an-error") { db in
            // A product or quotient of doubles that underflows to 0 while its operands (the dividend) are not 0 is
            // an arithmetic error on every driver (MariaDB answered 0: its guard found by seed 11).
            try await seedCounters(db)
            let isUnderflow: (StrataError) -> Bool = {
                if case .arithmeticError(_, let reason) = $0 { return reason.contains("underflow") }
                return false
            }
            try await checkThrows("ratio * 1e-200 * 1e-200", isUnderflow) {
                try await ConfCounter.query(on: db).where(\.ratio * 1e-200 * 1e-200 > 0).all()
            }
            try await checkThrows("ratio / 1e300 / 1e300", isUnderflow) {
                try await ConfCounter.query(on: db).where(\.ratio / 1e300 / 1e300 > 0).all()
            }
            try checkEqual(
                try await ConfCounter.query(on: db).where((\.ratio - \.ratio) * 1e-200 == 0).count(), 5,
                "0 times a tiny value is 0")
        },
        ConformanceCase("expression.update-overflow-changes-nothing") { db in
            try await seedCounters(db)
            try await db.transaction { tx in
                var big = ConfCounter(label: "max", views: .max)
                try big.save(tx)
            }
            let before = try await ConfCounter.query(on: db).order(\.id).all()
            try await checkThrows("views * 2 on Int64.max", isArithmetic) {
                try await ConfCounter.query(on: db).update(set: \.views, to: \.views * 2)
            }
            try checkEqual(try await ConfCounter.query(on: db).order(\.id).all(), before, "no row changed")
        },
        ConformanceCase("expression.update-division-by-zero-changes-nothing") { db in
            try await seedCounters(db)
            let before = try await ConfCounter.query(on: db).order(\.id).all()
            try await checkThrows("views / step with a zero step", isArithmetic) {
                try await ConfCounter.query(on: db).where(\.step != nil).update(
                    set: \.views, to: \.views / coalesce(\.step, 1))
            }
            try checkEqual(try await ConfCounter.query(on: db).order(\.id).all(), before, "no row changed")
            try checkEqual(try await ConfCounter.query(on: db).count(), 5, "no row lost")
        },
    ]
}
