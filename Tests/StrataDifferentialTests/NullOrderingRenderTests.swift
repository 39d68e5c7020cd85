// NullOrderingRenderTests: where PostgreSQL's ORDER BY names NULLS FIRST/LAST, and how indexes match it.
import Strata
import StrataPostgres
import StrataSQLite
import Testing

@Suite("NULL ordering rendered per dialect")
struct NullOrderingRenderTests {
    /// `column` ordered `direction`, marked as `order(_:)` marks a non-optional column.
    private func never(_ column: String, _ direction: Ordering.Direction = .ascending, table: String? = nil) -> Ordering
    {
        var o = Ordering(column, direction, table: table)
        o.isNeverNull = true
        return o
    }

    @Test("a non-optional column gets no NULLS clause on PostgreSQL; an optional one keeps it; SQLite writes none")
    func columnNullability() throws {
        let select = Select(
            table: "post", selection: .columns(["id"]), order: [never("views", .descending), Ordering("score")],
            limit: 20)
        #expect(
            try SQLRenderer.render(.select(select), dialect: PostgresDialect()).sql
                == #"SELECT "id" FROM "post" ORDER BY "views" DESC, "score" ASC NULLS FIRST LIMIT $1"#)
        #expect(
            try SQLRenderer.render(.select(select), dialect: SQLiteDialect()).sql
                == #"SELECT "id" FROM "post" ORDER BY "views" DESC, "score" ASC LIMIT ?"#)
    }

    @Test("an outer join that can bring NULLs keeps the clause on a non-optional column")
    func outerJoins() throws {
        let on = SQLExpression.compare(.equal, .column("user_id", table: "post"), .column("id", table: "u"))
        func sql(_ kind: Join.Kind, _ order: [Ordering]) throws -> String {
            let s = Select(
                table: "post", selection: .columns(["id"]), joins: [Join(kind, table: "user", alias: "u", on: on)],
                order: order)
            return try SQLRenderer.render(.select(s), dialect: PostgresDialect()).sql
        }
        let tail = { (kind: String) in
            #"FROM "post" \#(kind) JOIN "user" AS "u" ON ("post"."user_id" = "u"."id") ORDER BY "#
        }
        #expect(
            try sql(.inner, [never("views"), never("name", table: "u")])
                == #"SELECT "post"."id" "# + tail("INNER") + #""post"."views" ASC, "u"."name" ASC"#)
        #expect(
            try sql(.left, [never("views"), never("name", .descending, table: "u")])
                == #"SELECT "post"."id" "# + tail("LEFT") + #""post"."views" ASC, "u"."name" DESC NULLS LAST"#)
        #expect(
            try sql(.right, [never("views"), never("name", table: "u")])
                == #"SELECT "post"."id" "# + tail("RIGHT")
                + #""post"."views" ASC NULLS FIRST, "u"."name" ASC NULLS FIRST"#)
    }

    @Test("indexes on optional columns are created NULLS FIRST on PostgreSQL, plain on SQLite")
    func indexes() throws {
        let schema = TableSchema(
            name: "post",
            columns: [
                TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                TableColumn(name: "views", type: .integer, isNullable: false),
                TableColumn(name: "score", type: .integer, isNullable: true),
            ],
            indexes: [Index(columns: ["views", "score"])])
        let index = try #require(schema.indexes.first)
        #expect(index.nullsFirstColumns == ["score"])
        #expect(index == Index(columns: ["views", "score"]), "the derived set is not part of the index's identity")
        #expect(
            try SQLRenderer.render(.createIndex(table: "post", index), dialect: PostgresDialect()).sql
                == #"CREATE INDEX IF NOT EXISTS "post_views_score_idx" ON "post" ("views", "score" NULLS FIRST)"#)
        #expect(
            try SQLRenderer.render(.createIndex(table: "post", index), dialect: SQLiteDialect()).sql
                == #"CREATE INDEX IF NOT EXISTS "post_views_score_idx" ON "post" ("views", "score")"#)
    }
}
