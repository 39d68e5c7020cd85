// SQLiteExpressionRenderTests: golden SQL of arithmetic, text functions and subqueries on SQLite; needs no database.
import Foundation
import Strata
import StrataSQLite
import Testing

@Suite("SQLite dialect: expressions and subqueries")
struct SQLiteExpressionRenderTests {
    let dialect = SQLiteDialect()

    /// Renders, and checks that `SQLRenderer.binds(of:)` lists the same values in the same order.
    func render(_ statement: Statement) throws -> RenderedSQL {
        let r = try SQLRenderer.render(statement, dialect: dialect)
        #expect(SQLRenderer.binds(of: statement, dialect: dialect) == r.binds)
        return r
    }

    @Test("SQLite: checked strata_* functions for arithmetic, plain lower/upper")
    func arithmeticInFilterAndOrder() throws {
        let s = Select(
            table: "post", selection: .columns(["id"]),
            filter: .compare(.greater, .arithmetic(.add, .column("views"), .value(.integer(1))), .value(.integer(10))),
            order: [Ordering(expression: .arithmetic(.remainder, .column("views"), .value(.integer(7))), .descending)],
            limit: 5)
        let r = try render(.select(s))
        #expect(
            r.sql
                == #"SELECT "id" FROM "post" WHERE (strata_compare(strata_add("views", ?), ?) > 0) "#
                + #"ORDER BY strata_mod("views", ?) DESC LIMIT ?"#
        )
        #expect(r.binds == [.integer(1), .integer(10), .integer(7), .integer(5)])
    }

    @Test("UPDATE sets a computed value beside a bound one")
    func updateExpression() throws {
        let u = Update(
            table: "post",
            assignments: [
                Assignment("views", expression: .arithmetic(.multiply, .column("views"), .value(.integer(2)))),
                Assignment("title", .text("x")),
            ],
            filter: .compare(.equal, .column("id"), .value(.integer(3))))
        let r = try render(.update(u))
        #expect(r.sql == #"UPDATE "post" SET "views" = strata_mul("views", ?), "title" = ? WHERE ("id" = ?)"#)
        #expect(r.binds == [.integer(2), .text("x"), .integer(3)])
    }

    @Test("concatenation, lower, upper and COALESCE")
    func textFunctions() throws {
        let s = Select(
            table: "t", selection: .columns(["id"]),
            filter: .and([
                .compare(.equal, .lower(.concat(.column("first"), .value(.text(" ")))), .value(.text("a "))),
                .compare(.equal, .upper(.column("c")), .coalesce([.column("n"), .value(.text("z"))])),
            ]))
        let r = try render(.select(s))
        #expect(
            r.sql == #"SELECT "id" FROM "t" WHERE ((lower(("first" || ?)) = ?) AND (upper("c") = COALESCE("n", ?)))"#)
        #expect(r.binds == [.text(" "), .text("a "), .text("z")])
    }

    @Test("IN (SELECT …) and a scalar subquery read with LIMIT 1")
    func subqueries() throws {
        let inner = Select(
            table: "project", selection: .columns(["user_id"]),
            filter: .compare(.equal, .column("open"), .value(.bool(true))))
        let top = Select(table: "user", selection: .columns(["age"]), order: [Ordering("age", .descending)])
        let s = Select(
            table: "user", selection: .columns(["id"]),
            filter: .and([.inSubquery(.column("id"), inner), .compare(.less, .column("age"), .scalarSubquery(top))]),
            limit: 3)
        let r = try render(.select(s))
        #expect(
            r.sql
                == #"SELECT "id" FROM "user" WHERE (("id" IN (SELECT "user_id" FROM "project" WHERE ("open" = ?))) AND ("age" < (SELECT "age" FROM "user" ORDER BY "age" DESC LIMIT ?))) LIMIT ?"#
        )
        #expect(r.binds == [.bool(true), .integer(1), .integer(3)])
    }

    @Test("a subquery with a join inside a query with a join: each qualifies its own columns")
    func nestedJoins() throws {
        let inner = Select(
            table: "project", selection: .refs([ColumnRef("user_id", table: "v")]),
            joins: [
                Join(
                    .inner, table: "membership", alias: "v",
                    on: .compare(.equal, .column("project_id", table: "v"), .column("id")))
            ],
            filter: .compare(.equal, .column("open"), .value(.bool(true))))
        let s = Select(
            table: "user", selection: .columns(["id"]),
            joins: [
                Join(
                    .left, table: "team", alias: "t",
                    on: .compare(.equal, .column("team_id"), .column("id", table: "t")))
            ],
            filter: .inSubquery(.column("id"), inner), order: [Ordering("name")])
        let r = try render(.select(s))
        #expect(
            r.sql
                == #"SELECT "user"."id" FROM "user" LEFT JOIN "team" AS "t" ON ("user"."team_id" = "t"."id") WHERE ("user"."id" IN (SELECT "v"."user_id" FROM "project" INNER JOIN "membership" AS "v" ON ("v"."project_id" = "project"."id") WHERE ("project"."open" = ?))) ORDER BY "user"."name" ASC"#
        )
    }

    @Test("a subquery selecting two columns is refused by the core before any driver, naming its table and columns")
    func twoColumns() throws {
        let two = Select(table: "project", selection: .columns(["user_id", "id"]))
        #expect {
            try StatementCheck.check(
                .select(Select(table: "user", selection: .columns(["id"]), filter: .inSubquery(.column("id"), two))))
        } throws: { error in
            guard case StrataError.invalidQuery(let m) = error else { return false }
            return m.contains("project") && m.contains("user_id, id")
        }
    }
}

