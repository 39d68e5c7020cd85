// PostgresIgnoredInsertTests: an INSERT a trigger skips (it returns NULL) is a typed error, never a made-up id.
import Foundation
import Strata
import StrataPostgres
import Testing

@Model(table: "pg_ignoring_item")
struct PGIgnoringItem {
    var id: Int64?
    var x: String
}

extension PostgresServerTests {
    @Suite("PostgreSQL inserts that insert nothing")
    struct PostgresIgnoredInsertTests {
        @Test("a BEFORE INSERT trigger returning NULL: save and insertAll throw insertIgnored, nothing is kept")
        func triggerSkips() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_ignored_insert")
            defer { db.close() }
            try await db.migrate(PGIgnoringItem.self)
            try await db.unsafeRawExecute(
                """
                CREATE FUNCTION skip_z() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.x = 'z' THEN RETURN NULL; END IF; RETURN NEW; END $$
                """)
            try await db.unsafeRawExecute(
                #"CREATE TRIGGER skip_z BEFORE INSERT ON "pg_ignoring_item" FOR EACH ROW EXECUTE FUNCTION skip_z()"#)
            var a = PGIgnoringItem(x: "a")
            try await a.save(on: db)
            for build in [{ PGIgnoringItem(x: "z") }, { PGIgnoringItem(id: 50, x: "z") }] {
                var z = build()
                let before = z.id
                do {
                    try await z.save(on: db)
                    Issue.record("a skipped insert must throw")
                } catch StrataError.insertIgnored(let table) {
                    #expect(table == "pg_ignoring_item")
                }
                #expect(z.id == before)
            }
            var batch = [PGIgnoringItem(x: "p"), PGIgnoringItem(x: "z")]
            do {
                try await PGIgnoringItem.insertAll(&batch, on: db)
                Issue.record("a batch with a skipped row must throw")
            } catch StrataError.insertIgnored {}
            #expect(batch.allSatisfy { $0.id == nil })
            #expect(try await PGIgnoringItem.query(on: db).all().map(\.x) == ["a"])
            try await PostgresTestServer.dropSchema("strata_ignored_insert")
        }
    }
}
