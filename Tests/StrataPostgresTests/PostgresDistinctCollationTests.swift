// PostgresDistinctCollationTests: in a database with another collation, DISTINCT and grouped text sort by code point.
import Foundation
import Strata
import StrataPostgres
import Testing

extension PostgresServerTests {
    @Suite("PostgreSQL code-point order of distinct and grouped text")
    struct PostgresDistinctCollationTests {
        /// Runs the real `psql` tool with the server's libpq environment on `database`; returns what it prints.
        @discardableResult
        func psql(_ database: String?, _ sql: String) throws -> String { try PSQLTool.run(database, sql) }

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
