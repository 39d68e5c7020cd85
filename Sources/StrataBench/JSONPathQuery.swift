// JSONPathQuery: the json-path workload: ranges of an indexed integer path inside a JSON column, read with a text path.
import CSQLite
import Strata

/// A document the json-path workload stores: a theme, a size and a few tags, as JSON.
struct BenchPrefs: Codable, Hashable, Sendable, DatabaseValueConvertible {
    var theme: String
    var size: Int
    var tags: [String]
}

/// The json-path workload's table: an id, a number and a JSON document, indexed on the document's `size`.
@Model(table: "bench_doc")
struct BenchDoc {
    var id: Int64?
    var n: Int
    var doc: BenchPrefs

    static var indexes: [Index] { [.on(json(\BenchDoc.doc, "size", as: Int.self))] }
}

/// `SELECT n, CASE WHEN json_type(doc, '$."theme"') = 'text' THEN json_extract(doc, '$."theme"') END FROM bench_doc
/// WHERE ((size path >= ?) AND (size path < ?))`: the statement Strata renders for
/// `where(json(\.doc, "size", as: Int.self) >= lo && … < hi).select(.column(\.n), .json(\.doc, "theme", as:
/// String.self))` on SQLite, written unquoted for libsqlite3; the index on the size path serves both bounds. About
/// 150 of 20,000 documents each query.
enum JSONPathQuery {
    /// Documents in the table.
    static let rows = 20_000
    /// Queries per timed run.
    static let queries = 50
    /// The width of each query's size range.
    static let width = 150

    static let size =
        #"CASE WHEN json_type(doc, '$."size"') = 'integer' AND typeof(json_extract(doc, '$."size"')) = 'integer'"#
        + #" THEN json_extract(doc, '$."size"') END"#
    static let sql =
        #"SELECT n, CASE WHEN json_type(doc, '$."theme"') = 'text' THEN json_extract(doc, '$."theme"') END"#
        + " FROM bench_doc WHERE ((\(size) >= ?) AND (\(size) < ?))"

    /// Document `k`: sizes spread over 0 ..< ``rows`` (7,919 is prime to it), seven themes, two tags.
    static func document(_ k: Int) -> BenchDoc {
        BenchDoc(
            n: k,
            doc: BenchPrefs(theme: "theme-\(k % 7)", size: (k &* 7_919) % rows, tags: ["t\(k % 3)", "u\(k % 5)"]))
    }

    /// The lowest size of query `k`.
    static func low(_ k: Int) -> Int { (k &* 3_511) % (rows - width) }

    /// Adds one row: its number and its theme.
    static func add(n: Int64, theme: String?, to d: inout Digest) {
        var h = Hasher64()
        h.add(UInt64(bitPattern: n))
        h.add(theme ?? "-")
        d = Digest(value: d.value &+ h.finish(), rows: d.rows + 1)
    }
}

extension StrataContender {
    /// Creates and fills `bench_doc` unless it holds ``JSONPathQuery/rows`` documents already.
    func prepareDocuments() async throws {
        try await db.migrate(BenchDoc.self)
        if try await BenchDoc.query(on: db).count() == JSONPathQuery.rows { return }
        try await db.withConnection { tx in _ = try BenchDoc.deleteAll(tx) }
        var docs = (0..<JSONPathQuery.rows).map(JSONPathQuery.document)
        try await BenchDoc.insertAll(&docs, on: db)
    }

    /// The path queries through the typed builder, `(Int, String?)` tuples, in one read transaction.
    func jsonPathQueries() async throws -> Sample {
        var d = Digest()
        return try await timedAsync(
            {
                d = Digest()
                try await db.transaction { tx in
                    for k in 0..<JSONPathQuery.queries {
                        let lo = JSONPathQuery.low(k)
                        let size = json(\BenchDoc.doc, "size", as: Int.self)
                        let rows = try BenchDoc.query(on: tx).where(size >= lo && size < lo + JSONPathQuery.width)
                            .select(.column(\.n), .json(\.doc, "theme", as: String.self))
                        for (n, theme) in rows { JSONPathQuery.add(n: Int64(n), theme: theme, to: &d) }
                    }
                }
            }, digest: { d })
    }
}

extension SQLiteRawContender {
    /// The same queries through libsqlite3: ``JSONPathQuery/sql`` prepared once, two bounds bound per query.
    func jsonPathQueries() async throws -> Sample {
        let s = try db.statement(JSONPathQuery.sql)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        var d = Digest()
        return try timed(
            {
                d = Digest()
                try db.stepDone(begin)
                for k in 0..<JSONPathQuery.queries {
                    let lo = Int64(JSONPathQuery.low(k))
                    sqlite3_bind_int64(s, 1, lo)
                    sqlite3_bind_int64(s, 2, lo + Int64(JSONPathQuery.width))
                    while sqlite3_step(s) == SQLITE_ROW {
                        let theme = sqlite3_column_text(s, 1).map { String(cString: $0) }
                        JSONPathQuery.add(n: sqlite3_column_int64(s, 0), theme: theme, to: &d)
                    }
                    sqlite3_reset(s)
                }
                try db.stepDone(commit)
            }, digest: { d })
    }
}
