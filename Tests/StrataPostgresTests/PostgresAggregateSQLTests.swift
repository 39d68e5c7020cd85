// PostgresAggregateSQLTests: golden SQL of aggregates, grouping and distinct on PostgreSQL; needs no server.
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL aggregates")
struct PostgresAggregateSQLTests {
    @Test("a grouped SELECT on PostgreSQL: $n placeholders, plain SUM of decimals (numeric, read back exactly)")
    func golden() throws {
        var s = Select(
            table: "sale",
            selection: .items([
                .column(ColumnRef("region")), .aggregate(Aggregate(.sum, ColumnRef("price"), type: .decimal)),
                .aggregate(Aggregate(.count, ColumnRef("product"), distinct: true, type: .text)),
            ]),
            filter: .compare(.equal, .column("flag"), .value(.bool(false))),
            order: [Ordering(Aggregate(.sum, ColumnRef("price"), type: .decimal), .descending)], limit: 5)
        s.groupBy = [ColumnRef("region")]
        s.having = HavingCondition(
            .or([
                .compare(.less, .aggregate(Aggregate(.max, ColumnRef("quantity"), type: .integer)), .integer(9)),
                .isNull(.aggregate(Aggregate(.min, ColumnRef("weight"), type: .double)), negated: true),
            ]))
        let r = try SQLRenderer.render(.select(s), dialect: PostgresDialect())
        #expect(
            r.sql
                == #"SELECT "region", SUM("price"), COUNT(DISTINCT "product") FROM "sale" WHERE ("flag" = $1) "#
                + #"GROUP BY "region" HAVING ((MAX("quantity") < $2) OR (MIN("weight") IS NOT NULL)) "#
                + #"ORDER BY SUM("price") DESC NULLS LAST LIMIT $3"#)
        #expect(r.binds == [.bool(false), .integer(9), .integer(5)])
    }

    @Test("a decimal SUM in HAVING is read first through a digit count that fails a cast past 38 digits")
    func decimalSumGuardInHaving() throws {
        let price = Aggregate(.sum, ColumnRef("price"), type: .decimal)
        var s = Select(table: "sale", selection: .items([.column(ColumnRef("region"))]))
        s.groupBy = [ColumnRef("region")]
        s.having = HavingCondition(
            .and([
                .compare(.greater, .aggregate(price), .decimal(1)), .compare(.less, .aggregate(.countAll), .integer(3)),
            ]))
        let r = try SQLRenderer.render(.select(s), dialect: PostgresDialect())
        #expect(
            r.sql
                == #"SELECT "region" FROM "sale" GROUP BY "region" HAVING CASE WHEN "#
                + #"CAST(CASE WHEN length(btrim(translate(CAST(SUM("price") AS TEXT), '-.', ''), '0')) > 38 "#
                + #"THEN 'decimal out of range: more than 38 significant digits' END AS NUMERIC) IS NULL THEN "#
                + #"((SUM("price") > $1) AND (COUNT(*) < $2)) END"#)
        #expect(r.binds == [.decimal(1), .integer(3)])
    }

    @Test("SUM of integers is cast to BIGINT (an overflow is an error), AVG is the sum over the count, NaN is NULL")
    func integerSumAndAverage() throws {
        let s = Select(
            table: "sale",
            selection: .items([
                .aggregate(Aggregate(.sum, ColumnRef("quantity"), type: .integer)),
                .aggregate(Aggregate(.avg, ColumnRef("quantity"), distinct: true, type: .integer)),
                .aggregate(Aggregate(.sum, ColumnRef("weight"), type: .double)),
            ]))
        let r = try SQLRenderer.render(.select(s), dialect: PostgresDialect())
        #expect(
            r.sql
                == #"SELECT CAST(SUM("quantity") AS BIGINT), "#
                + #"CAST(SUM(DISTINCT "quantity") AS DOUBLE PRECISION) / COUNT(DISTINCT "quantity"), "#
                + #"NULLIF(SUM("weight"), CAST('NaN' AS DOUBLE PRECISION)) FROM "sale""#)
    }

    @Test("SELECT DISTINCT of a column")
    func distinct() throws {
        var s = Select(table: "sale", selection: .columns(["region"]), order: [Ordering("region", .descending)])
        s.distinct = true
        let r = try SQLRenderer.render(.select(s), dialect: PostgresDialect())
        #expect(r.sql == #"SELECT DISTINCT "region" FROM "sale" ORDER BY "region" DESC NULLS LAST"#)
    }
}
