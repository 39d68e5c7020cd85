// PostgresExistingDatabaseTests: tables psql wrote with another collation and Django's types, read and checked.
import Foundation
import Strata
import StrataPostgres
import Testing

@Model(table: "word")
struct PGWord {
    var id: Int64?
    var word: String
}

/// Django's Chinook `invoice` on PostgreSQL: `Total` as `double precision`.
@Model(table: "invoice")
struct PGDjangoInvoice {
    var id: Int64?
    @Column("InvoiceDate") var invoiceDate: Date
    @Column("Total") var total: Decimal
}

extension PostgresServerTests {
    @Suite("PostgreSQL existing databases")
    struct PostgresExistingDatabaseTests {
        /// Runs the real `psql` tool (see ``PSQLTool/run(_:_:)``).
        @discardableResult
        func psql(_ database: String?, _ sql: String) throws -> String { try PSQLTool.run(database, sql) }

        @Test("a table in a database with an ICU collation sorts and compares text by code point, as everywhere")
        func nonCCollation() async throws {
            try #require(PostgresTestServer.baseURL == "postgres://", "psql follows the PG* environment only")
            try psql(nil, "DROP DATABASE IF EXISTS strata_icu")
            try psql(
                nil,
                "CREATE DATABASE strata_icu TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'")
            try psql(
                "strata_icu",
                """
                CREATE TABLE word (id bigserial PRIMARY KEY, word text NOT NULL);
                INSERT INTO word (word) VALUES ('a'), ('B'), ('_'), ('Z'), ('é'), ('b');
                """)
            // The table's own order is the locale's, not code points: what Strata must not answer.
            let own = try psql("strata_icu", "SELECT string_agg(word, '' ORDER BY word) FROM word")
            #expect(own.count == 6 && own != "BZ_abé", "the ICU order (\(own)) is not code-point order")
            let db = try Database.open(PostgresTestServer.url("dbname=strata_icu", "migrate=off"), drivers: [.postgres])
            try await db.migrate(PGWord.self)
            let live = try await db.withConnection { tx in try tx.liveColumns(of: "word") }
            #expect(live?.last?.collation != "C")
            #expect(try await PGWord.query(on: db).order(\.word).all().map(\.word) == ["B", "Z", "_", "a", "b", "é"])
            #expect(
                try await PGWord.query(on: db).order(\.word, .descending).all().map(\.word) == [
                    "é", "b", "a", "_", "Z", "B",
                ])
            #expect(
                try await PGWord.query(on: db).where(\.word > "Z").order(\.id).all().map(\.word) == [
                    "a", "_", "é", "b",
                ])
            #expect(
                try await PGWord.query(on: db).where(\.word, between: "A"..."Z").order(\.id).all().map(\.word) == [
                    "B", "Z",
                ])
            db.close()
            try psql(nil, "DROP DATABASE strata_icu")
        }

        @Test("Django's double precision totals read as exact decimals; a text total is refused before any query")
        func djangoTypes() async throws {
            try #require(PostgresTestServer.baseURL == "postgres://", "psql follows the PG* environment only")
            let db = try await PostgresTestServer.freshSchema("strata_existing", "migrate=off")
            defer { db.close() }
            try psql(
                nil,
                """
                SET search_path TO strata_existing;
                CREATE TABLE invoice (id serial PRIMARY KEY, "InvoiceDate" timestamptz NOT NULL,
                                      "Total" double precision NOT NULL);
                INSERT INTO invoice ("InvoiceDate", "Total") VALUES ('2009-01-01 00:00:00+00', 0.99),
                  ('2009-06-30 12:00:00+00', 13.86), ('2010-01-01 00:00:00+00', 25.86);
                CREATE TABLE invoice_text (id serial PRIMARY KEY, "InvoiceDate" timestamptz NOT NULL, "Total" text);
                """)
            try await db.migrate(PGDjangoInvoice.self)
            let totals = try await PGDjangoInvoice.query(on: db).order(\.id).all().map { Optional($0.total) }
            #expect(totals == ["0.99", "13.86", "25.86"].map { Decimal(string: $0) })
            #expect(try await PGDjangoInvoice.query(on: db).where(\.total >= Decimal(10)).count() == 2)
            try psql(nil, "ALTER TABLE strata_existing.invoice RENAME TO invoice_real")
            try psql(nil, "ALTER TABLE strata_existing.invoice_text RENAME TO invoice")
            await #expect {
                try await db.migrate(PGDjangoInvoice.self)
            } throws: { error in
                guard case StrataError.schemaMismatch("invoice", let problems) = error else { return false }
                return problems.count == 2 && problems[0].hasPrefix("column Total (declared text")
                    && problems[1] == "column Total (allows NULL, but the property is not optional)"
            }
            // Without migrate=off's check, a query comparing the text total is refused before PostgreSQL's operator
            // error (text >= numeric); plain reads go through. A fresh database: the first one read the renamed
            // table's columns before psql swapped it behind Strata's back.
            try psql(
                nil,
                """
                INSERT INTO strata_existing.invoice ("InvoiceDate", "Total")
                  VALUES ('2009-01-01 00:00:00+00', '2.98'), ('2009-01-02 00:00:00+00', '10')
                """)
            let fresh = try PostgresTestServer.open("search_path=strata_existing")
            defer { fresh.close() }
            await #expect {
                try await PGDjangoInvoice.query(on: fresh).where(\.total >= Decimal(10)).count()
            } throws: { error in
                guard case StrataError.schemaMismatch("invoice", let problems) = error else { return false }
                return problems.count == 1 && problems[0].hasPrefix("column Total (stores text: model PGDjangoInvoice")
            }
            let read = try await PGDjangoInvoice.query(on: fresh).order(\.id).all().map { Optional($0.total) }
            #expect(read == ["2.98", "10"].map { Decimal(string: $0) })
            try await PostgresTestServer.dropSchema("strata_existing")
        }
    }
}
