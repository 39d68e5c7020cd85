// Cases+Windows: window functions (ROW_NUMBER, RANK, DENSE_RANK, LAG, LEAD) over partitions and orders, alike.
import Foundation
import Strata

extension ConformanceSuite {
    static let windowCases: [ConformanceCase] = [
        ConformanceCase("window.row-number-per-partition-null-region-one-partition") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).order(\.id).select(
                .column(\.id), .rowNumber(over: .partition(by: \.region).order(\.quantity, .descending).order(\.id)))
            try checkEqual(rows.map(\.0), [1, 2, 3, 4, 5, 6, 7].map { Int64?($0) }, "every sale, by id")
            // north 5 > 3, south 7 > 2, the two without a region 4 > 1 (NULL is one partition), east alone.
            try checkEqual(rows.map(\.1), [2, 1, 2, 1, 2, 1, 1], "numbered within each region, largest first")
        },
        ConformanceCase("window.rank-and-dense-rank-give-peers-one-number") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).order(\.id).select(
                .column(\.product), .rank(over: .order(\.product)), .denseRank(over: .order(\.product)))
            try checkEqual(
                rows.map(\.0), ["apple", "pear", "apple", "fig", "apple", "kiwi", "pear"], "the products, by id")
            try checkEqual(rows.map(\.1), [1, 6, 1, 4, 1, 5, 6], "RANK skips after the three apples and the figs")
            try checkEqual(rows.map(\.2), [1, 4, 1, 2, 1, 3, 4], "DENSE_RANK skips nothing")
        },
        ConformanceCase("window.order-puts-nulls-first-ascending-last-descending") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).order(\.id).select(
                .rank(over: .order(\.weight)), .rank(over: .order(\.weight, .descending)))
            // Weights by id: 0.5, nil, 1.5, 2.0, nil, 3.25, 0.25.
            try checkEqual(rows.map(\.0), [4, 1, 5, 6, 1, 7, 3], "ascending: the two NULLs first, tied")
            try checkEqual(rows.map(\.1), [4, 6, 3, 2, 6, 1, 5], "descending: the two NULLs last, tied")
        },
        ConformanceCase("window.text-orders-by-code-point-within-a-bool-partition") { db in
            try await Fixtures.seedUsers(db)
            let rows = try await ConfUser.query(on: db).order(\.id).select(
                .column(\.name), .rowNumber(over: .partition(by: \.active).order(\.name, .descending)))
            try checkEqual(
                rows.map(\.0), ["Alex", "Alice", "Zoe", "_under", "bob", "émile"], "the people, by id")
            // Active: bob > _under > Zoe > Alex by code point; inactive: émile > Alice.
            try checkEqual(rows.map(\.1), [4, 2, 3, 2, 1, 1], "numbered by code point, descending, per partition")
        },
        ConformanceCase("window.computed-after-where-before-limit-into-decodable-rows") { db in
            struct Numbered: Decodable, Equatable {
                let id: Int64
                let byQuantity: Int
            }
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).where(\.quantity > 1).order(\.id).limit(3).select(
                as: Numbered.self, .column(\.id), .rowNumber(over: .order(\.quantity)).as("byQuantity"))
            // Quantities over 1 by id: 3, 5, 2, 4, (sale 5 filtered out), 7, 6; the window numbers all six.
            try checkEqual(
                rows, [Numbered(id: 1, byQuantity: 2), Numbered(id: 2, byQuantity: 4), Numbered(id: 3, byQuantity: 1)],
                "numbers over the filtered rows, then the first three by id")
        },
        ConformanceCase("window.rows-ordered-by-an-expression") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).order(\.quantity * 2, .descending).select(
                .column(\.id), .rowNumber(over: .order(\.id)))
            // Quantities by id: 3, 5, 2, 4, 1, 7, 6; the numbers follow the ids, the rows the doubled quantity.
            try checkEqual(rows.map(\.0), [6, 7, 2, 4, 1, 3, 5].map { Int64?($0) }, "ordered by quantity * 2")
            try checkEqual(rows.map(\.1), [6, 7, 2, 4, 1, 3, 5], "each numbered by its id")
        },
        ConformanceCase("window.lag-and-lead-within-partitions-with-bound-defaults") { db in
            try await seedSales(db)
            let byRegion = WindowDefinition<ConfSale>.partition(by: \.region).order(\.id)
            let rows = try await ConfSale.query(on: db).order(\.id).select(
                .lag(\.quantity, over: byRegion), .lead(\.quantity, default: 0, over: byRegion),
                .lag(\.weight, offset: 2, over: .order(\.id)), .lag(\.product, offset: 0, over: .order(\.id)),
                .lead(\.region, default: "none", over: .order(\.id)))
            // Regions by id: north, north, south, nil, nil, south, east; quantities 3, 5, 2, 4, 1, 7, 6.
            try checkEqual(rows.map(\.0), [nil, 3, nil, nil, 4, 2, nil], "LAG: the previous sale of the region")
            try checkEqual(rows.map(\.1), [5, 0, 7, 1, 0, 0, 0], "LEAD: the next one, or the bound default 0")
            try checkEqual(
                rows.map(\.2), [nil, nil, 0.5, nil, 1.5, 2.0, nil], "LAG by 2: NULL weights read as NULL, then none")
            try checkEqual(
                rows.map(\.3), ["apple", "pear", "apple", "fig", "apple", "kiwi", "pear"], "LAG by 0: the row's own")
            try checkEqual(
                rows.map(\.4), ["north", "south", nil, nil, "south", "east", "none"], "LEAD of text, a text default")
        },
        ConformanceCase("window.bound-negative-zero-default-reads-as-zero") { db in
            // Found by the differential fuzzer (seed 26051): a -0.0 bound straight into the AST (the typed API writes
            // 0.0 already) came back as -0.0 on memory and SQLite and as 0.0 on PostgreSQL, which sends it as "0".
            // Every driver binds it as 0.0 now, as it stores it.
            try await seedSales(db)
            let lag = WindowFunction(
                .lag, ColumnRef("weight"), offset: 100, default: .double(-0.0), order: [Ordering("id")])
            let select = Select(table: "conf_sale", selection: .items([.window(lag)]), order: [Ordering("id")])
            let signs = try await db.withConnection { tx in
                var out: [String] = []
                _ = try tx.execute(.select(select)) { r in
                    if case .double(let d) = r.value(at: 0) { out.append(d.sign == .minus ? "-0.0" : "\(d)") }
                }
                return out
            }
            try checkEqual(signs, Array(repeating: "0.0", count: 7), "every row's default, without a sign")
        },
        ConformanceCase("window.lag-of-a-decimal-is-exact") { db in
            try await seedSales(db)
            let prices = try await ConfSale.query(on: db).order(\.id).select(.lag(\.price, over: .order(\.id)))
            let digits: [String?] = [nil, "1.10", "2.25", "1.10", "0.10", "0.20", "12345678901234567.89"]
            let expected = digits.map { $0.flatMap { Decimal(string: $0) } }
            try checkEqual(prices, expected, "the previous sale's price, all 19 digits kept")
        },
        ConformanceCase("window.top-n-per-partition-through-a-with-query") { db in
            try await seedSales(db)
            let best = ConfSale.query(on: db).where(\.product != "kiwi")
                .top(1, over: .partition(by: \.region).order(\.quantity, .descending).order(\.id))
            // Without the kiwi (south, 7) the south's best is sale 3; NULL regions are one partition.
            try checkEqual(try await best.order(\.id).all().map(\.id), [2, 3, 4, 7], "the best sale of each region")
            try checkEqual(try await best.order(\.id).limit(2).all().map(\.id), [2, 3], "then ordered and limited")
            try checkEqual(try await best.count(), 4, "and counted")
            try await Fixtures.seedUsers(db)
            let oldest = try await ConfUser.query(on: db)
                .top(2, over: .partition(by: \.active).order(\.age, .descending), withTies: true).order(\.name)
                .values(\.name)
            // Active: Zoe 41, then Alex and _under tied at 30 (both kept); inactive: émile 19, then Alice (NULL last).
            try checkEqual(oldest, ["Alex", "Alice", "Zoe", "_under", "émile"], "ties with the second kept")
        },
        ConformanceCase("window.refusals-name-the-part") { db in
            try await seedSales(db)
            try await checkThrows(
                "a window in a grouped select",
                { isInvalidQuery($0, naming: "rank() over (order by region)", "grouped") }
            ) {
                try await ConfSale.query(on: db).group(by: \.region).select(
                    .column(\.region), .rank(over: .order(\.region)))
            }
            try await checkThrows(
                "a window beside an aggregate", { isInvalidQuery($0, naming: "row_number() over ()", "aggregate") }
            ) {
                try await ConfSale.query(on: db).select(.count(), .rowNumber(over: .all))
            }
            try await checkThrows(
                "ordering rows by a window", { isInvalidQuery($0, naming: "ORDER BY dense_rank()", "WITH query") }
            ) {
                try await ConfSale.query(on: db).order(.denseRank(over: .order(\.id)), .descending)
                    .select(.column(\.id))
            }
            try await checkThrows("top with a negative n", { isInvalidQuery($0, naming: "top(-1", "ConfSale") }) {
                try await ConfSale.query(on: db).top(-1, over: .order(\.id)).all()
            }
            try await checkThrows(
                "LAG with a negative offset", { isInvalidQuery($0, naming: "lag(quantity, -1)", "0 or more") }
            ) {
                try await ConfSale.query(on: db).select(.lag(\.quantity, offset: -1, over: .order(\.id)))
            }
            try await checkThrows(
                "a window over a key path that is no column",
                { if case .unknownColumn(let model, _) = $0 { model == "ConfSale" } else { false } }
            ) {
                try await ConfSale.query(on: db).select(.rank(over: .order(\.product.count)))
            }
        },
    ]
}
