// ExplainQuery: the explain workload: the plans of a tagged query, read as text.
import CSQLite
import Strata

/// `EXPLAIN QUERY PLAN /* bench.page */ SELECT cols FROM bench_record WHERE (i1 > ?) ORDER BY d1 ASC LIMIT ?`: the
/// statement `explain()` sends on SQLite for a query tagged `bench.page`, written unquoted for libsqlite3. Each plan's
/// lines (the `detail` column) are joined by newlines, as `explain()` returns them.
enum ExplainQuery {
    /// Plans per timed run.
    static let explains = 200
    /// The query's tag (a leading comment in its SQL).
    static let tag = "bench.page"
    /// Rows per page.
    static let limit = 20

    static let sql =
        "EXPLAIN QUERY PLAN /* \(tag) */ \(BenchSQL.selectAll) WHERE (i1 > ?) ORDER BY d1 ASC LIMIT ?"

    /// The lower bound of query `k`'s i1 range.
    static func threshold(_ k: Int) -> Int { (k &* 7_919) % RecordFactory.i1Range }

    /// Adds one plan's text.
    static func add(_ plan: String, to d: inout Digest) {
        var h = Hasher64()
        h.add(plan)
        d = Digest(value: d.value &+ h.finish(), rows: d.rows + 1)
    }
}

extension StrataContender {
    /// The plans through `explain()` of the query prepared once (as the raw side prepares its statement once), its
    /// bound bound per plan, in one read transaction.
    func explainQueries() async throws -> Sample {
        var d = Digest()
        let bound = QueryParameter<Int>("bound")
        return try await timedAsync(
            {
                d = Digest()
                try await db.transaction { tx in
                    let page = try BenchRecord.query(on: tx).tagged(ExplainQuery.tag).where(\.i1 > bound).order(\.d1)
                        .limit(ExplainQuery.limit).prepared()
                    for k in 0..<ExplainQuery.explains {
                        ExplainQuery.add(try page.binding(bound, to: ExplainQuery.threshold(k)).explain(), to: &d)
                    }
                }
            }, digest: { d })
    }
}

extension SQLiteRawContender {
    /// The same plans through libsqlite3: ``ExplainQuery/sql`` prepared once, the bound and the limit bound per
    /// plan, each row's `detail` column (the fourth) read and joined by newlines.
    func explainQueries() async throws -> Sample {
        let s = try db.statement(ExplainQuery.sql)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        var d = Digest()
        return try timed(
            {
                d = Digest()
                try db.stepDone(begin)
                for k in 0..<ExplainQuery.explains {
                    sqlite3_bind_int64(s, 1, Int64(ExplainQuery.threshold(k)))
                    sqlite3_bind_int64(s, 2, Int64(ExplainQuery.limit))
                    var plan = ""
                    while sqlite3_step(s) == SQLITE_ROW {
                        if !plan.isEmpty { plan += "\n" }
                        plan += RawSQLite.text(s, 3)
                    }
                    sqlite3_reset(s)
                    ExplainQuery.add(plan, to: &d)
                }
                try db.stepDone(commit)
            }, digest: { d })
    }
}
