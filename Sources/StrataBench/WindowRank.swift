// WindowRank: the window-rank workload: a rank within each partition of an i1 range's rows, read as typed tuples.
import CSQLite
import Strata

/// `SELECT id, RANK() OVER (PARTITION BY s3 ORDER BY i3 DESC) FROM bench_record WHERE ((i1 >= ?) AND (i1 < ?))`:
/// the statement Strata renders for `select(.column(\.id), .rank(over: .partition(by: \.s3).order(\.i3,
/// .descending)))` on SQLite, written unquoted for libsqlite3. About 750 of 100,000 rows each query, in 7
/// partitions (`s3` is `tag-0` … `tag-6`).
enum WindowRank {
    /// Queries per timed run.
    static let queries = 50
    /// The width of each query's i1 range.
    static let width = 750

    static let sql =
        "SELECT id, RANK() OVER (PARTITION BY s3 ORDER BY i3 DESC) FROM bench_record WHERE ((i1 >= ?) AND (i1 < ?))"

    /// The lowest i1 of query `k`: spread over the table, the same on both sides.
    static func low(_ k: Int) -> Int { (k &* 7_919) % (RecordFactory.i1Range - width) }

    /// Adds one row: its id relative to the side's first, and its rank.
    static func add(id: Int64?, rank: Int64, base: Int64, to d: inout Digest) {
        var h = Hasher64()
        h.add(UInt64(bitPattern: id.map { $0 &- base } ?? -1))
        h.add(UInt64(bitPattern: rank))
        d = Digest(value: d.value &+ h.finish(), rows: d.rows + 1)
    }
}

extension StrataContender {
    /// The ranked queries through the typed builder, `(Int64?, Int)` tuples, in one read transaction.
    func windowRank(base: Int64) async throws -> Sample {
        var d = Digest()
        return try await timedAsync(
            {
                d = Digest()
                try await db.transaction { tx in
                    for k in 0..<WindowRank.queries {
                        let lo = WindowRank.low(k)
                        let rows = try BenchRecord.query(on: tx).where(\.i1 >= lo && \.i1 < lo + WindowRank.width)
                            .select(.column(\.id), .rank(over: .partition(by: \.s3).order(\.i3, .descending)))
                        for (id, rank) in rows { WindowRank.add(id: id, rank: Int64(rank), base: base, to: &d) }
                    }
                }
            }, digest: { d })
    }
}

extension SQLiteRawContender {
    /// The same queries through libsqlite3: ``WindowRank/sql`` prepared once, two bounds bound per query.
    func windowRank(base: Int64) async throws -> Sample {
        let s = try db.statement(WindowRank.sql)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        var d = Digest()
        return try timed(
            {
                d = Digest()
                try db.stepDone(begin)
                for k in 0..<WindowRank.queries {
                    let lo = Int64(WindowRank.low(k))
                    sqlite3_bind_int64(s, 1, lo)
                    sqlite3_bind_int64(s, 2, lo + Int64(WindowRank.width))
                    while sqlite3_step(s) == SQLITE_ROW {
                        let id: Int64? =
                            sqlite3_column_type(s, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(s, 0)
                        WindowRank.add(id: id, rank: sqlite3_column_int64(s, 1), base: base, to: &d)
                    }
                    sqlite3_reset(s)
                }
                try db.stepDone(commit)
            }, digest: { d })
    }
}
