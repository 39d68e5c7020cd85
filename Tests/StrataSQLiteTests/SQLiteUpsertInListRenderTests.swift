// SQLiteUpsertInListRenderTests: the exact SQL of upserts and long IN lists in the SQLite dialect.
import Foundation
import Strata
import StrataSQLite
import Testing

@Suite("SQLite SQL: upsert and long IN lists")
struct SQLiteUpsertInListRenderTests {
    let dialect = SQLiteDialect()

    @Test("ON CONFLICT DO UPDATE sets excluded values and increments the version, before RETURNING")
    func upsertUpdate() throws {
        let insert = Insert(
            table: "sku", columns: ["code", "name", "version"], rows: [[.text("A"), .text("a"), .integer(0)]],
            returning: "id",
            onConflict: OnConflict(target: ["code"], action: .update(set: ["name"], increment: ["version"])))
        let r = try SQLRenderer.render(.insert(insert), dialect: dialect)
        #expect(
            r.sql == #"INSERT INTO "sku" ("code", "name", "version") VALUES (?, ?, ?) ON CONFLICT ("code") "#
                + #"DO UPDATE SET "name" = excluded."name", "version" = "sku"."version" + 1 RETURNING "id""#)
        #expect(r.binds == [.text("A"), .text("a"), .integer(0)])
        #expect(SQLRenderer.binds(of: .insert(insert), dialect: dialect) == r.binds)
    }

