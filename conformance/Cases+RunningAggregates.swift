// Cases+RunningAggregates: running SUM, AVG, COUNT, MIN and MAX over a window, with the aggregates' own rules.
import Foundation
import Strata

extension ConformanceSuite {
    static let runningAggregateCases: [ConformanceCase] = [
        ConformanceCase("window.running-sum-avg-count-per-partition") { db in
            try await seedSales(db)
            let byRegion = WindowDefinition<ConfSale>.partition(by: \.region).order(\.id)
            let rows = try await ConfSale.query(on: db).order(\.id).select(
                .sum(\.quantity, over: byRegion), .avg(\.quantity, over: byRegion), .count(over: byRegion),
                .count(\.weight, over: byRegion))
            // Regions by id: north, north, south, nil, nil, south, east; quantities 3, 5, 2, 4, 1, 7, 6.
            try checkEqual(rows.map(\.0), [3, 8, 2, 4, 5, 9, 6].map { Int64?($0) }, "the running total per region")
            try checkEqual(rows.map(\.1), [3, 4, 2, 4, 2.5, 4.5, 6].map { Double?($0) }, "the running mean, a double")
            try checkEqual(rows.map(\.2), [1, 2, 1, 1, 2, 2, 1], "the rows so far")
            try checkEqual(rows.map(\.3), [1, 1, 1, 1, 1, 2, 1], "the weights so far, NULLs not counted")
        },
        ConformanceCase("window.running-total-and-whole-partition-frames") { db in
            try await seedSales(db)
            let rows = try await ConfSale.query(on: db).where(\.quantity > 1).order(\.id).select(
                .column(\.id), .sum(\.quantity, over: .order(\.id)), .sum(\.quantity, over: .partition(by: \.region)),
                .count(over: .all))
            // Quantities over 1 by id: 3, 5, 2, 4, 7, 6 (sale 5 filtered out before the window).
            try checkEqual(rows.map(\.0), [1, 2, 3, 4, 6, 7].map { Int64?($0) }, "the sales over 1")
            try checkEqual(rows.map(\.1), [3, 8, 10, 14, 21, 27].map { Int64?($0) }, "up to each row, by id")
            try checkEqual(
                rows.map(\.2), [8, 8, 9, 4, 9, 6].map { Int64?($0) }, "no order: the whole region on every row")
            try checkEqual(rows.map(\.3), [6, 6, 6, 6, 6, 6], "one partition, no order: every row counts all")
        },
        ConformanceCase("window.running-peers-are-added-one-by-one") { db in
            try await seedSales(db)
            // Products in order: apple (1, 3, 5), fig 4, kiwi 6, pear (2, 7): peers within a product by id.
            let rows = try await ConfSale.query(on: db).order(\.id).select(
                .count(over: .order(\.product).order(\.id)), .sum(\.quantity, over: .order(\.product).order(\.id)))
            try checkEqual(rows.map(\.0), [1, 6, 2, 4, 3, 5, 7], "ROWS frame: each apple counted when reached")
            try checkEqual(rows.map(\.1), [3, 22, 5, 10, 6, 17, 28].map { Int64?($0) }, "the total so far")
        },
        ConformanceCase("window.running-decimals-are-exact-and-ordered-by-value") { db in
            try await seedSales(db)
            let byID = WindowDefinition<ConfSale>.order(\.id)
            let rows = try await ConfSale.query(on: db).order(\.id).select(
                .sum(\.price, over: byID), .max(\.price, over: byID), .min(\.price, over: byID))
            let sums = ["1.10", "3.35", "4.45", "4.55", "4.75", "12345678901234572.64", "12345678901234572.94"]
            try checkEqual(rows.map(\.0), sums.map { Optional(decimal($0)) }, "every digit of the running total")
            let maxima = ["1.10", "2.25", "2.25", "2.25", "2.25", "12345678901234567.89", "12345678901234567.89"]
            try checkEqual(rows.map(\.1), maxima.map { Optional(decimal($0)) }, "the largest so far, by value")
            let minima = ["1.10", "1.10", "1.10", "0.10", "0.10", "0.10", "0.10"]
            try checkEqual(rows.map(\.2), minima.map { Optional(decimal($0)) }, "the smallest so far")
        },
        ConformanceCase("window.running-doubles-skip-nulls") { db in
            try await seedSales(db)
            let byID = WindowDefinition<ConfSale>.order(\.id)
            let rows = try await ConfSale.query(on: db).order(\.id).select(
                .sum(\.weight, over: byID), .avg(\.weight, over: byID), .min(\.weight, over: byID),
                .sum(\.weight, over: .partition(by: \.product).order(\.id)))
            // Weights by id: 0.5, nil, 1.5, 2.0, nil, 3.25, 0.25.
            try checkEqual(rows.map(\.0), [0.5, 0.5, 2.0, 4.0, 4.0, 7.25, 7.5], "the running total of doubles")
            try checkEqual(rows.map(\.1), [0.5, 0.5, 1.0, 4.0 / 3, 4.0 / 3, 1.8125, 1.5], "the running mean")
            try checkEqual(rows.map(\.2), [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25], "the smallest so far")
            // Pears: 2 (nil) then 7 (0.25): NULL until a value.
            try checkEqual(rows.map(\.3), [0.5, nil, 2.0, 2.0, 2.0, 3.25, 0.25], "per product, nil before a value")
        },
        ConformanceCase("window.running-sum-past-int64-is-typed-error") { db in
            try await seedSales(db)
            try await ConfSale.query(on: db).where(\.product == "kiwi").set(\.big, to: .max).update()
            try await ConfSale.query(on: db).where(\.product == "fig").set(\.big, to: 1).update()
            try await checkThrows(
                "running sum past Int64",
                { if case .arithmeticError(let e, _) = $0 { e.contains("sum(big)") } else { false } }
            ) {
                try await ConfSale.query(on: db).select(.column(\.id), .sum(\.big, over: .order(\.id)))
            }
            try await checkThrows(
                "whole-partition sum past Int64", { if case .arithmeticError = $0 { true } else { false } }
            ) {
                try await ConfSale.query(on: db).select(.column(\.id), .sum(\.big, over: .all))
            }
            // Apart, in two regions (fig has none), each total fits.
            let apart = try await ConfSale.query(on: db).order(\.id).select(
                .sum(\.big, over: .partition(by: \.region).order(\.id)))
            try checkEqual(apart, [0, 0, 0, 1, 1, .max, 0].map { Int64?($0) }, "Int64.max alone still sums")
            try checkEqual(try await ConfSale.query(on: db).count(), 7, "the failed sums changed nothing")
        },
        ConformanceCase("window.running-aggregate-refusals-name-the-part") { db in
            try await seedSales(db)
            try await checkThrows(
                "a running sum of text",
                { if case .invalidAggregate("ConfSale", "sku", _) = $0 { true } else { false } }
            ) {
                try await ConfSale.query(on: db).select(.sum(\.sku, over: .order(\.id)))
            }
            try await checkThrows(
                "a running max of a bool",
                { if case .invalidAggregate("ConfSale", "flag", _) = $0 { true } else { false } }
            ) {
                try await ConfSale.query(on: db).select(.max(\.flag, over: .order(\.id)))
            }
            try await checkThrows(
                "a running sum in a grouped select",
                { isInvalidQuery($0, naming: "sum(quantity) over (order by id)", "grouped") }
            ) {
                try await ConfSale.query(on: db).group(by: \.id).select(
                    .column(\.id), .sum(\.quantity, over: .order(\.id)))
            }
            try await checkThrows(
                "ordering rows by a running sum", { isInvalidQuery($0, naming: "ORDER BY sum(quantity)", "WITH query") }
            ) {
                try await ConfSale.query(on: db).order(.sum(\.quantity, over: .order(\.id))).select(.column(\.id))
            }
        },
    ]
}
