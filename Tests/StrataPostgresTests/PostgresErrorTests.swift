// PostgresErrorTests: SQLSTATEs from a real server arrive as the same typed errors the other drivers raise.
import Foundation
import Strata
import StrataPostgres
import Testing

/// Expects `body` to throw exactly `expected`.
func expectError<T>(
    _ expected: StrataError, _ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        _ = try await body()
        Issue.record("expected \(expected), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StrataError {
        #expect(error == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got untyped \(error)", sourceLocation: sourceLocation)
    }
}

extension PostgresServerTests {
    @Suite("PostgreSQL errors")
    struct PostgresErrorTests {
        @Test("23505 unique: table and every column of the key, no values")
        func unique() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_err_unique")
            defer { db.close() }
            try await db.migrate(PGItem.self, PGPair.self)
            var a = PGItem(name: "secret-value")
            try await a.save(on: db)
            var b = PGItem(name: "secret-value")
            await expectError(.uniqueViolation(table: "pgt_item", columns: ["name"])) { try await b.save(on: db) }
            var p = PGPair(left: "l", right: "r")
            try await p.save(on: db)
            var q = PGPair(left: "l", right: "r")
            do {
                try await q.save(on: db)
                Issue.record("duplicate pair accepted")
            } catch let error as StrataError {
                #expect(error == .uniqueViolation(table: "pgt_pair", columns: ["left", "right"]))
                #expect(!"\(error)".contains("secret"))
            }
        }

        @Test("23502 not null, 23503 foreign key, 42804 type mismatch naming the column")
        func constraints() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_err_constraints")
            defer { db.close() }
            try await db.migrate(PGItem.self, PGParent.self, PGChild.self)
            await expectError(.notNullViolation(table: "pgt_item", column: "name")) {
                try await db.unsafeRawExecute(#"INSERT INTO "pgt_item" ("name") VALUES (?)"#, [String?.none])
            }
            var orphan = PGChild(parentID: 12345)
            await expectError(.foreignKeyViolation(table: "pgt_child")) { try await orphan.save(on: db) }
            var parent = PGParent(title: "p")
            try await parent.save(on: db)
            var child = PGChild(parentID: parent.id)
            try await child.save(on: db)
            await expectError(.foreignKeyViolation(table: "pgt_parent")) { try await parent.delete(on: db) }
            do {
                try await db.unsafeRawExecute(
                    #"INSERT INTO "pgt_item" ("name", "rank") VALUES (?, ?)"#, ["n", "twelve"])
                Issue.record("text accepted into a bigint column")
            } catch StrataError.typeMismatch(let table, let column, let detail) {
                #expect(table == nil, "raw SQL names no table")
                #expect(column == "rank")
                #expect(!detail.contains("twelve"))
            }
        }

        @Test("class 22 input errors are typeMismatch and never quote the input")
        func invalidInput() async throws {
            let db = try PostgresTestServer.open()
            defer { db.close() }
            do {
                try await db.unsafeRawExecute("SELECT CAST(? AS bigint)", ["hidden-input"])
                Issue.record("cast accepted")
            } catch StrataError.typeMismatch(_, _, let detail) {
                #expect(detail.contains("invalid input syntax for type bigint"), "\(detail)")
                #expect(!detail.contains("hidden-input"))
            }
            do {  // NUL is refused before PostgreSQL sees it, the same way on every driver
                try await db.unsafeRawExecute("SELECT ?", ["a\u{0}b"])
                Issue.record("NUL accepted")
            } catch StrataError.invalidValue(let table, let column, let reason) {
                #expect(table == nil && column == "parameter 1" && reason.contains("NUL"))
            }
        }

        @Test("42P01 no such table, 42703 unknown column")
        func undefined() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_err_undefined")
            defer { db.close() }
            try await db.migrate(PGItem.self)
            await expectError(.noSuchTable("pgt_nope")) { try await db.unsafeRawExecute(#"SELECT 1 FROM "pgt_nope""#) }
            await expectError(.unknownColumn(model: "?", column: "nope")) {
                try await db.unsafeRawExecute(#"SELECT "nope" FROM "pgt_item""#)
            }
        }

        @Test("55P03 a lock wait past the timeout is busy")
        func busy() async throws {
            let holder = try await PostgresTestServer.freshSchema("strata_err_busy", "pool=1")
            defer { holder.close() }
            let waiter = try Database.open(
                PostgresTestServer.url("search_path=strata_err_busy"), drivers: [.postgres],
                configuration: Configuration(timeout: 0.2))
            defer { waiter.close() }
            try await holder.migrate(PGItem.self)
            var item = PGItem(name: "held")
            try await item.save(on: holder)
            var blocked = try #require(try await PGItem.find(item.id ?? -1, on: waiter))
            blocked.rank = 2
            // The holder's raw transaction lives inside one call (a connection never goes back to the pool inside one).
            try await holder.withConnection { tx in
                try tx.unsafeRawExecute("BEGIN")
                try tx.unsafeRawExecute(#"UPDATE "pgt_item" SET "rank" = 1"#)
                #expect(throws: StrataError.busy) { try waiter.writeSync { tx in try blocked.save(tx) } }
                try tx.unsafeRawExecute("COMMIT")
            }
            try await blocked.save(on: waiter)
            #expect(try await PGItem.find(item.id ?? -1, on: holder)?.rank == 2)
        }

        @Test("40001 a serializable transaction that lost a race is serializationFailure")
        func serialization() async throws {
            let a = try await PostgresTestServer.freshSchema("strata_err_serial", "pool=1")
            defer { a.close() }
            let b = try Database.open(
                PostgresTestServer.url("search_path=strata_err_serial", "pool=1"), drivers: [.postgres])
            defer { b.close() }
            try await a.migrate(PGItem.self)
            // Each raw transaction lives inside one call: b's, run synchronously inside a's.
            try await a.withConnection { ta in
                try ta.unsafeRawExecute("BEGIN ISOLATION LEVEL SERIALIZABLE")
                try b.readSync { tb in
                    try tb.unsafeRawExecute("BEGIN ISOLATION LEVEL SERIALIZABLE")
                    _ = try ta.unsafeRawExecute(#"SELECT count(*) FROM "pgt_item""#)
                    _ = try tb.unsafeRawExecute(#"SELECT count(*) FROM "pgt_item""#)
                    try ta.unsafeRawExecute(#"INSERT INTO "pgt_item" ("name") VALUES (?)"#, ["from a"])
                    try tb.unsafeRawExecute(#"INSERT INTO "pgt_item" ("name") VALUES (?)"#, ["from b"])
                    try ta.unsafeRawExecute("COMMIT")
                    #expect(throws: StrataError.serializationFailure) { try tb.unsafeRawExecute("COMMIT") }
                }
            }
            #expect(try await PGItem.query(on: a).all().map(\.name) == ["from a"])
        }
    }
}
