// Cases+Aggregates: count/sum/avg/min/max, group by with having and order, distinct: the same answers everywhere.
import Foundation
import Strata

/// A grouped row decoded by key (`total` and `n` named with `as(_:)`; `region` found by its column).
private struct RegionTotal: Decodable, Equatable {
    var region: String?
    var total: Int64?
    var n: Int
}

extension ConformanceSuite {
    static let aggregateCases: [ConformanceCase] = aggregateTerminalCases + groupCases + distinctCases

    private static let aggregateTerminalCases: [ConformanceCase] = [
        ConformanceCase("aggregate.count-column-skips-nulls") { db in
            try await seedSales(db)
            try checkEqual(try await ConfSale.query(on: db).count(), 7, "count() counts rows")
            try checkEqual(try await ConfSale.query(on: db).count(\.weight), 5, "count(\\.weight) skips NULL")
            try checkEqual(try await ConfSale.query(on: db).count(\.region), 5, "count(\\.region) skips NULL")
        },
        ConformanceCase("aggregate.count-distinct") { db in
            try await seedSales(db)
            try checkEqual(try await ConfSale.query(on: db).count(distinct: \.product), 4, "four products")
            try checkEqual(try await ConfSale.query(on: db).count(distinct: \.region), 3, "NULL is not a region")
        },
        ConformanceCase("aggregate.sum-of-integers-is-int64") { db in
            try await seedSales(db)
            let total: Int64? = try await ConfSale.query(on: db).sum(\.quantity)
            try checkEqual(total, 28, "sum(int) is an Int64 (PostgreSQL's numeric read back as one)")
            let north: Int64? = try await ConfSale.query(on: db).where(\.region == "north").sum(\.quantity)
            try checkEqual(north, 8, "sum respects the filter")
        },
        ConformanceCase("aggregate.sum-of-decimals-is-exact") { db in
            try await seedSales(db)
            let total: Decimal? = try await ConfSale.query(on: db).sum(\.price)
            try checkEqual(total, decimal("12345678901234572.94"), "20 digits summed exactly")
            let small = try await ConfSale.query(on: db).where(\.price < decimal("0.25")).sum(\.price)
            try checkEqual(small, decimal("0.3"), "0.1 + 0.2 = 0.3 exactly")
        },
        ConformanceCase("aggregate.sum-of-doubles") { db in
            try await seedSales(db)
            let total: Double? = try await ConfSale.query(on: db).sum(\.weight)
            try checkEqual(total, 7.5, "sum of doubles skips NULL")
        },
        ConformanceCase("aggregate.avg-of-integers-is-double") { db in
            try await seedSales(db)
            let avg: Double? = try await ConfSale.query(on: db).where(\.quantity, in: [1, 2]).avg(\.quantity)
            try checkEqual(avg, 1.5, "avg(1, 2) is 1.5, not 1")
            try checkEqual(try await ConfSale.query(on: db).where(\.product == "pear").avg(\.quantity), 5.5, "pears")
        },
        ConformanceCase("aggregate.avg-of-decimals-is-double") { db in
            try await seedSales(db)
            let avg = try await ConfSale.query(on: db).where(\.price < decimal("2")).avg(\.price)
            try check(
                avg.map { abs($0 - 0.56) < 1e-12 } ?? false, "avg of 1.10, 1.10, 0.10, 0.20, 0.30 ≈ 0.56: \(text(avg))")
        },
        ConformanceCase("aggregate.empty-input-gives-nil") { db in
            try await seedSales(db)
            let none = ConfSale.query(on: db).where(\.quantity > 100)
            try checkEqual(try await none.sum(\.quantity), nil, "sum of nothing")
            try checkEqual(try await none.sum(\.price), nil, "decimal sum of nothing")
            try checkEqual(try await none.avg(\.quantity), nil, "avg of nothing")
            try checkEqual(try await none.min(\.soldAt), nil, "min of nothing")
            try checkEqual(try await none.max(\.product), nil, "max of nothing")
            try checkEqual(try await none.count(\.product), 0, "count of nothing is 0")
        },
        ConformanceCase("aggregate.all-null-gives-nil") { db in
            try await seedSales(db)
            let noWeight = ConfSale.query(on: db).where(\.weight == nil)
            try checkEqual(try await noWeight.count(), 2, "two sales without weight")
            try checkEqual(try await noWeight.sum(\.weight), nil, "sum of NULLs is nil")
            try checkEqual(try await noWeight.max(\.weight), nil, "max of NULLs is nil")
        },
        ConformanceCase("aggregate.min-max-of-dates") { db in
            try await seedSales(db)
            let first: Date? = try await ConfSale.query(on: db).min(\.soldAt)
            let last: Date? = try await ConfSale.query(on: db).max(\.soldAt)
            try checkEqual(first, firstSale, "earliest sale")
            try checkEqual(last, firstSale.addingTimeInterval(60), "latest sale")
        },
        ConformanceCase("aggregate.min-max-of-text-by-code-point") { db in
            try await seedSales(db)
            var upper = ConfSale(region: "Zulu", product: "Zed", quantity: 1, price: 1, weight: nil, soldAt: firstSale)
            try await upper.save(on: db)
            let first: String? = try await ConfSale.query(on: db).min(\.product)
            try checkEqual(first, "Zed", "'Z' (U+005A) sorts before 'a'")
            try checkEqual(try await ConfSale.query(on: db).max(\.region), "south", "max of an optional column")
            try checkEqual(try await ConfSale.query(on: db).min(\.region), "Zulu", "NULL is never the min")
        },
        ConformanceCase("aggregate.min-max-of-decimals-by-value") { db in
            try await seedSales(db)
            try checkEqual(try await ConfSale.query(on: db).min(\.price), decimal("0.10"), "smallest price")
            try checkEqual(
                try await ConfSale.query(on: db).max(\.price), decimal("12345678901234567.89"),
                "largest price by value (as text, 2.25 would win)")
        },
        ConformanceCase("aggregate.sum-past-int64-is-typed-error") { db in
            try await seedSales(db)
            try await ConfSale.query(on: db).where(\.product == "kiwi").set(\.big, to: .max).update()
            try await ConfSale.query(on: db).where(\.product == "fig").set(\.big, to: 1).update()
            try await checkThrows(
                "sum past Int64", { if case .arithmeticError(let e, _) = $0 { e.contains("big") } else { false } }
            ) {
                try await ConfSale.query(on: db).sum(\.big)
            }
            try await checkThrows("grouped sum past Int64", { if case .arithmeticError = $0 { true } else { false } }) {
                try await ConfSale.query(on: db).group(by: \.flag).select(.column(\.flag), .sum(\.big))
            }
            try checkEqual(try await ConfSale.query(on: db).count(), 7, "the failed sum changed nothing")
            let fits: Int64? = try await ConfSale.query(on: db).where(\.product != "fig").sum(\.big)
            try checkEqual(fits, .max, "Int64.max alone still sums")
        },
        ConformanceCase("aggregate.respects-joins-and-filters") { db in
            _ = try await seedJoinWorld(db)
            let reds = ConfMember.query(on: db).join(ConfMember.team).where(ConfMember.team, \.title == "red")
            try checkEqual(try await reds.count(\.name), 2, "members of red")
            try checkEqual(try await reds.max(\.name), "Bob", "max over the join")
            try checkEqual(try await reds.count(distinct: \.confTeamID), 1, "one team")
        },
        ConformanceCase("aggregate.respects-soft-delete") { db in
            _ = try await seedFolder(db, "one")
            let two = try await seedFolder(db, "two")
            _ = try await seedFolder(db, "three")
            _ = try await two.delete(on: db)
            try checkEqual(try await ConfFolder.query(on: db).count(\.name), 2, "a soft-deleted row is not counted")
            try checkEqual(try await ConfFolder.query(on: db).max(\.name), "three", "nor a candidate for max")
            try checkEqual(try await ConfFolder.query(on: db).withDeleted().count(\.name), 3, "withDeleted counts it")
            try checkEqual(try await ConfFolder.query(on: db).onlyDeleted().min(\.name), "two", "onlyDeleted")
        },
        ConformanceCase("aggregate.non-numeric-or-unordered-column-is-typed-error") { db in
            try await seedSales(db)
            try await checkThrows(
                "sum of text",
                { error in
                    if case .invalidAggregate("ConfSale", "sku", _) = error { true } else { false }
                }
            ) { try await ConfSale.query(on: db).sum(\.sku) }
            try await checkThrows(
                "avg of text",
                { error in
                    if case .invalidAggregate("ConfSale", "sku", _) = error { true } else { false }
                }
            ) { try await ConfSale.query(on: db).avg(\.sku) }
            try await checkThrows(
                "min of a bool",
                { error in
                    if case .invalidAggregate("ConfSale", "flag", _) = error { true } else { false }
                }
            ) { try await ConfSale.query(on: db).min(\.flag) }
            try await Fixtures.migrate(db)
            try await checkThrows(
                "max of a UUID (PostgreSQL has no max(uuid))",
                { error in
                    if case .invalidAggregate("ConfValue", "uuid", _) = error { true } else { false }
                }
            ) { try await ConfValue.query(on: db).max(\.uuid) }
            try checkEqual(try await ConfSale.query(on: db).count(), 7, "nothing changed")
        },
        ConformanceCase("aggregate.sum-of-own-summable-type") { db in
            try await Fixtures.migrate(db)
            for cents: Int64 in [150, 250, -25] {
                var v = ConfValue()
                v.price = ConfMoney(cents: cents)
                try await v.save(on: db)
            }
            let total: Int64? = try await ConfValue.query(on: db).sum(\.price)
            try checkEqual(total, 375, "money stored as integer cents sums as Int64")
        },
    ]