@Model(table: "invoice")
private struct RenderInvoice {
    var id: Int64?
    var discounted: Decimal?
    var amount = Decimal(0)
}

@Suite("SQLite dialect: decimal expressions the backend cannot see")
struct SQLiteTypedDecimalRenderTests {
    @Test("COALESCE over decimal columns only compares and sorts through the decimal collation")
    func coalesceOverDecimalColumns() throws {
        let lhs = try coalesce(\RenderInvoice.discounted, \RenderInvoice.amount).expression
        let rhs = try coalesce(\RenderInvoice.discounted, Decimal(5)).expression
        let s = Select(
            table: "invoice", selection: .columns(["id"]), filter: .compare(.less, lhs, .column("amount")),
            order: [Ordering(expression: lhs, .descending)])
        let r = try SQLRenderer.render(.select(s), dialect: SQLiteDialect())
        #expect(
            r.sql
                == #"SELECT "id" FROM "invoice" WHERE (COALESCE("discounted", "amount") COLLATE "strata_decimal" < "amount") "#
                + #"ORDER BY COALESCE("discounted", "amount") COLLATE "strata_decimal" DESC"#)
        // A decimal value already shows the type: one collation, not two.
        let visible = try SQLRenderer.render(
            .select(Select(table: "invoice", selection: .columns(["id"]), filter: .compare(.less, lhs, rhs))),
            dialect: SQLiteDialect())
        #expect(
            visible.sql
                == #"SELECT "id" FROM "invoice" WHERE (COALESCE("discounted", "amount") COLLATE "strata_decimal" < "#
                + #"COALESCE("discounted", ?) COLLATE "strata_decimal")"#)
        // Over integer columns nothing is added.
        let ints = try coalesce(\RenderInvoice.id, \RenderInvoice.id).expression
        let plain = try SQLRenderer.render(
            .select(Select(table: "invoice", selection: .columns(["id"]), order: [Ordering(expression: ints)])),
            dialect: SQLiteDialect())
        #expect(plain.sql == #"SELECT "id" FROM "invoice" ORDER BY COALESCE("id", "id") ASC"#)
    }
}
