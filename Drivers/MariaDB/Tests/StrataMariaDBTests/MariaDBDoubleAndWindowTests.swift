// MariaDBDoubleAndWindowTests: the MariaDB rows for doubles at their edges and windows beside an unkeyed one — the
// refusal of ±infinity, the HAVING that reads every group's double sum, the window that borrows another's key — each
// as exact SQL and on a real server.
import Foundation
import Strata
import StrataMariaDB
import Testing

@Model(table: "mgap_number")
struct MGapNumber {
    var id: Int64?
    var x: Double
    var s: String
    var m: Double?
}

@Model(table: "mgap_sale")
struct MGapSale {
    var id: Int64?
    var region: String?
    var quantity: Int64
}

@Suite("MariaDB doubles and windows")
struct MariaDBDoubleAndWindowTests {
    static func isMismatch(_ column: String) -> (any Error) -> Bool {
        {
            guard case StrataError.typeMismatch("mgap_number", column, let detail) = $0 else { return false }
            return detail.contains("±infinity")
        }
    }

    @Test("±infinity is refused naming the column (1264), by save, insertAll and update; nothing written or handed out")
    func nonFiniteDoublesRefused() async throws {
        #expect(!MariaDBDialect().storesNonFiniteDoubles)
        let db = try await MariaDBTestServer.freshDatabase("strata_mgap_inf")
        defer { db.close() }
        try await db.migrate(MGapNumber.self)
        var infinite = MGapNumber(x: .infinity, s: "a")
        await #expect { try await infinite.save(on: db) } throws: { Self.isMismatch("x")($0) }
        #expect(infinite.id == nil, "no id handed out")
        var optional = MGapNumber(x: 1, s: "b", m: -.infinity)
        await #expect { try await optional.save(on: db) } throws: { Self.isMismatch("m")($0) }
        var rows = [MGapNumber(x: 1, s: "c"), MGapNumber(x: -.infinity, s: "d")]
        await #expect { try await MGapNumber.insertAll(&rows, on: db) } throws: { Self.isMismatch("x")($0) }
        #expect(rows.map(\.id) == [nil, nil], "no ids handed out")
        #expect(try await MGapNumber.query(on: db).count() == 0, "nothing written")
        var finite = MGapNumber(x: 0.5, s: "e", m: .nan)
        try await finite.save(on: db)
        #expect(try await MGapNumber.find(finite.id ?? -1, on: db)?.m == nil, "NaN is NULL, as everywhere")
        await #expect {
            try await MGapNumber.query(on: db).where(\.s == "e").set(\.x, to: .infinity).update()
        } throws: { Self.isMismatch("x")($0) }
        #expect(try await MGapNumber.query(on: db).values(\.x) == [0.5], "the row as it was")
        // No row can hold one, so an infinity compared with finds nothing, and arithmetic that makes one fails.
        #expect(try await MGapNumber.query(on: db).where(\.x < .infinity).count() == 1)
        await #expect {
            try await MGapNumber.query(on: db).set(\.x, to: \.x * 1e308 * 1e308).update()
        } throws: { if case StrataError.arithmeticError = $0 { true } else { false } }
        try await MariaDBTestServer.dropDatabase("strata_mgap_inf")
    }

    @Test("a decimal SUM in HAVING is read first through EXP(8888 * (digits > 38)), error 1690 past 38 digits")
    func decimalSumGuardInHaving() throws {
        let price = Aggregate(.sum, ColumnRef("price"), type: .decimal)
        var select = Select(table: "t", selection: .items([.column(ColumnRef("s"))]))
        select.groupBy = [ColumnRef("s")]
        select.having = HavingCondition(.compare(.greater, .aggregate(price), .decimal(1)))
        #expect(
            try SQLRenderer.render(.select(select), dialect: MariaDBDialect()).sql
                == "SELECT `s` FROM `t` GROUP BY `s` HAVING CASE WHEN EXP(8888 * (COALESCE(CHAR_LENGTH(TRIM(BOTH '0' "
                + "FROM REPLACE(REPLACE(CAST(SUM(`price`) AS CHAR), '-', ''), '.', ''))), 0) > 38)) > 0 THEN "
                + "(SUM(`price`) > ?) END")
    }

    @Test("a grouped SELECT's double sums and averages are read in its HAVING first: a dropped group's overflow fails")
    func doubleSumsReadInHaving() async throws {
        #expect(MariaDBDialect().checksSumsInHaving)
        var select = Select(
            table: "t",
            selection: .items([
                .column(ColumnRef("s")), .aggregate(Aggregate(.sum, ColumnRef("x"), type: .double)),
                .aggregate(Aggregate(.avg, ColumnRef("x"), type: .double)),
                .aggregate(Aggregate(.sum, ColumnRef("n"), type: .integer)),
            ]))
        select.groupBy = [ColumnRef("s")]
        select.having = HavingCondition(.compare(.less, .aggregate(.countAll), .integer(2)))
        #expect(
            try SQLRenderer.render(.select(select), dialect: MariaDBDialect()).sql
                == "SELECT `s`, (SUM(`x`) + 0e0), (SUM(`x`) + 0e0) / COUNT(`x`), (SUM(`n`) DIV 1) FROM `t` GROUP BY `s` "
                + "HAVING (((SUM(`x`) + 0e0) IS NULL OR (SUM(`x`) + 0e0) IS NOT NULL) AND (COUNT(*) < ?))")
        select.having = nil
        #expect(
            try SQLRenderer.render(.select(select), dialect: MariaDBDialect()).sql
                == "SELECT `s`, (SUM(`x`) + 0e0), (SUM(`x`) + 0e0) / COUNT(`x`), (SUM(`n`) DIV 1) FROM `t` "
                + "GROUP BY `s`")

        let db = try await MariaDBTestServer.freshDatabase("strata_mgap_sum")
        defer { db.close() }
        try await db.migrate(MGapNumber.self)
        var rows = [MGapNumber(x: 1.5e308, s: "big"), MGapNumber(x: 1.5e308, s: "big"), MGapNumber(x: 1, s: "small")]
        try await MGapNumber.insertAll(&rows, on: db)
        let grouped = MGapNumber.query(on: db).group(by: \.s)
        await #expect {
            try await grouped.having(.count() < 2).select(.column(\.s), .sum(\.x))
        } throws: { if case StrataError.arithmeticError = $0 { true } else { false } }
        await #expect {
            try await grouped.having(.count() < 2).select(.column(\.s), .avg(\.x))
        } throws: { if case StrataError.arithmeticError = $0 { true } else { false } }
        let small = try await MGapNumber.query(on: db).where(\.s == "small").group(by: \.s).having(.count() < 2)
            .select(.column(\.s), .sum(\.x))
        #expect(small.map(\.1) == [1.0], "a group whose sum fits answers")
        try await MariaDBTestServer.dropDatabase("strata_mgap_sum")
    }

    @Test("a window with neither partition nor order takes the key of another window, and every window answers right")
    func unkeyedWindowBorrowsKey() async throws {
        #expect(MariaDBDialect().unkeyedWindow == .borrowedKey)
        let select = Select(
            table: "t",
            selection: .items([
                .column(ColumnRef("id")),
                .window(WindowFunction(.sum, ColumnRef("q"), type: .integer, order: [Ordering("id")])),
                .window(WindowFunction(.sum, ColumnRef("q"), type: .integer, partition: [ColumnRef("r")])),
                .window(WindowFunction(.count)), .window(WindowFunction(.denseRank)),
            ]),
            order: [Ordering("id")])
        let whole = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"
        #expect(
            try SQLRenderer.render(.select(select), dialect: MariaDBDialect()).sql
                == "SELECT `id`, (SUM(`q`) OVER (ORDER BY `id` ASC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
                + "DIV 1), (SUM(`q`) OVER (PARTITION BY `r` \(whole)) DIV 1), "
                + "COUNT(*) OVER (ORDER BY `id` ASC \(whole)), DENSE_RANK() OVER (PARTITION BY `id` ORDER BY NULL) "
                + "FROM `t` ORDER BY `id` ASC")
        // Beside windows of one key, the key too; alone, as written.
        let oneKey = Select(
            table: "t",
            selection: .items([
                .window(WindowFunction(.count)),
                .window(WindowFunction(.sum, ColumnRef("q"), type: .integer, order: [Ordering("id")])),
            ]))
        #expect(
            try SQLRenderer.render(.select(oneKey), dialect: MariaDBDialect()).sql
                == "SELECT COUNT(*) OVER (ORDER BY `id` ASC \(whole)), (SUM(`q`) OVER (ORDER BY `id` ASC ROWS BETWEEN "
                + "UNBOUNDED PRECEDING AND CURRENT ROW) DIV 1) FROM `t`")

        let db = try await MariaDBTestServer.freshDatabase("strata_mgap_window")
        defer { db.close() }
        try await db.migrate(MGapSale.self)
        let regions: [String?] = ["north", "north", "south", nil, nil, "south", "east"]
        var sales = zip(regions, [3, 5, 2, 4, 1, 7, 6] as [Int64]).map { MGapSale(region: $0, quantity: $1) }
        try await MGapSale.insertAll(&sales, on: db)
        let rows = try await MGapSale.query(on: db).where(\.quantity > 1).order(\.id).select(
            .column(\.id), .sum(\.quantity, over: .order(\.id)), .sum(\.quantity, over: .partition(by: \.region)),
            .count(over: .all))
        #expect(rows.map(\.1) == [3, 8, 10, 14, 21, 27], "up to each row, by id")
        #expect(rows.map(\.2) == [8, 8, 9, 4, 9, 6], "the whole region on every row (MariaDB alone: 2, then 9)")
        #expect(rows.map(\.3) == [6, 6, 6, 6, 6, 6], "every row counts all")
        let ranked = try await MGapSale.query(on: db).order(\.id).select(
            .sum(\.quantity, over: .partition(by: \.region)), .rank(over: .all),
            .sum(\.quantity, over: .partition(by: \.region).order(\.id)))
        #expect(ranked.map(\.0) == [8, 8, 9, 5, 5, 9, 6], "whole regions")
        #expect(ranked.map(\.1) == [1, 1, 1, 1, 1, 1, 1], "an unordered rank is 1 for every row")
        #expect(ranked.map(\.2) == [3, 8, 2, 4, 5, 9, 6], "each region so far")
        try await MariaDBTestServer.dropDatabase("strata_mgap_window")
    }
}
