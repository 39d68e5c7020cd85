// CorrelatedExistsRendererTests: the correlated EXISTS that tests an association by a key of several columns, from
// the shared renderer with the odd dialect: every column pair, the subquery's filter after them, outer columns
// qualified by the enclosing table, in SELECT, UPDATE and DELETE; pairs it could not name are refused.
import Testing

@testable import Strata

@Suite("SQL renderer: correlated EXISTS over a key of several columns")
struct CorrelatedExistsRendererTests {
    let odd = OddDialect()
    /// `child.(a, b)` matching `parent.(x, y)`.
    let pairs = Correlation(inner: [ColumnRef("a"), ColumnRef("b")], outerTable: "parent", outer: ["x", "y"])
    var children: Select {
        Select(
            table: "child", selection: .columns(["a", "b"]),
            filter: .compare(.greater, .column("n"), .value(.integer(2))))
    }

    @Test("EXISTS matches every column pair, then the subquery's own filter, whose values bind after the outer ones")
    func select() throws {
        let s = Select(
            table: "parent", selection: .columns(["x"]),
            filter: .and([.compare(.equal, .column("x"), .value(.integer(1))), .correlatedExists(children, pairs)]))
        let r = try SQLRenderer.render(.select(s), dialect: odd)
        #expect(
            r.sql
                == "SELECT `x` FROM `parent` WHERE ((`x` = &1) AND (EXISTS (SELECT `a`, `b` FROM `child` WHERE "
                + "((`child`.`a` = `parent`.`x`) AND (`child`.`b` = `parent`.`y`) AND (`n` > &2)))))")
        #expect(r.binds == [.integer(1), .integer(2)])
    }

    @Test("NOT EXISTS in a DELETE and an UPDATE names the statement's own table; no filter leaves the pairs alone")
    func writes() throws {
        var bare = children
        bare.filter = nil
        let d = try SQLRenderer.render(
            .delete(Delete(table: "parent", filter: .correlatedExists(bare, pairs, negated: true))), dialect: odd)
        #expect(
            d.sql
                == "DELETE FROM `parent` WHERE (NOT EXISTS (SELECT `a`, `b` FROM `child` WHERE "
                + "((`child`.`a` = `parent`.`x`) AND (`child`.`b` = `parent`.`y`))))")
        #expect(d.binds.isEmpty)
        let u = try SQLRenderer.render(
            .update(
                Update(
                    table: "parent", assignments: [Assignment("x", .integer(9))],
                    filter: .correlatedExists(children, pairs))),
            dialect: odd)
        #expect(
            u.sql
                == "UPDATE `parent` SET `x` = &1 WHERE (EXISTS (SELECT `a`, `b` FROM `child` WHERE "
                + "((`child`.`a` = `parent`.`x`) AND (`child`.`b` = `parent`.`y`) AND (`n` > &2))))")
        #expect(u.binds == [.integer(9), .integer(2)])
    }

    @Test("a subquery over the outer table, or pairs of unequal counts, is refused, not rendered ambiguous")
    func refused() throws {
        let own = Correlation(inner: [ColumnRef("a"), ColumnRef("b")], outerTable: "child", outer: ["x", "y"])
        let short = Correlation(inner: [ColumnRef("a")], outerTable: "parent", outer: ["x", "y"])
        for c in [own, short] {
            let s = Select(table: "parent", selection: .columns(["x"]), filter: .correlatedExists(children, c))
            #expect(throws: StrataError.self) { try SQLRenderer.render(.select(s), dialect: odd) }
            #expect(throws: StrataError.self) { try StatementCheck.check(.select(s)) }
        }
    }

    @Test("a condition moved to a joined table moves its outer columns with it")
    func qualified() {
        let moved = SQLExpression.correlatedExists(children, pairs).qualified(as: "j1")
        guard case .correlatedExists(_, let c, _) = moved.node else {
            Issue.record("not a correlated EXISTS")
            return
        }
        #expect(c.outerTable == "j1" && c.outer == ["x", "y"])
    }
}
