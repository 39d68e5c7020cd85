// WindowSum: the window-sum workload: a running sum within each partition of an i1 range's rows, as typed tuples.
import CSQLite
import Strata

/// `SELECT id, SUM(i3) OVER (PARTITION BY s3 ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM
/// bench_record WHERE ((i1 >= ?) AND (i1 < ?))`: what a C program writes for Strata's `select(.column(\.id),
/// .sum(\.i3, over: .partition(by: \.s3).order(\.id)))` (Strata's side calls its checked `strata_int_sum` for
/// SQLite's `SUM`, so a total past Int64 is the same typed error as on PostgreSQL). About 750 of 100,000 rows each
/// query, in 7 partitions.
enum WindowSum {
    /// Queries per timed run.
    static let queries = 50
    /// The width of each query's i1 range.
    static let width = 750

    static let sql =
        "SELECT id, SUM(i3) OVER (PARTITION BY s3 ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
        + "FROM bench_record WHERE ((i1 >= ?) AND (i1 < ?))"

    /// The lowest i1 of query `k`: spread over the table, the same on both sides.
    static func low(_ k: Int) -> Int { (k &* 7_919) % (RecordFactory.i1Range - width) }

    /// Adds one row: its id relative to the side's first, and its running sum.
    static func add(id: Int64?, sum: Int64?, base: Int64, to d: inout Digest) {
        var h = Hasher64()
        h.add(UInt64(bitPattern: id.map { $0 &- base } ?? -1))
        h.add(UInt64(bitPattern: sum ?? .min))
        d = Digest(value: d.value &+ h.finish(), rows: d.rows + 1)
    }
}

extension StrataContender {
    /// The running sums through the typed builder, `(Int64?, Int64?)` tuples, in one read transaction.
    func windowSum(base: Int64) async throws -> Sample {
        var d = Digest()
        return try await timedAsync(
            {
                d = Digest()
                try await db.transaction { tx in
                    for k in 0..<WindowSum.queries {
                        let lo = WindowSum.low(k)
                        let rows = try BenchRecord.query(on: tx).where(\.i1 >= lo && \.i1 < lo + WindowSum.width)
                            .select(.column(\.id), .sum(\.i3, over: .partition(by: \.s3).order(\.id)))
                        for (id, sum) in rows { WindowSum.add(id: id, sum: sum, base: base, to: &d) }
                    }
                }
            }, digest: { d })
    }
}

extension SQLiteRawContender {
    /// The same queries through libsqlite3: ``WindowSum/sql`` prepared once, two bounds bound per query.
    func windowSum(base: Int64) async throws -> Sample {
        let s = try db.statement(WindowSum.sql)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        var d = Digest()
        return try timed(
            {
                d = Digest()
                try db.stepDone(begin)
                for k in 0..<WindowSum.queries {
                    let lo = Int64(WindowSum.low(k))
                    sqlite3_bind_int64(s, 1, lo)
                    sqlite3_bind_int64(s, 2, lo + Int64(WindowSum.width))
                    while sqlite3_step(s) == SQLITE_ROW {
                        let id: Int64? =
                            sqlite3_column_type(s, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(s, 0)
                        let sum: Int64? =
                            sqlite3_column_type(s, 1) == SQLITE_NULL ? nil : sqlite3_column_int64(s, 1)
                        WindowSum.add(id: id, sum: sum, base: base, to: &d)
                    }
                    sqlite3_reset(s)
                }
                try db.stepDone(commit)
            }, digest: { d })
    }
}
