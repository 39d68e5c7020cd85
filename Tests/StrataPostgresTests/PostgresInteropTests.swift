// PostgresInteropTests: tables written by the psql command-line tool read through models that map onto them.
import Foundation
import Strata
import StrataPostgres
import Testing

@Model(table: "legacy_people")
struct PGLegacyPerson {
    var id: Int64?
    @Column("full_name") var name: String
    @Column("born") var birth: Date
    @Column("is_admin") var admin: Bool
    @Column("balance") var balance: Decimal
    @Column("profile") var profile: [String: String]?
    @Column("ref") var ref: UUID?
    var note: String?
}

extension PostgresServerTests {
    @Suite("PostgreSQL interop")
    struct PostgresInteropTests {
        /// Runs the real `psql` tool with the server's libpq environment, in schema `schema`.
        func psql(_ schema: String, _ sql: String) throws {
            try PSQLTool.run(nil, "SET search_path TO \(schema); " + sql)
        }

        @Test("hand-written SQL from psql reads through a model with custom table and column names")
        func readsHandWrittenTable() async throws {
            try #require(PostgresTestServer.baseURL == "postgres://", "psql follows the PG* environment only")
            let db = try await PostgresTestServer.freshSchema("strata_interop", "migrate=off")
            defer { db.close() }
            try psql(
                "strata_interop",
                """
                CREATE TABLE legacy_people (id bigserial PRIMARY KEY, full_name text NOT NULL, born timestamptz NOT NULL,
                                            is_admin boolean NOT NULL, balance numeric(12, 2) NOT NULL, profile jsonb,
                                            ref uuid, note text);
                INSERT INTO legacy_people (full_name, born, is_admin, balance, profile, ref, note) VALUES
                  ('Ada', '1815-12-10 00:00:00+00', true, 12.50, '{"lang": "en"}', 'A1B2C3D4-0000-4000-8000-000000000001', NULL),
                  ('Alan', '1912-06-23 10:00:00+00', false, 7, NULL, NULL, 'turing'),
                  ('Grace', '1906-12-09 08:30:00.5+00', true, -1.25, NULL, NULL, NULL);
                """)
            try await db.migrate(PGLegacyPerson.self)  // only checks: every mapped column exists
            let people = try await PGLegacyPerson.query(on: db).order(\.birth).all()
            #expect(people.map(\.name) == ["Ada", "Grace", "Alan"])
            #expect(people[0].admin && !people[2].admin)
            #expect(people[0].balance == Decimal(string: "12.5"))
            #expect(people[0].profile == ["lang": "en"])
            #expect(people[0].ref == UUID(uuidString: "a1b2c3d4-0000-4000-8000-000000000001"))
            #expect(people[1].birth == DateText.parse("1906-12-09 08:30:00.5"))
            #expect(try await PGLegacyPerson.query(on: db).where(\.admin == true).count() == 2)
            var ada = people[0]
            ada.note = "first programmer"
            try await ada.save(on: db)
            #expect(try await PGLegacyPerson.find(people[0].id ?? -1, on: db)?.note == "first programmer")
            try await PostgresTestServer.dropSchema("strata_interop")
        }
    }
}