    private static let groupCases: [ConformanceCase] = [
        ConformanceCase("group.by-column-null-forms-one-group-first") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).group(by: \.region).order(\.region)
                .select(.column(\.region), .count(), .sum(\.quantity))
            try checkEqual(
                rows.map { "\(text($0.0)):\($0.1):\(text($0.2))" }, ["nil:2:5", "east:1:6", "north:2:8", "south:2:9"],
                "NULL is one group, first ascending")
        },
        ConformanceCase("group.null-group-last-descending") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).group(by: \.region).order(\.region, .descending)
                .select(.column(\.region), .count())
            try checkEqual(rows.map { text($0.0) }, ["south", "north", "east", "nil"], "NULL group last descending")
        },
        ConformanceCase("group.by-two-columns") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).group(by: \.region, \.product).order(\.region).order(\.product)
                .select(.column(\.region), .column(\.product), .sum(\.quantity))
            try checkEqual(
                rows.map { "\(text($0.0))/\($0.1)=\(text($0.2))" },
                [
                    "nil/apple=1", "nil/fig=4", "east/pear=6", "north/apple=3", "north/pear=5", "south/apple=2",
                    "south/kiwi=7",
                ],
                "one group per pair")
        },
        ConformanceCase("group.having-on-count-and-sum") { db in
            try await seedSales(db)
            let pairs = try await ConfSale.query(on: db).group(by: \.region).having(.count() >= 2).order(\.region)
                .select(.column(\.region))
            try checkEqual(pairs.map { text($0) }, ["nil", "north", "south"], "groups of two or more")
            let big = try await ConfSale.query(on: db).group(by: \.region).having(.sum(\.quantity) > 8)
                .select(.column(\.region), .sum(\.quantity))
            try checkEqual(big.map { "\(text($0.0))=\(text($0.1))" }, ["south=9"], "sum above 8")
        },
        ConformanceCase("group.having-and-or-not") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).group(by: \.region)
                .having(.count() >= 2 && !(.sum(\.quantity) > 8)).order(\.region)
                .select(.column(\.region), .sum(\.quantity))
            try checkEqual(rows.map { "\(text($0.0))=\(text($0.1))" }, ["nil=5", "north=8"], "AND with NOT")
            let either = try await ConfSale.query(on: db).group(by: \.region)
                .having(.max(\.quantity) == 7 || .min(\.weight) == nil).order(\.region).select(.column(\.region))
            try checkEqual(either.map { text($0) }, ["south"], "OR; min(weight) == nil is IS NULL (north has 0.5)")
        },
        ConformanceCase("group.having-null-aggregate-is-unknown") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).where(\.weight == nil).group(by: \.region)
                .having(.sum(\.weight) > -1.0).select(.column(\.region))
            try checkEqual(rows.count, 0, "a NULL sum compared with a number keeps no group")
            let negated = try await ConfSale.query(on: db).where(\.weight == nil).group(by: \.region)
                .having(!(.sum(\.weight) > -1.0)).select(.column(\.region))
            try checkEqual(negated.count, 0, "NOT unknown is unknown")
        },
        ConformanceCase("group.order-by-aggregate") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).group(by: \.region).order(.sum(\.quantity), .descending)
                .select(.column(\.region), .sum(\.quantity))
            try checkEqual(
                rows.map { "\(text($0.0))=\(text($0.1))" }, ["south=9", "north=8", "east=6", "nil=5"], "by total, desc")
            let byAvg = try await ConfSale.query(on: db).group(by: \.product).order(.avg(\.quantity)).order(\.product)
                .select(.column(\.product), .avg(\.quantity))
            try checkEqual(byAvg.map(\.0), ["apple", "fig", "pear", "kiwi"], "by average ascending (2, 4, 5.5, 7)")
            try checkEqual(byAvg.map { text($0.1) }, ["2.0", "4.0", "5.5", "7.0"], "averages are doubles")
        },
        ConformanceCase("group.limit-and-offset-page-groups") { db in
            try await seedSales(db)
            let page = try await ConfSale.query(on: db).group(by: \.region).order(\.region).limit(2).offset(1)
                .select(.column(\.region), .count())
            try checkEqual(page.map { text($0.0) }, ["east", "north"], "the second and third groups")
        },
        ConformanceCase("group.by-joined-column") { db in
            _ = try await seedJoinWorld(db)
            let rows = try await ConfMember.query(on: db).join(ConfMember.team).group(by: ConfMember.team, \.title)
                .order(ConfMember.team, \.title).select(.column(ConfMember.team, \.title), .count(), .min(\.name))
            try checkEqual(rows.map { "\($0.0):\($0.1):\(text($0.2))" }, ["blue:1:Cid", "red:2:Ann"], "per team")
        },
        ConformanceCase("group.count-over-left-join") { db in
            _ = try await seedJoinWorld(db)
            let rows = try await ConfTeam.query(on: db).join(ConfTeam.members, .left).group(by: \.title).order(\.title)
                .select(.column(\.title), .count(ConfTeam.members, \.name), .max(ConfTeam.members, \.name))
            try checkEqual(
                rows.map { "\($0.0):\($0.1):\(text($0.2))" }, ["blue:1:Cid", "green:0:nil", "red:2:Bob"],
                "a team with no member counts 0 and has no max")
        },
        ConformanceCase("group.decodable-rows") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).group(by: \.region).order(\.region)
                .select(as: RegionTotal.self, .column(\.region), .sum(\.quantity).as("total"), .count().as("n"))
            try checkEqual(
                rows,
                [
                    RegionTotal(region: nil, total: 5, n: 2), RegionTotal(region: "east", total: 6, n: 1),
                    RegionTotal(region: "north", total: 8, n: 2), RegionTotal(region: "south", total: 9, n: 2),
                ], "rows decoded by key")
        },
        ConformanceCase("group.having-and-order-on-decimal-aggregates-compare-numbers") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).group(by: \.region).having(.max(\.price) > decimal("3"))
                .select(.column(\.region))
            try checkEqual(rows.map { text($0) }, ["south"], "12345678901234567.89 > 3 (as text it would not be)")
            let ordered = try await ConfSale.query(on: db).group(by: \.region).order(.sum(\.price)).order(\.region)
                .select(.column(\.region), .sum(\.price))
            try checkEqual(
                ordered.map { text($0.0) }, ["nil", "east", "north", "south"], "sums ordered by value, not as text")
        },
        ConformanceCase("group.decimal-sum-per-group-is-exact") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).group(by: \.region).order(\.region)
                .select(.column(\.region), .sum(\.price))
            try checkEqual(
                rows.map { text($0.1) }, ["0.3", "0.3", "3.35", "12345678901234568.99"], "decimal sums per region")
        },
        ConformanceCase("group.dates-per-group") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).group(by: \.product).order(\.product)
                .select(.column(\.product), .min(\.soldAt), .max(\.soldAt))
            let offsets = rows.map { r in
                "\(r.0):\(text(r.1.map { $0.timeIntervalSince(firstSale) })):\(text(r.2.map { $0.timeIntervalSince(firstSale) }))"
            }
            try checkEqual(offsets, ["apple:0.0:40.0", "fig:30.0:30.0", "kiwi:50.0:50.0", "pear:10.0:60.0"], "dates")
        },
        ConformanceCase("group.whole-query-aggregates-in-one-row") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).where(\.region == "north")
                .select(.count(), .sum(\.quantity), .avg(\.quantity), .min(\.soldAt), .max(\.product))
            try checkEqual(rows.count, 1, "one row without group(by:)")
            let r = rows[0]
            try checkEqual(
                "\(r.0) \(text(r.1)) \(text(r.2)) \(text(r.3 == firstSale)) \(text(r.4))", "2 8 4.0 true pear", "row")
            let empty = try await ConfSale.query(on: db).where(\.quantity > 100).select(.count(), .sum(\.quantity))
            try checkEqual(empty.map { "\($0.0) \(text($0.1))" }, ["0 nil"], "one row even over no rows")
            let grouped = try await ConfSale.query(on: db).where(\.quantity > 100).group(by: \.region)
                .select(.column(\.region), .count())
            try checkEqual(grouped.count, 0, "no groups over no rows")
        },
        ConformanceCase("group.having-without-group-is-typed-error") { db in
            try await seedSales(db)
            try await checkThrows(
                "having without group(by:)",
                { error in
                    if case .invalidAggregate("ConfSale", "sum(quantity)", _) = error { true } else { false }
                }
            ) { try await ConfSale.query(on: db).having(.sum(\.quantity) > 1).select(.sum(\.quantity)) }
            try checkEqual(try await ConfSale.query(on: db).count(), 7, "nothing changed")
        },
        ConformanceCase("group.ungrouped-column-is-typed-error") { db in
            try await seedSales(db)
            try await checkThrows(
                "a column neither grouped nor aggregated",
                { error in
                    if case .invalidAggregate("ConfSale", "product", _) = error { true } else { false }
                }
            ) { try await ConfSale.query(on: db).group(by: \.region).select(.column(\.region), .column(\.product)) }
            try await checkThrows(
                "ordered by a column not grouped",
                { error in
                    if case .invalidAggregate("ConfSale", "quantity", _) = error { true } else { false }
                }
            ) { try await ConfSale.query(on: db).group(by: \.region).order(\.quantity).select(.column(\.region)) }
            try await checkThrows(
                "a model from a grouped query",
                { error in
                    if case .invalidAggregate("ConfSale", "region", _) = error { true } else { false }
                }
            ) { try await ConfSale.query(on: db).group(by: \.region).all() }
            try await checkThrows(
                "delete() of a grouped query",
                { if case .invalidQuery = $0 { true } else { false } }
            ) { try await ConfSale.query(on: db).group(by: \.region).delete() }
            try checkEqual(try await ConfSale.query(on: db).count(), 7, "nothing changed")
        },
    ]

    private static let distinctCases: [ConformanceCase] = [
        ConformanceCase("distinct.values-of-a-column") { db in
            try await seedSales(db)
            let products = try await ConfSale.query(on: db).distinct().order(\.product).values(\.product)
            try checkEqual(products, ["apple", "fig", "kiwi", "pear"], "each product once, in order")
        },
        ConformanceCase("distinct.values-with-null-once") { db in
            try await seedSales(db)
            let regions = try await ConfSale.query(on: db).distinct().order(\.region).values(\.region)
            try checkEqual(regions.map { text($0) }, ["nil", "east", "north", "south"], "NULL once, first")
        },
        ConformanceCase("distinct.models-of-a-join") { db in
            _ = try await seedJoinWorld(db)
            let joined = ConfTeam.query(on: db).join(ConfTeam.members)
            try checkEqual(try await joined.all().count, 3, "the join repeats red per member")
            let teams = try await joined.distinct().order(\.title).all()
            try checkEqual(teams.map(\.title), ["blue", "red"], "each team once")
            try checkEqual(try await joined.distinct().count(), 2, "distinct().count() counts teams")
        },
        ConformanceCase("distinct.tuples") { db in
            try await seedSales(db)
            let pairs = try await ConfSale.query(on: db).where(\.product != "kiwi").distinct().order(\.product)
                .select(.column(\.product))
            try checkEqual(pairs, ["apple", "fig", "pear"], "distinct single items")
            let twos = try await ConfSale.query(on: db).distinct().order(\.product).order(\.flag)
                .select(.column(\.product), .column(\.flag))
            try checkEqual(
                twos.map { "\($0.0)/\($0.1)" }, ["apple/false", "fig/false", "kiwi/false", "pear/false"], "pairs")
        },
        ConformanceCase("distinct.order-by-unselected-is-typed-error") { db in
            try await seedSales(db)
            try await checkThrows(
                "distinct ordered by a column it does not select",
                { error in
                    if case .invalidAggregate("ConfSale", "quantity", _) = error { true } else { false }
                }
            ) { try await ConfSale.query(on: db).distinct().order(\.quantity).select(.column(\.product)) }
            try checkEqual(try await ConfSale.query(on: db).count(), 7, "nothing changed")
        },
    ]
}
