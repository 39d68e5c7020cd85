// PostgresExpressionRenderTests: golden SQL of arithmetic, text functions and subqueries on Postgres; needs no database.
import Strata
import StrataPostgres
import Testing

@Suite("Postgres dialect: expressions and subqueries")
struct PostgresExpressionRenderTests {
    let dialect = PostgresDialect()

    /// Renders, and checks that `SQLRenderer.binds(of:)` lists the same values in the same order.
    func render(_ statement: Statement) throws -> RenderedSQL {
        let r = try SQLRenderer.render(statement, dialect: dialect)
        #expect(SQLRenderer.binds(of: statement, dialect: dialect) == r.binds)
        return r
    }

    @Test("PostgreSQL: native operators (errors 22012/22003), lower/upper under COLLATE \"C\"")
    func arithmeticInFilterAndOrder() throws {
        let s = Select(
            table: "post", selection: .columns(["id"]),
            filter: .compare(.greater, .arithmetic(.add, .column("views"), .value(.integer(1))), .value(.integer(10))),
            order: [Ordering(expression: .arithmetic(.remainder, .column("views"), .value(.integer(7))), .descending)],
            limit: 5)
        let r = try render(.select(s))
        #expect(
            r.sql
                == #"SELECT "id" FROM "post" WHERE ((CASE WHEN ("views" + $1) = CAST('NaN' AS DOUBLE PRECISION) "#
                + #"THEN NULL ELSE ("views" + $2) END) > $3) ORDER BY ("views" % $4) DESC NULLS LAST LIMIT $5"#
        )
        #expect(r.binds == [.integer(1), .integer(1), .integer(10), .integer(7), .integer(5)])
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
        #expect(
            r.sql
                == #"UPDATE "post" SET "views" = (CASE WHEN ("views" * $1) = CAST('NaN' AS DOUBLE PRECISION) "#
                + #"THEN NULL ELSE ("views" * $2) END), "title" = $3 WHERE ("id" = $4)"#)
        #expect(r.binds == [.integer(2), .integer(2), .text("x"), .integer(3)])
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
            r.sql
                == #"SELECT "id" FROM "t" WHERE ((lower((("first" || $1)) COLLATE "C") = $2) AND (upper(("c") COLLATE "C") = COALESCE("n", $3)))"#
        )
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
                == #"SELECT "id" FROM "user" WHERE (("id" IN (SELECT "user_id" FROM "project" WHERE ("open" = $1))) AND ("age" < (SELECT "age" FROM "user" ORDER BY "age" DESC NULLS LAST LIMIT $2))) LIMIT $3"#
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
                == #"SELECT "user"."id" FROM "user" LEFT JOIN "team" AS "t" ON ("user"."team_id" = "t"."id") WHERE ("user"."id" IN (SELECT "v"."user_id" FROM "project" INNER JOIN "membership" AS "v" ON ("v"."project_id" = "project"."id") WHERE ("project"."open" = $1))) ORDER BY "user"."name" ASC NULLS FIRST"#
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

    @Test("a decimal COALESCE the typed API marks renders as itself: numeric compares as a number already")
    func typedDecimal() throws {
        let e = SQLExpression.typed(.coalesce([.column("discounted"), .column("amount")]), as: .decimal)
        let r = try render(
            .select(
                Select(table: "invoice", selection: .columns(["id"]), filter: .compare(.less, e, .column("amount")))))
        #expect(r.sql == #"SELECT "id" FROM "invoice" WHERE (COALESCE("discounted", "amount") < "amount")"#)
    }
}
