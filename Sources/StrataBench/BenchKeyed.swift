// BenchKeyed: the upsert workload's model (bench_record's columns, unique on i1) and the SQL its raw side sends.
import Strata

/// The row the upsert workload writes: the ten columns of ``BenchRecord`` in their own table, `i1` unique.
@Model(table: "bench_keyed")
struct BenchKeyed {
    var id: Int64?
    var i1: Int
    var i2: Int
    var i3: Int
    var d1: Double
    var d2: Double
    var d3: Double
    var s1: String
    var s2: String
    var s3: String

    static var indexes: [Index] { [.on(\BenchKeyed.i1, unique: true)] }
}

/// The upsert workload's rows and statements, the same on both sides.
enum KeyedBench {
    /// Row `k` as the upsert writes it: ``RecordFactory`` row `k` (`i1` is unique below 100,003 rows).
    static func raw(_ k: Int) -> RawRecord { RecordFactory.raw(k) }

    /// Row `k` as seeded before the upsert (every other row): other values under the same key.
    static func seededRaw(_ k: Int) -> RawRecord {
        var r = RecordFactory.raw(k)
        r.i2 = -k
        r.s1 = "old-\(k)"
        return r
    }

    static func model(_ r: RawRecord) -> BenchKeyed {
        BenchKeyed(id: nil, i1: r.i1, i2: r.i2, i3: r.i3, d1: r.d1, d2: r.d2, d3: r.d3, s1: r.s1, s2: r.s2, s3: r.s3)
    }

    static func raw(_ m: BenchKeyed) -> RawRecord {
        RawRecord(id: m.id, i1: m.i1, i2: m.i2, i3: m.i3, d1: m.d1, d2: m.d2, d3: m.d3, s1: m.s1, s2: m.s2, s3: m.s3)
    }

    /// The keys seeded before each run: rows 0, 2, 4, … below `count`.
    static func seeded(_ count: Int) -> [RawRecord] { stride(from: 0, to: count, by: 2).map(seededRaw) }

    /// Rows per statement, as `upsertAll` computes it: the bind limit over the nine inserted columns.
    static func rowsPerStatement(bindLimit: Int) -> Int {
        max(1, bindLimit / max(1, BenchKeyed.schema.insertColumnNames.count))
    }

    static let selectAll = "SELECT \(BenchSQL.columns) FROM bench_keyed ORDER BY id"

    /// The statement `upsertAll(onConflict: [\.i1])` sends for `rows` rows, as a person would write it.
    static func upsert(rows: Int, placeholder: (Int) -> String) -> String {
        BenchSQL.multiRowInsert(rows: rows, placeholder: placeholder)
            .replacingOccurrences(of: "INSERT INTO bench_record", with: "INSERT INTO bench_keyed")
            + " ON CONFLICT (i1) DO UPDATE SET i2 = excluded.i2, i3 = excluded.i3, d1 = excluded.d1,"
            + " d2 = excluded.d2, d3 = excluded.d3, s1 = excluded.s1, s2 = excluded.s2, s3 = excluded.s3 RETURNING id"
    }
}
