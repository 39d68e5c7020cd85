// CTEDescendants: the cte-descendants workload: recursive walks down chains of rows, each with its depth.
import CSQLite
import Strata

/// `WITH RECURSIVE strata_walk (cols, strata_depth) AS (SELECT cols, 0 … WHERE id = ? UNION ALL SELECT
/// bench_record.cols, strata_walk.strata_depth + 1 FROM bench_record INNER JOIN strata_walk … ON bench_record.i1 =
/// strata_walk.i2 WHERE strata_walk.strata_depth < ?) SELECT cols, strata_depth FROM strata_walk AS bench_record`:
/// the statement Strata renders for `walk(from:joining:toFound:maxDepth:)` read by `allWithDepth()` on SQLite,
/// written unquoted for libsqlite3. Each level finds the row whose `i1` (indexed) is the last row's `i2`: a chain
/// of up to ``levels`` + 1 rows from each start.
enum CTEDescendants {
    /// Walks per timed run.
    static let walks = 50
    /// The deepest level each walk reaches.
    static let levels = 20
    /// The most rows a timed run reads (each walk's levels and its start): room both sides reserve for them.
    static let rows = walks * (levels + 1)

    static let columns = BenchSQL.columns
    static let qualified = ["id", "i1", "i2", "i3", "d1", "d2", "d3", "s1", "s2", "s3"].map { "bench_record." + $0 }
        .joined(separator: ", ")
    static let sql =
        "WITH RECURSIVE strata_walk (\(columns), strata_depth) AS (SELECT \(columns), 0 FROM bench_record"
        + " WHERE (id = ?) UNION ALL SELECT \(qualified), strata_walk.strata_depth + 1 FROM bench_record INNER JOIN strata_walk AS"
        + " strata_walk ON (bench_record.i1 = strata_walk.i2) WHERE (strata_walk.strata_depth < ?))"
        + " SELECT \(columns), strata_depth FROM strata_walk AS bench_record"

    /// The row walk `k` starts from (0-based, added to the seeded table's first id): spread over the table.
    static func start(_ k: Int) -> Int64 { Int64((k &* 1_201) % 5_000) }
}

extension StrataContender {
    /// The walks through the typed builder, in one read transaction.
    func cteDescendants(base: Int64) async throws -> Sample {
        var found: [BenchRecord] = []
        found.reserveCapacity(CTEDescendants.rows)
        var depths = 0
        return try await timedAsync(
            {
                found.removeAll(keepingCapacity: true)
                depths = 0
                try await db.transaction { tx in
                    for k in 0..<CTEDescendants.walks {
                        let q = BenchRecord.query(on: tx)
                        let walk = try q.walk(
                            from: q.where(\.id == base + CTEDescendants.start(k)), joining: \.i1, toFound: \.i2,
                            maxDepth: CTEDescendants.levels
                        ).allWithDepth()
                        for (record, depth) in walk {
                            found.append(record)
                            depths &+= depth
                        }
                    }
                }
            }, digest: { Digests.of(found, base: base) })
    }
}

extension SQLiteRawContender {
    /// The same walks through libsqlite3: ``CTEDescendants/sql`` prepared once, the start and bound bound per walk.
    func cteDescendants(base: Int64) async throws -> Sample {
        let s = try db.statement(CTEDescendants.sql)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        var found: [RawRecord] = []
        found.reserveCapacity(CTEDescendants.rows)
        var depths = 0
        return try timed(
            {
                found.removeAll(keepingCapacity: true)
                depths = 0
                try db.stepDone(begin)
                for k in 0..<CTEDescendants.walks {
                    sqlite3_bind_int64(s, 1, base + CTEDescendants.start(k))
                    sqlite3_bind_int64(s, 2, Int64(CTEDescendants.levels))
                    while sqlite3_step(s) == SQLITE_ROW {
                        found.append(RawSQLite.record(s))
                        depths &+= Int(sqlite3_column_int64(s, 10))
                    }
                    sqlite3_reset(s)
                }
                try db.stepDone(commit)
            }, digest: { Digests.of(found, base: base) })
    }
}
