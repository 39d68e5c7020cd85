// AssocAggregate: the assoc-aggregate workload: blogs read with the count and sum of their posts, without N+1.
import CPostgres
import CSQLite
import Strata

/// The assoc-aggregate workload's parent table: a number (indexed: the queries' range) and a name.
@Model(table: "bench_blog")
struct BenchBlog {
    var id: Int64?
    var n: Int
    var name: String
    static let posts = hasMany(BenchPost.self, key: \.blogID)
    static var indexes: [Index] { [.on(\BenchBlog.n)] }
}

/// A post of a ``BenchBlog``: its blog (indexed: the join's key) and a vote count.
@Model(table: "bench_post")
struct BenchPost {
    var id: Int64?
    var blogID: Int64
    var votes: Int
    static var indexes: [Index] { [.on(\BenchPost.blogID)] }
}

/// `SELECT bench_blog.id, n, name, COUNT(j1.id), SUM(j1.votes) FROM bench_blog LEFT JOIN bench_post AS j1 ON
/// (bench_blog.id = j1.blog_id) WHERE n >= ? AND n < ? GROUP BY bench_blog.id ORDER BY n`: what a hand-written
/// statement does for `where(\.n >= lo && \.n < hi).order(\.n).all(with: .count(BenchBlog.posts),
/// .sum(BenchBlog.posts, of: \.votes))` (Strata groups by every column of the blog and checks the sum for overflow
/// in its own function on SQLite; the raw side groups by the key and uses the engine's `SUM`, which fails on
/// overflow too). 1,000 blogs, 20,000 posts (none for every tenth blog); 20 blogs, about 360 posts, each query.
enum AssocAggregate {
    /// Blogs in the table.
    static let blogs = 1_000
    /// Posts per blog that has posts.
    static let postsPerBlog = 20
    /// Queries per timed run.
    static let queries = 50
    /// Blogs per query.
    static let width = 20

    static let sqliteSQL =
        "SELECT bench_blog.id, bench_blog.n, bench_blog.name, COUNT(j1.id), SUM(j1.votes) FROM bench_blog"
        + " LEFT JOIN bench_post AS j1 ON (bench_blog.id = j1.blog_id)"
        + " WHERE ((bench_blog.n >= ?) AND (bench_blog.n < ?)) GROUP BY bench_blog.id ORDER BY bench_blog.n"
    static let postgresSQL =
        "SELECT bench_blog.id, bench_blog.n, bench_blog.name, COUNT(j1.id), SUM(j1.votes)::bigint FROM bench_blog"
        + " LEFT JOIN bench_post AS j1 ON (bench_blog.id = j1.blog_id)"
        + " WHERE ((bench_blog.n >= $1) AND (bench_blog.n < $2)) GROUP BY bench_blog.id ORDER BY bench_blog.n"

    /// Blog `k`.
    static func blog(_ k: Int) -> BenchBlog { BenchBlog(n: k, name: "blog-\(k)") }

    /// The posts of blog `k` (stored with id `id`): none for every tenth blog, so a count of 0 and a nil sum are
    /// read too.
    static func posts(_ k: Int, id: Int64) -> [BenchPost] {
        k % 10 == 3 ? [] : (0..<postsPerBlog).map { BenchPost(blogID: id, votes: (k &* 31 &+ $0 &* 17) % 100) }
    }

    /// The lowest `n` of query `k`.
    static func low(_ k: Int) -> Int { (k &* 389) % (blogs - width) }

    /// Adds one blog: its number, name, post count and vote sum (its id differs between sides; not digested).
    static func add(n: Int64, name: String, count: Int64, sum: Int64?, to d: inout Digest) {
        var h = Hasher64()
        h.add(UInt64(bitPattern: n))
        h.add(name)
        h.add(UInt64(bitPattern: count))
        h.add(UInt64(bitPattern: sum ?? -1))
        d = Digest(value: d.value &+ h.finish(), rows: d.rows + 1)
    }
}

