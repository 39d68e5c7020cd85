// UnkeyedWindowAndHavingRenderTests: the SQL of UnkeyedWindowSyntax.borrowedKey and Dialect.checksSumsInHaving in a
// dialect shaped like MariaDB's; the default dialect's SQL unchanged.
import Testing

@testable import Strata

/// A MariaDB-shaped dialect: unkeyed windows borrow a key, double sums are read in HAVING.
struct BorrowedKeyDialect: Dialect {
    var name: String { "borrowed" }
    var identifierQuote: Character { "`" }
    func placeholder(_ index: Int) -> String { "?" }
    var offsetWithoutLimit: OffsetWithoutLimit { .offsetAlone }
    var caseInsensitiveLike: CaseInsensitiveLike { .lowerBoth }
    func sqlType(_ type: ColumnType) -> String { "BIGINT" }
    var autoIncrementPrimaryKey: String { "BIGINT AUTO_INCREMENT PRIMARY KEY" }
    var nullOrdering: NullOrdering { .lowest }
    var unorderedRank: UnorderedRankSyntax { .orderByNull }
    var unkeyedWindow: UnkeyedWindowSyntax { .borrowedKey }
    var checksSumsInHaving: Bool { true }
    var storesNonFiniteDoubles: Bool { false }
}

/// The defaults, as SQLite and PostgreSQL keep them.
struct DefaultCapabilitiesDialect: Dialect {
    var name: String { "default" }
    func placeholder(_ index: Int) -> String { "?" }
    var offsetWithoutLimit: OffsetWithoutLimit { .offsetAlone }
    var caseInsensitiveLike: CaseInsensitiveLike { .lowerBoth }
    func sqlType(_ type: ColumnType) -> String { "BIGINT" }
    var autoIncrementPrimaryKey: String { "BIGINT PRIMARY KEY" }
    var nullOrdering: NullOrdering { .lowest }
}

@Suite("SQL renderer: unkeyed windows borrow a key, double sums read in HAVING")
struct UnkeyedWindowAndHavingRenderTests {
    static let whole = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"

    @Test("the defaults change nothing: plain unkeyed windows, HAVING as written, infinities stored")
    func defaults() {
        let d = DefaultCapabilitiesDialect()
        #expect(d.unkeyedWindow == .plain)
        #expect(!d.checksSumsInHaving)
        #expect(d.storesNonFiniteDoubles)
    }

    @Test("an unkeyed window takes the first keyed window's partition and order: as order, or as a rank's partition")
    func borrowedKey() throws {
        let select = Select(
            table: "t",
            selection: .items([
                .window(WindowFunction(.count)),
                .window(
                    WindowFunction(
                        .sum, ColumnRef("q"), type: .integer, partition: [ColumnRef("r")], order: [Ordering("id")])),
                .window(WindowFunction(.sum, ColumnRef("q"), type: .integer, order: [Ordering("q", .descending)])),
                .window(WindowFunction(.rank)), .window(WindowFunction(.rowNumber)),
            ]))
        #expect(
            try SQLRenderer.render(.select(select), dialect: BorrowedKeyDialect()).sql
                == "SELECT COUNT(*) OVER (ORDER BY `r` ASC, `id` ASC \(Self.whole)), "
                + "SUM(`q`) OVER (PARTITION BY `r` ORDER BY `id` ASC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), "
                + "SUM(`q`) OVER (ORDER BY `q` DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), "
                + "RANK() OVER (PARTITION BY `r`, `id` ORDER BY NULL), ROW_NUMBER() OVER (ORDER BY `r` ASC, `id` ASC) "
                + "FROM `t`")
        #expect(
            try SQLRenderer.render(.select(select), dialect: DefaultCapabilitiesDialect()).sql
                == "SELECT COUNT(*) OVER (\(Self.whole)), "
                + "SUM(\"q\") OVER (PARTITION BY \"r\" ORDER BY \"id\" ASC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT "
                + "ROW), SUM(\"q\") OVER (ORDER BY \"q\" DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), "
                + "RANK() OVER (), ROW_NUMBER() OVER () FROM \"t\"")
        // No keyed window: as written; beside windows of one key, the key too (MariaDB's unordered rank, ORDER BY
        // NULL, would be a second one).
        let unkeyed = Select(table: "t", selection: .items([.window(WindowFunction(.count))]))
        #expect(
            try SQLRenderer.render(.select(unkeyed), dialect: BorrowedKeyDialect()).sql
                == "SELECT COUNT(*) OVER (\(Self.whole)) FROM `t`")
        let oneKey = Select(
            table: "t",
            selection: .items([
                .window(WindowFunction(.count)),
                .window(WindowFunction(.sum, ColumnRef("q"), type: .integer, partition: [ColumnRef("r")])),
                .window(WindowFunction(.max, ColumnRef("q"), type: .integer, partition: [ColumnRef("r")])),
            ]))
        #expect(
            try SQLRenderer.render(.select(oneKey), dialect: BorrowedKeyDialect()).sql
                == "SELECT COUNT(*) OVER (ORDER BY `r` ASC \(Self.whole)), SUM(`q`) OVER (PARTITION BY `r` \(Self.whole)), "
                + "MAX(`q`) OVER (PARTITION BY `r` \(Self.whole)) FROM `t`")
    }

    @Test("each selected double sum or average is read in HAVING first, once; integer sums and no HAVING as written")
    func sumsReadInHaving() throws {
        var select = Select(
            table: "t",
            selection: .items([
                .column(ColumnRef("s")), .aggregate(Aggregate(.sum, ColumnRef("x"), type: .double)),
                .aggregate(Aggregate(.avg, ColumnRef("x"), type: .double)),
                .aggregate(Aggregate(.sum, ColumnRef("n"), type: .integer)),
            ]))
        select.groupBy = [ColumnRef("s")]
        select.having = HavingCondition(.compare(.less, .aggregate(.countAll), .integer(2)))
        let rendered = try SQLRenderer.render(.select(select), dialect: BorrowedKeyDialect())
        #expect(
            rendered.sql
                == "SELECT `s`, SUM(`x`), AVG(`x`), SUM(`n`) FROM `t` GROUP BY `s` "
                + "HAVING ((SUM(`x`) IS NULL OR SUM(`x`) IS NOT NULL) AND (COUNT(*) < ?))")
        #expect(rendered.binds == [.integer(2)])
        #expect(
            try SQLRenderer.render(.select(select), dialect: DefaultCapabilitiesDialect()).sql
                == "SELECT \"s\", SUM(\"x\"), AVG(\"x\"), SUM(\"n\") FROM \"t\" GROUP BY \"s\" HAVING (COUNT(*) < ?)")
        select.having = nil
        #expect(
            try SQLRenderer.render(.select(select), dialect: BorrowedKeyDialect()).sql
                == "SELECT `s`, SUM(`x`), AVG(`x`), SUM(`n`) FROM `t` GROUP BY `s`")
    }
}