    @Test("ON CONFLICT DO NOTHING with a composite target")
    func upsertNothing() throws {
        let insert = Insert(
            table: "sku", columns: ["a", "b"], rows: [[.integer(1), .integer(2)], [.integer(3), .integer(4)]],
            returning: "id", onConflict: OnConflict(target: ["b", "a"], action: .nothing))
        let r = try SQLRenderer.render(.insert(insert), dialect: dialect)
        #expect(
            r.sql
                == #"INSERT INTO "sku" ("a", "b") VALUES (?, ?), (?, ?) ON CONFLICT ("b", "a") DO NOTHING RETURNING "id""#
        )
    }

    @Test("an upsert without target or without anything to set is refused by the core, before any driver")
    func upsertRefused() {
        for onConflict in [
            OnConflict(target: [], action: .nothing),
            OnConflict(target: ["a"], action: .update(set: [], increment: [])),
        ] {
            let insert = Insert(table: "t", columns: ["a"], rows: [[.integer(1)]], onConflict: onConflict)
            #expect(throws: StrataError.self) { try StatementCheck.check(.insert(insert)) }
        }
    }

    @Test("a long IN list binds one JSON array through json_each; a short one keeps a parameter per value")
    func longIn() throws {
        let ids = (1...100_000).map { DatabaseValue.integer(Int64($0)) }
        let select = Statement.select(
            Select(table: "t", selection: .columns(["id"]), filter: .inList(.column("id"), ids)))
        let r = try SQLRenderer.render(select, dialect: dialect)
        #expect(r.sql == #"SELECT "id" FROM "t" WHERE ("id" IN (SELECT value FROM json_each(?)))"#)
        #expect(r.binds.count == 1)
        let numbers: String = (1...100_000).map { String($0) }.joined(separator: ",")
        let json: String = "[" + numbers + "]"
        #expect(r.binds == [.text(json)])
        #expect(SQLRenderer.binds(of: select, dialect: dialect) == r.binds)
        let notIn = try SQLRenderer.render(
            .delete(Delete(table: "t", filter: .inList(.column("id"), ids, negated: true))), dialect: dialect)
        #expect(notIn.sql == #"DELETE FROM "t" WHERE ("id" NOT IN (SELECT value FROM json_each(?)))"#)
        let short = try SQLRenderer.render(
            .select(
                Select(table: "t", selection: .columns(["id"]), filter: .inList(.column("id"), Array(ids.prefix(3))))),
            dialect: dialect)
        #expect(short.sql == #"SELECT "id" FROM "t" WHERE ("id" IN (?, ?, ?))"#)
    }

    @Test("array elements are spelled as SQLite stores them: 0/1, UTC text dates, NULL, escaped text")
    func jsonElements() throws {
        let date = Date(timeIntervalSince1970: 0.000_001)
        let values: [DatabaseValue] =
            [.null, .text("a\"b\\c\n\u{1}é"), .text("x")] + [DatabaseValue](repeating: .text("y"), count: 97)
        let r = try SQLRenderer.render(
            .select(Select(table: "t", selection: .columns(["a"]), filter: .inList(.column("a"), values))),
            dialect: dialect)
        let ys: String = Array(repeating: #""y""#, count: 97).joined(separator: ",")
        let expected: String = #"[null,"a\"b\\c\n\u0001é","x","# + ys + "]"
        #expect(r.binds == [.text(expected)])
        let dates = try SQLRenderer.render(
            .select(
                Select(
                    table: "t", selection: .columns(["a"]),
                    filter: .inList(.column("a"), [DatabaseValue](repeating: .date(date), count: 100)))),
            dialect: dialect)
        #expect(text(of: dates.binds.first).contains("1970-01-01 00:00:00.000001") == true)
        let bools = try SQLRenderer.render(
            .select(
                Select(
                    table: "t", selection: .columns(["a"]),
                    filter: .inList(.column("a"), [DatabaseValue](repeating: .bool(true), count: 100)))),
            dialect: dialect)
        let ones: String = Array(repeating: "1", count: 100).joined(separator: ",")
        #expect(bools.binds == [.text("[" + ones + "]")])
    }

    @Test("a list of integers is spelled digit by digit exactly as String(i) spells each: signs, extremes, NULLs")
    func integerElements() throws {
        let edges: [Int64] = [
            0, 1, -1, 9, 10, -9, -10, 99, 100, 999_999_999, 1_000_000_000, -1_000_000_000, .max, .min, .max - 1,
            .min + 1, 4_294_967_296, -4_294_967_296,
        ]
        var generator = SystemRandomNumberGenerator()
        let random = (0..<200).map { _ in
            Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...63, using: &generator)
        }
        let values: [DatabaseValue] = (edges + random).map { .integer($0) } + [.null] + edges.map { .integer($0) }
        let select = Statement.select(
            Select(table: "t", selection: .columns(["a"]), filter: .inList(.column("a"), values)))
        let r = try SQLRenderer.render(select, dialect: dialect)
        let spelled: [String] = (edges + random).map { String($0) } + ["null"] + edges.map { String($0) }
        #expect(r.binds == [.text("[" + spelled.joined(separator: ",") + "]")])
        #expect(SQLRenderer.binds(of: select, dialect: dialect) == r.binds)
        let nulls = try SQLRenderer.render(
            .select(
                Select(
                    table: "t", selection: .columns(["a"]),
                    filter: .inList(.column("a"), [.integer(7)] + [DatabaseValue](repeating: .null, count: 99)))),
            dialect: dialect)
        let rest: String = Array(repeating: "null", count: 99).joined(separator: ",")
        #expect(nulls.binds == [.text("[7," + rest + "]")])
    }

    @Test("lists of blobs, JSON, non-finite doubles or mixed kinds keep a parameter per value")
    func scalarFallback() throws {
        for values in [
            [DatabaseValue](repeating: .blob(Data([1])), count: 100),
            [DatabaseValue](repeating: .double(.infinity), count: 100),
            [DatabaseValue](repeating: .integer(1), count: 99) + [.text("1")],
        ] {
            let r = try SQLRenderer.render(
                .select(Select(table: "t", selection: .columns(["a"]), filter: .inList(.column("a"), values))),
                dialect: dialect)
            #expect(r.binds.count == 100)
        }
    }
}

/// The text of a bound text value, or "".
private func text(of value: DatabaseValue?) -> String {
    if case .text(let s)? = value { return s }
    return ""
}
