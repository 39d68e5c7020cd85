// ReadmeAggregateTests: the Writing queries article's aggregate example, compiled and run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

// README: "Aggregates, grouping and distinct"
@Model struct Sale {
    var id: Int64?
    var region: String?
    var quantity: Int
    var price: Decimal
    var soldAt = Date()
}

@Suite("README aggregate example")
struct ReadmeAggregateTests {
    @Test(
        "sum, avg, max, count distinct, group by with having and order, Decodable rows, distinct values",
        arguments: ["sqlite", "memory"])
    func aggregates(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("agg-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Sale.self)
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        for (n, (region, quantity, price)) in [("north", 1, "0.10"), ("north", 2, "0.20"), (nil, 3, "9.99")]
            .enumerated()
        {
            var sale = Sale(
                region: region, quantity: quantity, price: Decimal(string: price) ?? 0,
                soldAt: day.addingTimeInterval(Double(n)))
            try await sale.save(on: db)
        }

        // README: "Aggregates, grouping and distinct"
        let units: Int64? = try await Sale.query(on: db).sum(\.quantity)  // nil when nothing matches
        let revenue: Decimal? = try await Sale.query(on: db).sum(\.price)  // exact, SQLite included
        let mean: Double? = try await Sale.query(on: db).avg(\.quantity)  // a Double on every driver
        let latest: Date? = try await Sale.query(on: db).max(\.soldAt)
        let regions = try await Sale.query(on: db).count(distinct: \.region)  // NULL is not counted

        let perRegion = try await Sale.query(on: db)  // [(String?, Int, Int64?)]
            .group(by: \.region)  // NULL is one group
            .having(.count() >= 2)
            .order(.sum(\.quantity), .descending)
            .select(.column(\.region), .count(), .sum(\.quantity))

        struct RegionTotal: Decodable { var region: String?; var total: Int64? }
        let totals = try await Sale.query(on: db).group(by: \.region)
            .select(as: RegionTotal.self, .column(\.region), .sum(\.quantity).as("total"))

        let names = try await Sale.query(on: db).distinct().order(\.region).values(\.region)

        #expect(units == 6)
        #expect(revenue == Decimal(string: "10.29"))
        #expect(mean == 2.0)
        #expect(latest == day.addingTimeInterval(2))
        #expect(regions == 1)
        #expect(perRegion.map { "\($0.0 ?? "nil") \($0.1) \($0.2 ?? 0)" } == ["north 2 3"])
        #expect(totals.map { "\($0.region ?? "nil")=\($0.total ?? 0)" }.sorted() == ["nil=3", "north=3"])
        #expect(names == [nil, "north"])
        #expect(try await Sale.query(on: db).where(\.quantity > 9).sum(\.quantity) == nil)
    }
}
