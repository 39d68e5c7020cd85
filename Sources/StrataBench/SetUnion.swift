// SetUnion: the set-union workload: UNIONs of two overlapping i1 ranges, each read whole, in one read transaction.
import CSQLite
import Strata

/// `SELECT cols FROM (SELECT cols … WHERE i1 in [lo, lo+500) UNION SELECT cols … WHERE i1 in [lo+250, lo+750)) AS
/// strata_set`: the statement Strata renders for `where(…).union(…)` on SQLite, written unquoted for libsqlite3.
/// About 750 rows of 100,000 each run, a third of them found by both branches.
enum SetUnion {
    /// Queries per timed run.
    static let queries = 50
    /// Each branch's width of i1 values, and how far the second starts after the first.
    static let (width, step) = (500, 250)

    static let branch = "SELECT \(BenchSQL.columns) FROM bench_record WHERE ((i1 >= ?) AND (i1 < ?))"
    static let sql = "SELECT \(BenchSQL.columns) FROM (\(branch) UNION \(branch)) AS strata_set"

    /// The first branch's lowest i1 in run `k`: spread over the table, the same on both sides.
    static func low(_ k: Int) -> Int { (k &* 7_919) % (RecordFactory.i1Range - width - step) }
}

extension StrataContender {
    /// The UNIONs through the typed builder, in one read transaction.
    func setUnion(base: Int64) async throws -> Sample {
        var found: [BenchRecord] = []
        return try await timedAsync(
            {
                found = []
                try await db.transaction { tx in
                    for k in 0..<SetUnion.queries {
                        let lo = SetUnion.low(k)
                        let q = BenchRecord.query(on: tx)
                        found += try q.where(\.i1 >= lo && \.i1 < lo + SetUnion.width)
                            .union(q.where(\.i1 >= lo + SetUnion.step && \.i1 < lo + SetUnion.step + SetUnion.width))
                            .all()
                    }
                }
            }, digest: { Digests.of(found, base: base) })
    }
}

extension SQLiteRawContender {
    /// The same UNIONs through libsqlite3: ``SetUnion/sql`` prepared once, four bounds bound per run.
    func setUnion(base: Int64) async throws -> Sample {
        let s = try db.statement(SetUnion.sql)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        var found: [RawRecord] = []
        return try timed(
            {
                found = []
                try db.stepDone(begin)
                for k in 0..<SetUnion.queries {
                    let lo = Int64(SetUnion.low(k))
                    let (w, step) = (Int64(SetUnion.width), Int64(SetUnion.step))
                    for (n, v) in [lo, lo + w, lo + step, lo + step + w].enumerated() {
                        sqlite3_bind_int64(s, Int32(n + 1), v)
                    }
                    while sqlite3_step(s) == SQLITE_ROW { found.append(RawSQLite.record(s)) }
                    sqlite3_reset(s)
                }
                try db.stepDone(commit)
            }, digest: { Digests.of(found, base: base) })
    }
}
