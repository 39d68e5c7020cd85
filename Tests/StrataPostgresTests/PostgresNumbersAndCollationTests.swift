// PostgresNumbersAndCollationTests: numbers psql stored as text are refused; DISTINCT and grouped text sort by code point.
import Foundation
import Strata
import StrataPostgres
import Testing

/// Django's `Total` and a line count on a hand-made table that declared them as text.
@Model(table: "invoice_text")
struct PGTextTotalInvoice {
    var id: Int64?
    @Column("Total") var total: Decimal
    @Column("Lines") var lines: Int64
}

/// The same table mapped as it stores: strings.
@Model(table: "invoice_text")
struct PGTextTotalInvoiceRaw {
    var id: Int64?
    @Column("Total") var total: String
    @Column("Lines") var lines: String
}

extension PostgresServerTests {
    @Suite("PostgreSQL numbers stored as text, and code-point order of distinct and grouped text")
    struct PostgresNumbersAndCollationTests {
        /// Runs the real `psql` tool with the server's libpq environment on `database`; returns what it prints.
        @discardableResult
        func psql(_ database: String?, _ sql: String) throws -> String {
            let p = Process()
            let out = Pipe()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
            p.arguments =
                ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"] + (database.map { ["-d", $0] } ?? []) + ["-c", sql]
            p.standardOutput = out
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            try #require(p.terminationStatus == 0)
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        static let totals = ["2.98", "10", "9.5", "12345678901234567.89"]
        static let lines = ["9", "10", "2", "100"]

        func isRefusal(_ error: any Error) -> Bool {
            guard case StrataError.schemaMismatch("invoice_text", let problems) = error, problems.count == 2 else {
                return false
            }
            return problems[0].hasPrefix("column Total (declared text: model PGTextTotalInvoice reads it as a Decimal")
                && problems[1].hasPrefix(
                    "column Lines (declared character varying(10): model PGTextTotalInvoice reads it as an integer")
        }

        @Test(
            "every query on a Decimal or Int64 over text is refused before it runs, migrated or not",
            arguments: ["", "migrate=off"])
        func numbersAsTextRefused(parameter: String) async throws {
            try #require(PostgresTestServer.baseURL == "postgres://", "psql follows the PG* environment only")
            let schema = parameter.isEmpty ? "strata_numtext_on" : "strata_numtext_off"
            let db = try await PostgresTestServer.freshSchema(schema, parameter.isEmpty ? "migrate=on" : parameter)
            defer { db.close() }
            let rows = zip(Self.totals, Self.lines).map { "('\($0)', '\($1)')" }.joined(separator: ", ")
            try psql(
                nil,
                """
                SET search_path TO \(schema);
                CREATE TABLE invoice_text (id serial PRIMARY KEY, "Total" text NOT NULL, "Lines" varchar(10) NOT NULL);
                INSERT INTO invoice_text ("Total", "Lines") VALUES \(rows);
                """)
            let ten = Decimal(10)
            await #expect(
                performing: { try await PGTextTotalInvoice.query(on: db).where(\.total >= ten).all() },
                throws: isRefusal)
            await #expect(
                performing: { try await PGTextTotalInvoice.query(on: db).order(\.total).all() }, throws: isRefusal)
            await #expect(performing: { try await PGTextTotalInvoice.query(on: db).max(\.total) }, throws: isRefusal)
            await #expect(performing: { try await PGTextTotalInvoice.query(on: db).min(\.lines) }, throws: isRefusal)
            await #expect(
                performing: { try await PGTextTotalInvoice.query(on: db).where(\.lines, in: [9, 10]).count() },
                throws: isRefusal)
            await #expect(
                performing: {
                    try await PGTextTotalInvoice.query(on: db).where(\.total < ten).set(\.lines, to: Int64(0)).update()
                },
                throws: isRefusal)
            _ = try? await db.migrate(PGTextTotalInvoice.self)
            await #expect(performing: { try await PGTextTotalInvoice.query(on: db).count() }, throws: isRefusal)
            let raw = try await PGTextTotalInvoiceRaw.query(on: db).order(\.id).all()
            #expect(raw.map(\.total) == Self.totals)
            #expect(raw.map(\.lines) == Self.lines)
            let posix = Locale(identifier: "en_US_POSIX")
            let numeric = Self.totals.compactMap { Decimal(string: $0, locale: posix) }.filter { $0 >= ten }.count
            #expect(
                try psql(nil, #"SELECT count(*) FROM \#(schema).invoice_text WHERE "Total"::numeric >= 10"#)
                    == "\(numeric)", "the rows are all there, unchanged")
            try await PostgresTestServer.dropSchema(schema)
        }

        @Test("in a database with an ICU collation, distinct rows, distinct values and groups sort by code point")
        func distinctAndGroupsByCodePoint() async throws {
            try #require(PostgresTestServer.baseURL == "postgres://", "psql follows the PG* environment only")
            try psql(nil, "DROP DATABASE IF EXISTS strata_icu_distinct")
            try psql(
                nil,
                "CREATE DATABASE strata_icu_distinct TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' "
                    + "LOCALE 'C.UTF-8'")
            let words = ["a", "B", "_", "Z", "é", "b", "B", "a"]
            try psql(
                "strata_icu_distinct",
                "CREATE TABLE word (id bigserial PRIMARY KEY, word text NOT NULL); INSERT INTO word (word) VALUES "
                    + words.map { "('\($0)')" }.joined(separator: ", "))
            let codePoint = { (a: String, b: String) in a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars) }
            let distinct = Set(words).sorted(by: codePoint)
            let own = try psql("strata_icu_distinct", "SELECT string_agg(DISTINCT word, '' ORDER BY word) FROM word")
            #expect(own != distinct.joined(), "the ICU order (\(own)) is not code-point order")
            let db = try Database.open(
                PostgresTestServer.url("dbname=strata_icu_distinct", "migrate=off"), drivers: [.postgres])
            #expect(try await PGWord.query(on: db).distinct().order(\.word).values(\.word) == distinct)
            #expect(
                try await PGWord.query(on: db).distinct().order(\.word, .descending).values(\.word)
                    == distinct.reversed())
            #expect(
                try await PGWord.query(on: db).distinct().order(\.word).order(\.id).all().map(\.word)
                    == words.sorted(by: codePoint))
            #expect(
                try await PGWord.query(on: db).distinct().order(.column(\.word)).select(.column(\.word)) == distinct)
            let groups = try await PGWord.query(on: db).group(by: \.word).order(.column(\.word))
                .select(.column(\.word), .count())
            #expect(groups.map(\.0) == distinct)
            #expect(groups.map(\.1) == distinct.map { w in words.filter { $0 == w }.count })
            db.close()
            try psql(nil, "DROP DATABASE strata_icu_distinct")
        }
    }
}
