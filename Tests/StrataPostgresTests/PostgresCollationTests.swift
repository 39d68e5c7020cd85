// PostgresCollationTests: golden SQL naming COLLATE "C" where text is ordered, for tables with other collations.
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL code-point collation")
struct PostgresCollationTests {
    @Test("text ORDER BY, <, >= and BETWEEN name COLLATE \"C\"; = and non-text do not")
    func collateC() throws {
        var byName = Ordering("name", .descending)
        byName.isText = true
        let select = Select(
            table: "word", selection: .columns(["id"]),
            filter: .and([
                .compare(.less, .column("name"), .value(.text("m"))),
                .compare(.greaterOrEqual, .column("n"), .value(.integer(2))),
                .compare(.equal, .column("name"), .value(.text("x"))),
                .between(.column("name"), .value(.text("a")), .value(.text("z"))),
            ]),
            order: [Ordering("id"), byName])
        let pg = try SQLRenderer.render(.select(select), dialect: PostgresDialect())
        #expect(
            pg.sql == #"SELECT "id" FROM "word" WHERE (("name" COLLATE "C" < $1) AND ("n" >= $2) AND ("name" = $3) "#
                + #"AND ("name" COLLATE "C" BETWEEN $4 AND $5)) ORDER BY "id" ASC NULLS FIRST, "#
                + #""name" COLLATE "C" DESC NULLS LAST"#)
    }
}
