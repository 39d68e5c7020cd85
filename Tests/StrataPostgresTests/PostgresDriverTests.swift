// PostgresDriverTests: what only the PostgreSQL driver does: value encoding, statement cache, savepoints, names.
import Foundation
import Strata
import StrataPostgres
import Testing

extension PostgresServerTests {
    @Suite("PostgreSQL driver")
    struct PostgresDriverTests {
        @Test("every bound value comes back as itself, typed by its OID")
        func boundValues() async throws {
            let db = try PostgresTestServer.open()
            defer { db.close() }
            let date = Date(timeIntervalSince1970: 1_234_567_890.123456)
            let uuid = UUID()
            let values: [any DatabaseValueConvertible] = [
                true, Int64.min, Int64.max, 1.5, Double.infinity, -Double.infinity, "é\u{301} 'q' \"d\"", "",
                Data([0, 255, 0]), Data(), date, Decimal(string: "12345678901234567.89") ?? 0, uuid,
            ]
            let rows = try await db.unsafeRawExecute(
                "SELECT " + Array(repeating: "?", count: values.count).joined(separator: ", "), values)
            #expect(rows == [values.map(\.databaseValue)])
            #expect(try await db.unsafeRawExecute("SELECT ?", [String?.none]) == [[.null]])
        }

        @Test("server types decode by OID: int2/4/8, float4/8, numeric, bytea, timestamps, uuid, json, text kinds")
        func serverTypes() async throws {
            let db = try PostgresTestServer.open()
            defer { db.close() }
            let rows = try await db.unsafeRawExecute(
                """
                SELECT 1::int2, 2::int4, 3::int8, 1.5::float4, 'NaN'::float8, 1.50::numeric, '\\x00ff'::bytea,
                       '2009-02-13 23:31:30.123456+00'::timestamptz, '2009-02-13 23:31:30.5'::timestamp, '2020-01-02'::date,
                       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, '{"b": 1, "a": [true]}'::jsonb, 'x'::varchar, 'c'::char(2),
                       'n'::name, true, false, NULL
                """)
            let r = try #require(rows.first)
            #expect(r[0] == .integer(1) && r[1] == .integer(2) && r[2] == .integer(3))
            #expect(r[3] == .double(1.5))
            if case .double(let nan) = r[4] { #expect(nan.isNaN) } else { Issue.record("NaN: \(r[4])") }
            #expect(r[5] == .decimal(Decimal(string: "1.5") ?? 0))
            #expect(r[6] == .blob(Data([0, 255])))
            #expect(r[7] == .date(Date(timeIntervalSince1970: 1_234_567_890.123456)))
            #expect(r[8] == .date(Date(timeIntervalSince1970: 1_234_567_890.5)))
            #expect(r[9] == .date(Date(timeIntervalSince1970: 1_577_923_200)))
            #expect(r[10] == .uuid(UUID(uuidString: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11") ?? UUID()))
            #expect(r[11] == .json(#"{"a": [true], "b": 1}"#))
            #expect(r[12] == .text("x") && r[13] == .text("c ") && r[14] == .text("n"))
            #expect(r[15] == .bool(true) && r[16] == .bool(false) && r[17] == .null)
        }

        @Test("a statement inside forEach's body is a typed unsupported error, and the connection stays usable")
        func nestedStatementInForEach() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_nested")
            defer { db.close() }
            try await db.migrate(PGItem.self)
            try await db.transaction { tx in
                for name in ["a", "b"] {
                    var item = PGItem(name: name)
                    try item.save(tx)
                }
                var seen = 0
                #expect {
                    try PGItem.query(on: tx).forEach { item in
                        seen += 1
                        _ = try PGItem.find(item.id ?? -1, tx)
                    }
                } throws: { error in
                    guard case StrataError.unsupported(_, let driver) = error else { return false }
                    return driver == "postgres"
                }
                #expect(seen == 1)
                #expect(try PGItem.query(on: tx).count() == 2)
            }
            #expect(try await PGItem.query(on: db).order(\.name).all().map(\.name) == ["a", "b"])
            try await PostgresTestServer.dropSchema("strata_nested")
        }

