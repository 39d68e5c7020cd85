// PostgresUpsertInListRenderTests: the exact SQL of upserts and long IN lists in the PostgreSQL dialect.
import Foundation
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL SQL: upsert and long IN lists")
struct PostgresUpsertInListRenderTests {
    let dialect = PostgresDialect()

    @Test("ON CONFLICT DO UPDATE / DO NOTHING with $n placeholders")
    func upsert() throws {
        let update = Insert(
            table: "sku", columns: ["code", "name", "version"], rows: [[.text("A"), .text("a"), .integer(0)]],
            returning: "id",
            onConflict: OnConflict(target: ["code"], action: .update(set: ["name"], increment: ["version"])))
        #expect(
            try SQLRenderer.render(.insert(update), dialect: dialect).sql
                == #"INSERT INTO "sku" ("code", "name", "version") VALUES ($1, $2, $3) ON CONFLICT ("code") "#
                + #"DO UPDATE SET "name" = excluded."name", "version" = "sku"."version" + 1 RETURNING "id""#)
        let nothing = Insert(
            table: "sku", columns: ["code"], rows: [[.text("A")], [.text("B")]], returning: "id",
            onConflict: OnConflict(target: ["code"], action: .nothing))
        #expect(
            try SQLRenderer.render(.insert(nothing), dialect: dialect).sql
                == #"INSERT INTO "sku" ("code") VALUES ($1), ($2) ON CONFLICT ("code") DO NOTHING RETURNING "id""#)
    }

    @Test("a long IN list binds one typed array: = ANY / <> ALL")
    func longIn() throws {
        let ids = (1...100_000).map { DatabaseValue.integer(Int64($0)) }
        let select = Statement.select(
            Select(table: "t", selection: .columns(["id"]), filter: .inList(.column("id"), ids), limit: 5))
        let r = try SQLRenderer.render(select, dialect: dialect)
        #expect(r.sql == #"SELECT "id" FROM "t" WHERE ("id" = ANY(CAST($1 AS BIGINT[]))) LIMIT $2"#)
        let numbers: String = (1...100_000).map { String($0) }.joined(separator: ",")
        let array: String = "{" + numbers + "}"
        #expect(r.binds == [.text(array), .integer(5)])
        #expect(SQLRenderer.binds(of: select, dialect: dialect) == r.binds)
        let notIn = try SQLRenderer.render(
            .delete(
                Delete(
                    table: "t",
                    filter: .inList(.column("name"), Array(repeating: .text("a"), count: 100), negated: true))),
            dialect: dialect)
        #expect(notIn.sql == #"DELETE FROM "t" WHERE ("name" <> ALL(CAST($1 AS TEXT[])))"#)
    }

    @Test("an integer array is spelled digit by digit exactly as String(i) spells each: signs, extremes, NULL")
    func integerElements() throws {
        let edges: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, .max, .min, .max - 1, .min + 1, 4_294_967_296]
        let values: [DatabaseValue] =
            (edges + edges.map { $0 / 7 } + edges.map { $0 / 1_000 }).map { .integer($0) } + [.null]
            + [DatabaseValue](repeating: .integer(-42), count: 60)
        let r = try SQLRenderer.render(
            .select(Select(table: "t", selection: .columns(["a"]), filter: .inList(.column("a"), values))),
            dialect: dialect)
        let spelled: [String] = values.map { if case .integer(let i) = $0 { String(i) } else { "NULL" } }
        #expect(r.sql == #"SELECT "a" FROM "t" WHERE ("a" = ANY(CAST($1 AS BIGINT[])))"#)
        #expect(r.binds == [.text("{" + spelled.joined(separator: ",") + "}")])
    }

    @Test("array elements: quoted text with escapes, NULL, dates in UTC, element types per kind")
    func elements() throws {
        func render(_ values: [DatabaseValue]) throws -> RenderedSQL {
            try SQLRenderer.render(
                .select(Select(table: "t", selection: .columns(["a"]), filter: .inList(.column("a"), values))),
                dialect: dialect)
        }
        let quoted = try render([.text("a\"b\\c,{}"), .null] + Array(repeating: .text("NULL"), count: 98))
        let nulls: String = Array(repeating: #""NULL""#, count: 98).joined(separator: ",")
        let expected: String = #"{"a\"b\\c,{}",NULL,"# + nulls + "}"
        #expect(quoted.binds == [.text(expected)])
        let dates = try render(Array(repeating: .date(Date(timeIntervalSince1970: 0)), count: 100))
        #expect(dates.sql.hasSuffix("CAST($1 AS TIMESTAMPTZ[])))"))
        #expect(text(of: dates.binds.first).contains(#""1970-01-01 00:00:00.000000+00""#) == true)
        #expect(try render(Array(repeating: .double(-0.0), count: 100)).sql.contains("DOUBLE PRECISION[]"))
        let ts: String = Array(repeating: "t", count: 100).joined(separator: ",")
        #expect(try render(Array(repeating: .bool(true), count: 100)).binds == [.text("{" + ts + "}")])
        #expect(
            try render(Array(repeating: .decimal(Decimal(string: "1.25") ?? 0), count: 100)).sql.contains("NUMERIC[]"))
        #expect(try render(Array(repeating: .uuid(UUID()), count: 100)).sql.contains("UUID[]"))
        #expect(try render(Array(repeating: .json("{}"), count: 100)).binds.count == 100)
    }
}

/// The text of a bound text value, or "".
private func text(of value: DatabaseValue?) -> String {
    if case .text(let s)? = value { return s }
    return ""
}
