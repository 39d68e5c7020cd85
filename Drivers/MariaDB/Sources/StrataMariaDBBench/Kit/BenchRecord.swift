// BenchRecord: the bench's models (bench_record, and bench_keyed unique on i1) and their raw twin.
import Strata

/// The row the workloads write and read through Strata: ten columns, indexed on `i1` (the root bench's model).
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

/// The same ten fields as a plain struct: what the raw side reads rows into and writes rows from.
struct RawRecord: Equatable {
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

extension RawRecord {
    init(_ r: BenchRecord) {
        self.init(id: r.id, i1: r.i1, i2: r.i2, i3: r.i3, d1: r.d1, d2: r.d2, d3: r.d3, s1: r.s1, s2: r.s2, s3: r.s3)
    }

    init(_ r: BenchKeyed) {
        self.init(id: r.id, i1: r.i1, i2: r.i2, i3: r.i3, d1: r.d1, d2: r.d2, d3: r.d3, s1: r.s1, s2: r.s2, s3: r.s3)
    }

    var record: BenchRecord {
        BenchRecord(id: id, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3)
    }

    var keyed: BenchKeyed {
        BenchKeyed(id: id, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3)
    }
}
