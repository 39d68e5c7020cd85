// BenchRecord: the benchmark's model (id, three Int, three Double, three short String) and its raw twin.
import Strata

/// The row every workload writes and reads through Strata: ten columns, indexed on `i1`.
@Model(table: "bench_record")
struct BenchRecord {
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

    static var indexes: [Index] { [.on(\BenchRecord.i1)] }
}

/// The same ten fields as a plain struct: what the raw C baselines read rows into.
struct RawRecord {
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
}

/// ``BenchRecord`` with its three text columns sealed: what `insert-encrypted` writes (see ``Workload``).
@Model(table: "bench_secret")
struct BenchSecret {
    var id: Int64?
    var i1: Int
    var i2: Int
    var i3: Int
    var d1: Double
    var d2: Double
    var d3: Double
    @Encrypted(.deterministic) var s1: String
    @Encrypted var s2: String
    @Encrypted var s3: String

    init(_ r: BenchRecord) {
        (i1, i2, i3, d1, d2, d3, s1, s2, s3) = (r.i1, r.i2, r.i3, r.d1, r.d2, r.d3, r.s1, r.s2, r.s3)
    }

    /// The record it was made from, with the id it was given.
    var record: BenchRecord {
        var r = BenchRecord(i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3)
        r.id = id
        return r
    }
}

/// ``BenchRecord`` with history on: what `insert-history` writes (see ``Workload``).
@Model(table: "bench_tracked")
struct BenchTracked {
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
    static let tracksHistory = true

    init(_ r: BenchRecord) {
        (i1, i2, i3, d1, d2, d3, s1, s2, s3) = (r.i1, r.i2, r.i3, r.d1, r.d2, r.d3, r.s1, r.s2, r.s3)
    }

    /// The record it was made from, with the id it was given.
    var record: BenchRecord {
        var r = BenchRecord(i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3)
        r.id = id
        return r
    }
}
