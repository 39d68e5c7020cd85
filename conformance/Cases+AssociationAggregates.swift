// Cases+AssociationAggregates: each model with aggregates of its related rows (count, sum, avg, min, max), alike.
import Foundation
import Strata

@Model(table: "conf_blog")
struct ConfBlog {
    var id: Int64?
    var name: String
    static let entries = hasMany(ConfEntry.self, onDelete: .destroy)
}

@Model(table: "conf_entry")
struct ConfEntry {
    var id: Int64?
    var confBlogID: Int64?
    var title: String
    var votes: Int64
    var rating: Double?
    var price: Decimal
    @DeletedAt var deletedAt: Date?
    static let blog = belongsTo(ConfBlog.self)
}

extension ConformanceSuite {
    /// Blogs alpha (entries with 3, 5 and 4 votes), beta (10), gamma (none) and delta (one soft-deleted entry).
    static func seedBlogs(_ db: Database) async throws {
        try await db.migrate(ConfBlog.self, ConfEntry.self)
        try await db.transaction { tx in
            var blogs = ["alpha", "beta", "gamma", "delta"].map { ConfBlog(name: $0) }
            for i in blogs.indices { try blogs[i].save(tx) }
            let entries: [(Int, String, Int64, Double?, String)] = [
                (0, "a1", 3, 1.0, "1.10"), (0, "a2", 5, nil, "2.25"), (0, "a3", 4, 2.0, "0.10"),
                (1, "b1", 10, 4.5, "12345678901234567.89"), (3, "d1", 7, 9.0, "1"),
            ]
            for e in entries {
                var entry = ConfEntry(
                    confBlogID: blogs[e.0].id, title: e.1, votes: e.2, rating: e.3, price: decimal(e.4))
                try entry.save(tx)
            }
        }
        try await ConfEntry.query(on: db).where(\.title == "d1").delete()
    }

