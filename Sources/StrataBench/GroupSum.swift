// GroupSum: the group-by-sum workload's query, its digest and Strata's side of it.
import Strata

/// `SELECT s2, COUNT(*), SUM(i1) FROM bench_record GROUP BY s2 ORDER BY s2 ASC`: 1,000 groups of
/// 100 rows at full scale, the same text (identifiers quoted by Strata) on both sides. SQLite sorts NULL first by
/// itself; PostgreSQL names `NULLS FIRST`, as Strata does for a column that can be NULL.
enum GroupSum {
    static let sql =
        "SELECT s2, COUNT(*), SUM(i1) FROM bench_record GROUP BY s2 ORDER BY s2 ASC"
    static let postgresSQL = sql + " NULLS FIRST"

    /// Adds one group: its key, row count and sum.
    static func add(_ key: String, count: Int64, sum: Int64, to d: inout Digest) {
        var h = Hasher64()
        h.add(key)
        h.add(UInt64(bitPattern: count))
        h.add(UInt64(bitPattern: sum))
        d = Digest(value: d.value &+ h.finish(), rows: d.rows + 1)
    }
}

extension StrataContender {
    /// The grouped query through the typed builder: typed tuples `(String, Int, Int64?)`.
    func groupSum() async throws -> Sample {
        try await timedAsync(
            {
                try await db.transaction { tx in
                    try BenchRecord.query(on: tx).group(by: \.s2).order(\.s2)
                        .select(.column(\.s2), .count(), .sum(\.i1))
                }
            },
            digest: { rows in
                var d = Digest()
                for (key, count, sum) in rows { GroupSum.add(key, count: Int64(count), sum: sum ?? 0, to: &d) }
                return d
            })
    }
}
