// AggregateRendererTests: golden SQL of aggregates, GROUP BY, HAVING and DISTINCT, and the AST checks before SQL.
import Foundation
import Testing

@testable import Strata

@Suite("SQL renderer: aggregates, grouping, distinct")
struct AggregateRendererTests {
    let odd = OddDialect()

    /// `SELECT region, COUNT(*), SUM(quantity) … GROUP BY region HAVING … ORDER BY SUM(quantity) DESC`.
    static var grouped: Select {
        var s = Select(
            table: "sale",
            selection: .items([
                .column(ColumnRef("region")), .aggregate(.countAll),
                .aggregate(Aggregate(.sum, ColumnRef("quantity"), type: .integer)),
            ]),
            filter: .compare(.greater, .column("quantity"), .value(.integer(0))),
            order: [Ordering(Aggregate(.sum, ColumnRef("quantity"), type: .integer), .descending), Ordering("region")],
            limit: 3)
        s.groupBy = [ColumnRef("region")]
        s.having = HavingCondition(
            .and([
                .compare(.greaterOrEqual, .aggregate(.countAll), .integer(2)),
                .not(.isNull(.aggregate(Aggregate(.avg, ColumnRef("quantity"), type: .integer)), negated: false)),
            ]))
        return s
    }

    @Test("a grouped SELECT: WHERE, GROUP BY, HAVING, ORDER BY an aggregate, LIMIT, in that order")
    func groupedSelect() throws {
        let r = try SQLRenderer.render(.select(Self.grouped), dialect: odd)
        #expect(
            r.sql
                == "SELECT `region`, COUNT(*), SUM(`quantity`) FROM `sale` WHERE (`quantity` > &1) GROUP BY `region` "
                + "HAVING ((COUNT(*) >= &2) AND (NOT (AVG(`quantity`) IS NULL))) "
                + "ORDER BY SUM(`quantity`) DESC NULLS LAST, `region` ASC NULLS FIRST LIMIT &3")
        #expect(r.binds == [.integer(0), .integer(2), .integer(3)])
    }

    @Test("aggregates over joined columns are qualified; COUNT(DISTINCT …), MIN and MAX")
    func joinedAggregates() throws {
        var s = Select(
            table: "team",
            selection: .items([
                .column(ColumnRef("title")),
                .aggregate(Aggregate(.count, ColumnRef("name", table: "j1"), distinct: true, type: .text)),
                .aggregate(Aggregate(.min, ColumnRef("name", table: "j1"), type: .text)),
                .aggregate(Aggregate(.max, ColumnRef("born", table: "j1"), type: .date)),
            ]),
            joins: [
                Join(
                    .left, table: "member", alias: "j1",
                    on: .compare(.equal, .column("id"), .column("team_id", table: "j1")))
            ])
        s.groupBy = [ColumnRef("title")]
        let r = try SQLRenderer.render(.select(s), dialect: odd)
        #expect(
            r.sql
                == "SELECT `team`.`title`, COUNT(DISTINCT `j1`.`name`), MIN(`j1`.`name`), MAX(`j1`.`born`) FROM `team` "
                + "LEFT JOIN `member` AS `j1` ON (`team`.`id` = `j1`.`team_id`) GROUP BY `team`.`title`")
    }

    @Test("DISTINCT rows of columns, of joined refs, and of items")
    func distinct() throws {
        var columns = Select(table: "t", selection: .columns(["a", "b"]), order: [Ordering("a")])
        columns.distinct = true
        #expect(
            try SQLRenderer.render(.select(columns), dialect: odd).sql
                == "SELECT DISTINCT `a`, `b` FROM `t` ORDER BY `a` ASC NULLS FIRST")
        var items = Select(table: "t", selection: .items([.column(ColumnRef("a"))]))
        items.distinct = true
        #expect(try SQLRenderer.render(.select(items), dialect: odd).sql == "SELECT DISTINCT `a` FROM `t`")
    }

    @Test("bad grouping is refused by the core before any driver, naming the column")
    func badGrouping() throws {
        var having = Select(table: "t", selection: .items([.aggregate(.countAll)]))
        having.having = HavingCondition(.compare(.greater, .aggregate(.countAll), .integer(1)))
        #expect(throws: StrataError.invalidQuery("HAVING without GROUP BY")) {
            try StatementCheck.check(.select(having))
        }
        var bare = Select(table: "t", selection: .items([.column(ColumnRef("b")), .aggregate(.countAll)]))
        bare.groupBy = [ColumnRef("a")]
        #expect(throws: StrataError.invalidQuery("column b is neither grouped nor aggregated")) {
            try StatementCheck.check(.select(bare))
        }
        let text = Select(table: "t", selection: .items([.aggregate(Aggregate(.sum, ColumnRef("name"), type: .text))]))
        #expect(throws: StrataError.invalidQuery("sum(name): sum needs a numeric column, not text")) {
            try StatementCheck.check(.select(text))
        }
        var unselected = Select(table: "t", selection: .columns(["a"]), order: [Ordering("b")])
        unselected.distinct = true
        #expect(throws: StrataError.invalidQuery("SELECT DISTINCT ordered by b, not selected")) {
            try StatementCheck.check(.select(unselected))
        }
        var counted = Select(table: "t", selection: .count)
        counted.distinct = true
        #expect(throws: StrataError.self) { try StatementCheck.check(.select(counted)) }
    }

    @Test("aggregate results normalize to one Swift type: numeric sums to Int64 or an overflow error")
    func normalize() throws {
        let sum = Aggregate(.sum, ColumnRef("n"), type: .integer)
        #expect(try sum.normalize(.decimal(42), model: "M") == .integer(42))
        #expect(try sum.normalize(.null, model: "M") == .null)
        #expect(throws: StrataError.arithmeticError(expression: "M.sum(n)", reason: "integer overflow: past Int64")) {
            try sum.normalize(.decimal(Decimal(Int64.max) + 1), model: "M")
        }
        let avg = Aggregate(.avg, ColumnRef("n"), type: .integer)
        #expect(try avg.normalize(.decimal(Decimal(string: "1.5000000000000000")!), model: "M") == .double(1.5))
        #expect(try Aggregate.countAll.normalize(.null, model: "M") == .integer(0))
    }
}