    static let associationAggregateCases: [ConformanceCase] = [
        ConformanceCase("assoc-aggregate.count-sum-avg-per-model-zero-children") { db in
            try await seedBlogs(db)
            let rows = try await ConfBlog.query(on: db).order(\.id).all(
                with: .count(ConfBlog.entries), .sum(ConfBlog.entries, of: \.votes), .avg(ConfBlog.entries, of: \.votes)
            )
            try checkEqual(rows.map(\.0.name), ["alpha", "beta", "gamma", "delta"], "every blog, by id")
            try checkEqual(rows.map(\.1), [3, 1, 0, 0], "live entries; none counts 0 (delta's is soft-deleted)")
            try checkEqual(rows.map(\.2), [12, 10, nil, nil], "the sum of no entries is nil, as SQL's SUM")
            try checkEqual(rows.map(\.3), [4, 10, nil, nil], "the mean, a double")
        },
        ConformanceCase("assoc-aggregate.having-and-order-on-the-aggregate") { db in
            try await seedBlogs(db)
            let few = try await ConfBlog.query(on: db).having(.count(ConfBlog.entries) < 2).order(\.name).all(
                with: .count(ConfBlog.entries))
            try checkEqual(few.map(\.0.name), ["beta", "delta", "gamma"], "fewer than 2 entries: none counts as 0")
            let busy = try await ConfBlog.query(on: db).having(.sum(ConfBlog.entries, of: \.votes) > 10).all(
                with: .sum(ConfBlog.entries, of: \.votes))
            try checkEqual(busy.map(\.0.name), ["alpha"], "a nil sum compares as unknown: left out")
            let ranked = try await ConfBlog.query(on: db).where(\.name != "beta")
                .order(.sum(ConfBlog.entries, of: \.votes), .descending).order(\.id).limit(3)
                .all(with: .count(ConfBlog.entries))
            try checkEqual(ranked.map(\.0.name), ["alpha", "gamma", "delta"], "by sum descending, nil last, then id")
            try checkEqual(ranked.map(\.1), [3, 0, 0], "each with its count")
            let both = try await ConfBlog.query(on: db)
                .having(.count(ConfBlog.entries) >= 1 && .avg(ConfBlog.entries, of: \.votes) > 5).all(
                    with: .count(ConfBlog.entries))
            try checkEqual(both.map(\.0.name), ["beta"], "conditions joined with &&")
        },
        ConformanceCase("assoc-aggregate.decimals-exact-doubles-min-max") { db in
            try await seedBlogs(db)
            let rows = try await ConfBlog.query(on: db).order(\.id).all(
                with: .sum(ConfBlog.entries, of: \.price), .max(ConfBlog.entries, of: \.price),
                .max(ConfBlog.entries, of: \.rating), .min(ConfBlog.entries, of: \.title))
            try checkEqual(
                rows.map(\.1), [decimal("3.45"), decimal("12345678901234567.89"), nil, nil], "exact decimal sums")
            try checkEqual(
                rows.map(\.2), [decimal("2.25"), decimal("12345678901234567.89"), nil, nil], "the largest by value")
            try checkEqual(rows.map(\.3), [2.0, 4.5, nil, nil], "the largest rating, NULLs skipped")
            try checkEqual(rows.map(\.4), ["a1", "b1", nil, nil], "the first title")
        },
        ConformanceCase("assoc-aggregate.through-belongs-to-and-self-reference") { db in
            let world = try await Fixtures.seedWorld(db)
            var dee = ConfMember(name: "Dee")
            try await dee.save(on: db)
            let rows = try await ConfMember.query(on: db).order(\.id).all(with: .count(ConfMember.projects))
            try checkEqual(rows.map(\.0.name), ["Ann", "Bob", "Cid", "Dee"], "every member")
            try checkEqual(rows.map(\.1), [1, 2, 1, 0], "projects reached through memberships")
            let teams = try await ConfMember.query(on: db).order(\.id).all(with: .count(ConfMember.team))
            try checkEqual(teams.map(\.1), [1, 1, 1, 0], "a belongs-to counts 1 or 0")
            let reports = try await ConfMember.query(on: db).having(.count(ConfMember.reports) > 0).all(
                with: .count(ConfMember.reports), .min(ConfMember.reports, of: \.name))
            try checkEqual(reports.map(\.0.id), [world.ann.id], "Ann manages Bob")
            try checkEqual(reports.map(\.2), ["Bob"], "through the same table under an alias")
        },
        ConformanceCase("assoc-aggregate.sum-past-int64-is-typed-error") { db in
            try await seedBlogs(db)
            try await ConfEntry.query(on: db).where(\.title == "a1" || \.title == "a2").set(\.votes, to: .max).update()
            try await checkThrows(
                "a sum of related rows past Int64",
                { if case .arithmeticError(let e, _) = $0 { e.contains("votes") } else { false } }
            ) {
                try await ConfBlog.query(on: db).all(with: .sum(ConfBlog.entries, of: \.votes))
            }
            let fits = try await ConfBlog.query(on: db).where(\.name != "alpha").order(\.id).all(
                with: .sum(ConfBlog.entries, of: \.votes))
            try checkEqual(fits.map(\.1), [10, nil, nil], "the other blogs still sum")
        },
        ConformanceCase("assoc-aggregate.refusals-name-the-part") { db in
            try await seedBlogs(db)
            _ = try await Fixtures.seedWorld(db)
            try await checkThrows(
                "aggregates of two associations",
                { isInvalidQuery($0, naming: "conf_membership", "conf_member.manager_id", "multiply") }
            ) {
                try await ConfMember.query(on: db).all(with: .count(ConfMember.projects), .count(ConfMember.reports))
            }
            try await checkThrows(
                "models without their aggregates",
                { if case .invalidAggregate("ConfBlog", _, let r) = $0 { r.contains("all(with:") } else { false } }
            ) {
                try await ConfBlog.query(on: db).having(.count(ConfBlog.entries) > 1).all()
            }
            try await checkThrows(
                "a grouped query",
                { isInvalidQuery($0, naming: "hasMany conf_entry.conf_blog_id", "group(by:)") }
            ) {
                try await ConfBlog.query(on: db).group(by: \.name).all(with: .count(ConfBlog.entries))
            }
            try await checkThrows(
                "a key path that names no column",
                { if case .unknownColumn("ConfEntry", _) = $0 { true } else { false } }
            ) {
                try await ConfBlog.query(on: db).all(with: .sum(ConfBlog.entries, of: \.title.count))
            }
        },
    ]
}
