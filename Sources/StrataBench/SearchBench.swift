// SearchBench: the search workload: full-text matches (two words ORed, a prefix) over 20,000 search documents.
import CPostgres
import CSQLite
import Strata

/// The search workload's table: a number, a title of twelve words from a vocabulary of 1,000, and the search
/// document Strata writes from the title.
@Model(table: "bench_article")
struct BenchArticle {
    var id: Int64?
    var n: Int
    var title: String
    var searchDocument = ""
    static var searchable: SearchableColumns<BenchArticle>? { .init(\.title, document: \.searchDocument) }
}

/// `SELECT n, title FROM bench_article WHERE (bench_article.rowid IN (SELECT rowid FROM <the FTS5 index> WHERE
/// <the FTS5 index> MATCH '("wA" OR "wB") AND "wC"*') AND ((instr(doc, ' wA ') > 0 OR instr(doc, ' wB ') > 0) AND
/// instr(doc, ' wC') > 0))` with each `doc` the document padded with spaces: the statement Strata renders on
/// SQLite for `match("wA OR wB wC*").select(.column(\.n), .column(\.title))` (the FTS5 index automatic
/// migration made finds the candidates, the scan confirms them), written unquoted for libsqlite3. About 60 of
/// 20,000 rows each query.
enum SearchBench {
    /// Documents in the table.
    static let rows = 20_000
    /// Queries per timed run.
    static let queries = 50
    /// Words per title.
    static let words = 12

    static let padded = "(' ' || search_document || ' ')"
    /// The FTS5 index of the document.
    static let index = "bench_article_search_document_fts"
    static let sql =
        "SELECT n, title FROM bench_article WHERE (bench_article.rowid IN (SELECT rowid FROM \(index) WHERE "
        + "\(index) MATCH ?) AND (((instr(\(padded), ?) > 0) OR (instr(\(padded), ?) > 0))"
        + " AND (instr(\(padded), ?) > 0)))"

    /// Query `k` as the FTS5 expression Strata binds: `("wA" OR "wB") AND "wC"*`.
    static func fts5(_ k: Int) -> String {
        let (a, b, c) = terms(k)
        return "(\"\(a)\" OR \"\(b)\") AND \"\(c)\"*"
    }

    /// Article `k`: twelve words `w0` … `w999`, spread by a multiplier prime to 1,000.
    static func article(_ k: Int) -> BenchArticle {
        BenchArticle(
            n: k, title: (0..<words).map { "W\((k &* 7_919 &+ $0 &* 104_729) % 1_000)" }.joined(separator: " "))
    }

    /// The words of query `k`: two whole words and a two-digit prefix.
    static func terms(_ k: Int) -> (String, String, String) {
        ("w\((k &* 37) % 1_000)", "w\((k &* 101 &+ 7) % 1_000)", "w\(10 + (k &* 13) % 90)")
    }

    /// Query `k` in Strata's syntax.
    static func query(_ k: Int) -> String {
        let (a, b, c) = terms(k)
        return "\(a) OR \(b) \(c)*"
    }

    /// Adds one row: its number and its title.
    static func add(n: Int64, title: String, to d: inout Digest) {
        var h = Hasher64()
        h.add(UInt64(bitPattern: n))
        h.add(title)
        d = Digest(value: d.value &+ h.finish(), rows: d.rows + 1)
    }
}

extension StrataContender {
    /// Creates and fills `bench_article` unless it holds ``SearchBench/rows`` articles already.
    func prepareArticles() async throws {
        try await db.migrate(BenchArticle.self)
        if try await BenchArticle.query(on: db).count() == SearchBench.rows { return }
        try await db.withConnection { tx in _ = try BenchArticle.deleteAll(tx) }
        var articles = (0..<SearchBench.rows).map(SearchBench.article)
        try await BenchArticle.insertAll(&articles, on: db)
    }

    /// The matches through the typed builder, `(Int, String)` tuples, in one read transaction.
    func searchQueries() async throws -> Sample {
        var d = Digest()
        return try await timedAsync(
            {
                d = Digest()
                try await db.transaction { tx in
                    for k in 0..<SearchBench.queries {
                        let rows = try BenchArticle.query(on: tx).match(SearchBench.query(k))
                            .select(.column(\.n), .column(\.title))
                        for (n, title) in rows { SearchBench.add(n: Int64(n), title: title, to: &d) }
                    }
                }
            }, digest: { d })
    }
}

extension SQLiteRawContender {
    /// The same queries through libsqlite3: ``SearchBench/sql`` prepared once, the FTS5 expression and three
    /// patterns bound per query.
    func searchQueries() async throws -> Sample {
        let s = try db.statement(SearchBench.sql)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        let transient = strata_sqlite_transient()
        var d = Digest()
        return try timed(
            {
                d = Digest()
                try db.stepDone(begin)
                for k in 0..<SearchBench.queries {
                    let (a, b, c) = SearchBench.terms(k)
                    sqlite3_bind_text(s, 1, SearchBench.fts5(k), -1, transient)
                    sqlite3_bind_text(s, 2, " \(a) ", -1, transient)
                    sqlite3_bind_text(s, 3, " \(b) ", -1, transient)
                    sqlite3_bind_text(s, 4, " \(c)", -1, transient)
                    while sqlite3_step(s) == SQLITE_ROW {
                        let title = sqlite3_column_text(s, 1).map { String(cString: $0) } ?? ""
                        SearchBench.add(n: sqlite3_column_int64(s, 0), title: title, to: &d)
                    }
                    sqlite3_reset(s)
                }
                try db.stepDone(commit)
            }, digest: { d })
    }
}

extension SearchBench {
    /// The statement Strata renders on PostgreSQL for the same match: the stored lexemes against one tsquery.
    static let postgresSQL =
        "SELECT n, title FROM bench_article WHERE (array_to_tsvector(array_remove(string_to_array(search_document,"
        + " ' '), '')) @@ CAST($1 AS tsquery))"

    /// Query `k` as the tsquery text Strata binds: `( 'wA' | 'wB' ) & 'wC':*`.
    static func tsquery(_ k: Int) -> String {
        let (a, b, c) = terms(k)
        return "( '\(a)' | '\(b)' ) & '\(c)':*"
    }
}

extension PostgresRawContender {
    /// The same queries through libpq: ``SearchBench/postgresSQL`` prepared once, the tsquery text bound.
    func searchQueries() async throws -> Sample {
        try pg.prepare("search", SearchBench.postgresSQL, parameters: 1)
        var d = Digest()
        return try timed(
            {
                d = Digest()
                try pg.exec("BEGIN")
                for k in 0..<SearchBench.queries {
                    params.removeAll()
                    params.append(text: SearchBench.tsquery(k))
                    let r = try pg.run("search", params)
                    for i in 0..<PQntuples(r) {
                        let n = PQgetvalue(r, i, 0).flatMap { Int64(String(cString: $0)) } ?? 0
                        let title = PQgetvalue(r, i, 1).map { String(cString: $0) } ?? ""
                        SearchBench.add(n: n, title: title, to: &d)
                    }
                    PQclear(r)
                }
                try pg.exec("COMMIT")
            }, digest: { d })
    }
}