        @Test("models read int2/int4, float4/float8 (Infinity and NaN too) and varchar through the typed readers")
        func typedReaders() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_typed")
            defer { db.close() }
            try await db.unsafeRawExecute(
                "CREATE TABLE pgt_typed (id bigserial PRIMARY KEY, small int2, four int4, real float4, "
                    + "big float8, label varchar(20))")
            try await db.unsafeRawExecute(
                """
                INSERT INTO pgt_typed (small, four, real, big, label) VALUES
                (-7, 2147483647, 1.5, 'Infinity', 'x'), (NULL, -1, -0.25, 'NaN', NULL), (1, 1, 3, '-1e-300', '')
                """)
            let rows = try await PGTyped.query(on: db).order(\.id).all()
            #expect(rows.map(\.small) == [-7, nil, 1])
            #expect(rows.map(\.four) == [2_147_483_647, -1, 1])
            #expect(rows.map(\.real) == [1.5, -0.25, 3])
            #expect(rows[0].big == .infinity && rows[1].big.isNaN && rows[2].big == -1e-300)
            #expect(rows.map(\.label) == ["x", nil, ""])
            try await PostgresTestServer.dropSchema("strata_typed")
        }

        @Test("the same SQL bound with NULL and with a value runs from two cached statements")
        func nullThenValue() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_drv_null", "pool=1")
            defer { db.close() }
            try await db.migrate(PGItem.self)
            var item = PGItem(name: "n", rank: 1, note: "x")
            try await item.save(on: db)
            for note: String? in [nil, "y", nil, "z"] {
                try await PGItem.query(on: db).filter(id: item.id ?? -1).set(\.note, to: note).update()
                #expect(try await PGItem.find(item.id ?? -1, on: db)?.note == note)
            }
        }

        @Test("a table whose column types changed under a cached statement is prepared again")
        func stalePlan() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_drv_stale", "pool=1")
            defer { db.close() }
            try await db.unsafeRawExecute(#"CREATE TABLE "pgt_shape" ("v" BIGINT)"#)
            try await db.unsafeRawExecute(#"INSERT INTO "pgt_shape" ("v") VALUES (?)"#, [7])
            #expect(try await db.unsafeRawExecute(#"SELECT "v" FROM "pgt_shape""#) == [[.integer(7)]])
            try await db.unsafeRawExecute(#"DROP TABLE "pgt_shape""#)
            try await db.unsafeRawExecute(#"CREATE TABLE "pgt_shape" ("v" TEXT)"#)
            try await db.unsafeRawExecute(#"INSERT INTO "pgt_shape" ("v") VALUES (?)"#, ["seven"])
            #expect(try await db.unsafeRawExecute(#"SELECT "v" FROM "pgt_shape""#) == [[.text("seven")]])
            // Inside a transaction, a write whose cached plan went stale is prepared again within its savepoint.
            try await db.unsafeRawExecute(#"CREATE TABLE "pgt_shape2" ("k" TEXT, "v" TEXT DEFAULT 'x')"#)
            let insert = #"INSERT INTO "pgt_shape2" ("k") VALUES (?) RETURNING "v""#
            #expect(try await db.unsafeRawExecute(insert, ["a"]) == [[.text("x")]])
            try await db.unsafeRawExecute(
                #"ALTER TABLE "pgt_shape2" ALTER COLUMN "v" DROP DEFAULT, "#
                    + #"ALTER COLUMN "v" TYPE BIGINT USING 0, ALTER COLUMN "v" SET DEFAULT 5"#)
            let rows = try await db.transaction { tx in try tx.unsafeRawExecute(insert, ["b"]) }
            #expect(rows == [[.integer(5)]])
        }

        @Test("after a column's type changes, every connection of the pool reads it in a transaction with a new plan")
        func stalePlanInTransaction() async throws {
            // A read inside a transaction cannot be prepared again once the server refused its stale plan (the
            // transaction is aborted): the connections forget the statements they prepared before the change.
            let db = try await PostgresTestServer.freshSchema("strata_drv_stale_tx", "pool=2")
            defer { db.close() }
            try await db.unsafeRawExecute(#"CREATE TABLE "pgt_retyped" ("id" BIGINT PRIMARY KEY, "v" BIGINT)"#)
            try await db.unsafeRawExecute(#"INSERT INTO "pgt_retyped" VALUES (1, 7)"#)
            let read = #"SELECT "v" FROM "pgt_retyped" WHERE "id" = ?"#
            // The read in a transaction on each connection at once (two transactions held together take one each).
            @Sendable func onBoth() async throws -> [[[DatabaseValue]]] {
                let (held, release) = AsyncStream.makeStream(of: Void.self)
                async let first: [[DatabaseValue]] = db.transaction { tx in
                    defer { release.finish() }  // a failed read lets the other go on too, rather than hang
                    let rows = try tx.unsafeRawExecute(read, [1])
                    release.yield()
                    Thread.sleep(forTimeInterval: 0.2)
                    return rows
                }
                var waiting = held.makeAsyncIterator()
                _ = await waiting.next()
                let second = try await db.transaction { tx in try tx.unsafeRawExecute(read, [1]) }
                return [try await first, second]
            }
            #expect(try await onBoth() == [[[.integer(7)]], [[.integer(7)]]])
            // One connection changes the type, in a migration step; each reads the new type in a transaction.
            try await db.migrate([
                Migration("001_retype") { $0.alterColumn("v", in: "pgt_retyped", to: .text, nullable: true) }
            ])
            #expect(try await onBoth() == [[[.text("7")]], [[.text("7")]]])
        }

        @Test("a failed write inside a transaction is undone alone; raw transaction control is not wrapped")
        func savepointWrapping() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_drv_savepoint", "pool=1")
            defer { db.close() }
            try await db.migrate(PGItem.self)
            try await db.transaction { tx in
                var a = PGItem(name: "a")
                try a.save(tx)
                var dup = PGItem(name: "a")
                #expect(throws: StrataError.uniqueViolation(table: "pgt_item", columns: ["name"])) { try dup.save(tx) }
                try tx.unsafeRawExecute(#"INSERT INTO "pgt_item" ("name") VALUES (?)"#, ["b"])
                #expect(throws: StrataError.self) {
                    try tx.unsafeRawExecute(#"INSERT INTO "pgt_item" ("name") VALUES (?)"#, ["b"])
                }
                // Failing when prepared (text into a bigint column) and when executed (a duplicate):
                // both undone alone, on a statement prepared in the same round trip and on a cached one.
                for _ in 0..<2 {
                    #expect(throws: StrataError.self) {
                        try tx.unsafeRawExecute(
                            #"INSERT INTO "pgt_item" ("name", "rank") VALUES (?, ?)"#, ["r", "twelve"])
                    }
                }
                var c = PGItem(name: "c")
                try c.save(tx)
            }
            #expect(try await PGItem.query(on: db).order(\.name).all().map(\.name) == ["a", "b", "c"])
            try await db.withConnection { tx in
                try tx.unsafeRawExecute("BEGIN")
                try tx.unsafeRawExecute(#"INSERT INTO "pgt_item" ("name") VALUES (?)"#, ["d"])
                // Raw savepoints are refused (Strata could not tell the models written after one what became
                // of them); a savepoint inside a raw transaction is tx.savepoint's.
                #expect(throws: StrataError.self) { try tx.unsafeRawExecute("SAVEPOINT mine") }
                try tx.savepoint { tx in
                    try tx.unsafeRawExecute(#"INSERT INTO "pgt_item" ("name") VALUES (?)"#, ["e"])
                    throw Rollback()
                }
                try tx.unsafeRawExecute("COMMIT")
            }
            #expect(try await PGItem.query(on: db).order(\.name).all().map(\.name) == ["a", "b", "c", "d"])
        }

        @Test("a long index name is shortened within 63 bytes, deterministically, and the index works")
        func longIndexName() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_drv_names")
            defer { db.close() }
            try await db.migrate(PGLongNames.self)
            try await db.migrate(PGLongNames.self)  // idempotent: the shortened name is found again
            let table = PGLongNames.schema.name
            let index = try #require(PGLongNames.indexes.first)
            let full = index.resolvedName(table: table)
            let expected = PostgresDialect().shortened(full)
            #expect(full.utf8.count > 63)
            #expect(expected.utf8.count <= 63)
            let names = try await db.unsafeRawExecute(
                "SELECT indexname::text FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? AND indexname <> ?",
                [table, table + "_pkey"])
            #expect(names == [[.text(expected)]])
            var a = PGLongNames(aColumnWhoseNameIsAlsoQuiteLong: "x", anotherColumnWithAVeryLongName: "y")
            try await a.save(on: db)
            var b = PGLongNames(aColumnWhoseNameIsAlsoQuiteLong: "x", anotherColumnWithAVeryLongName: "y")
            await expectError(
                .uniqueViolation(
                    table: table,
                    columns: [
                        "a_column_whose_name_is_also_quite_long",
                        "another_column_with_a_very_long_name",
                    ])
            ) {
                try await b.save(on: db)
            }
        }

        @Test("rows stream one at a time; a throwing body or a mid-stream error leaves the connection in step")
        func streaming() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_drv_stream", "pool=1")
            defer { db.close() }
            try await db.migrate(PGItem.self)
            try await db.unsafeRawExecute(
                #"INSERT INTO "pgt_item" ("name", "rank") SELECT 'n' || g, g FROM generate_series(1, ?) g"#, [20_000])
            let seen = try await db.withConnection { tx in
                var n = 0
                try PGItem.query(on: tx).forEach { _ in n += 1 }
                return n
            }
            #expect(seen == 20_000)
            struct Enough: Error {}
            try await db.transaction { tx in
                var n = 0
                #expect(throws: Enough.self) {
                    try PGItem.query(on: tx).order(\.rank).forEach { _ in
                        n += 1
                        if n == 10 { throw Enough() }
                    }
                }
                #expect(n == 10)
                var after = PGItem(name: "after the early stop")
                try after.save(tx)
            }
            #expect(try await PGItem.query(on: db).count() == 20_001, "the transaction was not aborted")
            do {
                try await db.unsafeRawExecute("SELECT 1 / (g - 15000) FROM generate_series(1, 20000) g")
                Issue.record("division by zero passed")
            } catch StrataError.arithmeticError(_, let reason) {
                #expect(reason == "division by zero")  // SQLSTATE 22012, the same typed error as on every driver
            }
            #expect(try await db.unsafeRawExecute("SELECT 2") == [[.integer(2)]])
        }

        @Test("columns(of:) sees the connection's schema only")
        func columnsOfCurrentSchema() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_drv_columns")
            defer { db.close() }
            #expect(try await db.withConnection { tx in try tx.columns(of: "pgt_item") } == nil)
            try await db.migrate(PGItem.self)
            #expect(
                try await db.withConnection { tx in try tx.columns(of: "pgt_item") } == ["id", "name", "rank", "note"])
        }

        @Test("a backend the server terminated is replaced at checkout: the next call succeeds on a new connection")
        func terminatedBackend() async throws {
            let db = try PostgresTestServer.open("pool=1")
            defer { db.close() }
            let admin = try PostgresTestServer.open()
            defer { admin.close() }
            let pid = try #require(try await db.unsafeRawExecute("SELECT pg_backend_pid()").first?.first)
            guard case .integer(let backend) = pid else { throw StrataError.invalidQuery("pid is \(pid)") }
            #expect(
                try await admin.unsafeRawExecute("SELECT pg_terminate_backend(?::int4)", [backend]) == [[.bool(true)]])
            try await Task.sleep(for: .milliseconds(100))
            #expect(try await db.unsafeRawExecute("SELECT pg_backend_pid()").first?.first != pid)
            #expect(try await db.unsafeRawExecute("SELECT 1") == [[.integer(1)]])
        }
    }
}
