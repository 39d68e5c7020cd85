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