extension StrataContender {
    /// Creates and fills `bench_blog` and `bench_post` unless they hold the workload's rows already.
    func prepareBlogs() async throws {
        try await db.migrate(BenchBlog.self, BenchPost.self)
        if try await BenchBlog.query(on: db).count() == AssocAggregate.blogs { return }
        try await db.withConnection { tx in
            _ = try BenchPost.deleteAll(tx)
            _ = try BenchBlog.deleteAll(tx)
        }
        var blogs = (0..<AssocAggregate.blogs).map(AssocAggregate.blog)
        try await BenchBlog.insertAll(&blogs, on: db)
        var posts = blogs.flatMap { AssocAggregate.posts($0.n, id: $0.id ?? 0) }
        try await BenchPost.insertAll(&posts, on: db)
    }

    /// The blogs with their posts' count and sum through `all(with:)`, `(BenchBlog, Int, Int64?)` tuples, in one
    /// read transaction.
    func assocAggregates() async throws -> Sample {
        var d = Digest()
        return try await timedAsync(
            {
                d = Digest()
                try await db.transaction { tx in
                    for k in 0..<AssocAggregate.queries {
                        let lo = AssocAggregate.low(k)
                        let rows = try BenchBlog.query(on: tx).where(\.n >= lo && \.n < lo + AssocAggregate.width)
                            .order(\.n).all(with: .count(BenchBlog.posts), .sum(BenchBlog.posts, of: \.votes))
                        for (blog, count, sum) in rows {
                            AssocAggregate.add(n: Int64(blog.n), name: blog.name, count: Int64(count), sum: sum, to: &d)
                        }
                    }
                }
            }, digest: { d })
    }
}

extension SQLiteRawContender {
    /// The same reads through libsqlite3: ``AssocAggregate/sqliteSQL`` prepared once, two bounds bound per query,
    /// each row's five columns read.
    func assocAggregates() async throws -> Sample {
        let s = try db.statement(AssocAggregate.sqliteSQL)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        var d = Digest()
        return try timed(
            {
                d = Digest()
                try db.stepDone(begin)
                for k in 0..<AssocAggregate.queries {
                    let lo = Int64(AssocAggregate.low(k))
                    sqlite3_bind_int64(s, 1, lo)
                    sqlite3_bind_int64(s, 2, lo + Int64(AssocAggregate.width))
                    while sqlite3_step(s) == SQLITE_ROW {
                        _ = sqlite3_column_int64(s, 0)
                        let name = sqlite3_column_text(s, 2).map { String(cString: $0) } ?? ""
                        let sum: Int64? = sqlite3_column_type(s, 4) == SQLITE_NULL ? nil : sqlite3_column_int64(s, 4)
                        AssocAggregate.add(
                            n: sqlite3_column_int64(s, 1), name: name, count: sqlite3_column_int64(s, 3), sum: sum,
                            to: &d)
                    }
                    sqlite3_reset(s)
                }
                try db.stepDone(commit)
            }, digest: { d })
    }
}

extension PostgresRawContender {
    /// The same reads through libpq: ``AssocAggregate/postgresSQL`` prepared once, two bounds bound per query.
    func assocAggregates() async throws -> Sample {
        try pg.prepare("assoc_aggregate", AssocAggregate.postgresSQL, parameters: 2)
        var d = Digest()
        return try timed(
            {
                d = Digest()
                try pg.exec("BEGIN")
                for k in 0..<AssocAggregate.queries {
                    let lo = AssocAggregate.low(k)
                    params.removeAll()
                    params.append(lo)
                    params.append(lo + AssocAggregate.width)
                    let r = try pg.run("assoc_aggregate", params)
                    for i in 0..<PQntuples(r) {
                        func int(_ column: Int32) -> Int64? {
                            PQgetisnull(r, i, column) == 1
                                ? nil
                                : PQgetvalue(r, i, column).flatMap {
                                    Int64(String(cString: $0))
                                }
                        }
                        _ = int(0)
                        let name = PQgetvalue(r, i, 2).map { String(cString: $0) } ?? ""
                        AssocAggregate.add(n: int(1) ?? 0, name: name, count: int(3) ?? 0, sum: int(4), to: &d)
                    }
                    PQclear(r)
                }
                try pg.exec("COMMIT")
            }, digest: { d })
    }
}
