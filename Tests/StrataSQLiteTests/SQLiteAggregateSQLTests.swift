// SQLiteAggregateSQLTests: the exact SQL SQLite runs for aggregates, and the exact decimal SUM it registers.
import Foundation
import Strata
import StrataSQLite
import Testing

@Suite("SQLite aggregates")
struct SQLiteAggregateSQLTests {
    @Test("a grouped SELECT on SQLite: ? placeholders, strata_decimal_sum for decimals")
    func golden() throws {
        var s = Select(
            table: "sale",
            selection: .items([
                .column(ColumnRef("region")), .aggregate(Aggregate(.sum, ColumnRef("quantity"), type: .integer)),
                .aggregate(Aggregate(.sum, ColumnRef("price"), type: .decimal)),
                .aggregate(Aggregate(.avg, ColumnRef("price"), type: .decimal)),
            ]),
            order: [Ordering("region")], offset: 2)
        s.groupBy = [ColumnRef("region")]
        s.having = HavingCondition(.compare(.greater, .aggregate(.countAll), .integer(1)))
        let r = try SQLRenderer.render(.select(s), dialect: SQLiteDialect())
        #expect(
            r.sql
                == #"SELECT "region", strata_int_value(strata_int_sum("quantity")), "#
                + #"strata_decimal_sum("price") COLLATE "strata_decimal", strata_decimal_avg("price") "#
                + #"FROM "sale" "#
                + #"GROUP BY "region" HAVING (COUNT(*) > ?) ORDER BY "region" ASC LIMIT -1 OFFSET ?"#)
        #expect(r.binds == [.integer(1), .integer(2)])
    }

    @Test("an integer bound of a decimal sum in HAVING is bound as a decimal (SQLite put every integer below text)")
    func decimalHavingBound() throws {
        // Found by the differential fuzzer (seed 9101): SUM = 1.5 passed HAVING SUM >= 12 on SQLite only.
        var s = Select(
            table: "sale",
            selection: .items([.column(ColumnRef("region")), .aggregate(Aggregate(.count, ColumnRef("price")))]))
        s.groupBy = [ColumnRef("region")]
        s.having = HavingCondition(
            .and([
                .compare(
                    .greaterOrEqual, .aggregate(Aggregate(.sum, ColumnRef("price"), type: .decimal)), .integer(12)),
                .compare(.less, .aggregate(Aggregate(.sum, ColumnRef("quantity"), type: .integer)), .integer(5)),
            ]))
        let r = try SQLRenderer.render(.select(s), dialect: SQLiteDialect())
        #expect(r.binds == [.decimal(12), .integer(5)])
        #expect(
            r.sql.hasSuffix(
                #"HAVING CASE WHEN strata_decimal_check(strata_decimal_sum("price") COLLATE "strata_decimal") THEN "#
                    + #"((strata_decimal_sum("price") COLLATE "strata_decimal" >= ?) AND "#
                    + #"(strata_int_value(strata_int_sum("quantity")) < ?)) END"#), "\(r.sql)")
    }

    @Test("each decimal sum HAVING reads goes through strata_decimal_check first, once; other aggregates do not")
    func decimalSumGuardInHaving() throws {
        let price = Aggregate(.sum, ColumnRef("price"), type: .decimal)
        var s = Select(table: "sale", selection: .items([.column(ColumnRef("region"))]))
        s.groupBy = [ColumnRef("region")]
        s.having = HavingCondition(
            .or([
                .compare(.greater, .aggregate(price), .decimal(1)), .isNull(.aggregate(price), negated: false),
                .not(.compare(.less, .aggregate(Aggregate(.max, ColumnRef("price"), type: .decimal)), .integer(3))),
            ]))
        let r = try SQLRenderer.render(.select(s), dialect: SQLiteDialect())
        #expect(
            r.sql
                == #"SELECT "region" FROM "sale" GROUP BY "region" HAVING CASE WHEN "#
                + #"strata_decimal_check(strata_decimal_sum("price") COLLATE "strata_decimal") THEN "#
                + #"((strata_decimal_sum("price") COLLATE "strata_decimal" > ?) OR "#
                + #"(strata_decimal_sum("price") COLLATE "strata_decimal" IS NULL) OR "#
                + #"(NOT (MAX("price") COLLATE "strata_decimal" < ?))) END"#)
        #expect(r.binds == [.decimal(1), .decimal(3)])
        // Without a decimal sum, HAVING is as before.
        s.having = HavingCondition(.compare(.greater, .aggregate(.countAll), .integer(1)))
        #expect(try SQLRenderer.render(.select(s), dialect: SQLiteDialect()).sql.hasSuffix(#"HAVING (COUNT(*) > ?)"#))
    }

    @Test("SUM past Int64 is arithmeticError naming the model and column, not SQLite's 'integer overflow'")
    func overflow() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(Tally.self)
        for n in [Int64.max, 1] {
            var t = Tally(n: n)
            try await t.save(on: db)
        }
        await #expect(
            throws: StrataError.arithmeticError(expression: "Tally.sum(n)", reason: "integer overflow: past Int64")
        ) {
            try await Tally.query(on: db).sum(\.n)
        }
        #expect(try await Tally.query(on: db).count() == 2)
    }
}

@Model(table: "sq_tally")
struct Tally {
    var id: Int64?
    var n: Int64
}
