// BinaryCopy: encodes records in PostgreSQL's binary COPY format (header, tuples of big-endian fields, trailer).

/// The bytes of a `COPY bench_record (i1, …, s3) FROM STDIN (FORMAT binary)`, for the bulk floor.
///
/// Columns are `bigint` ×3, `double precision` ×3, `text` ×3 (what Strata's migration creates):
/// each field is a 4-byte length and its bytes, integers and doubles big-endian.
struct BinaryCopy {
    private(set) var bytes: [UInt8] = []

    /// `PGCOPY\n\377\r\n\0`, flags 0, header extension length 0.
    private static let header: [UInt8] = [
        0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
    ]

    /// Starts over, keeping the storage.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        bytes += Self.header
    }

    mutating func append(_ r: RawRecord) {
        if bytes.isEmpty { bytes += Self.header }
        put16(UInt16(BenchSQL.insertWidth))
        field64(UInt64(bitPattern: Int64(r.i1)))
        field64(UInt64(bitPattern: Int64(r.i2)))
        field64(UInt64(bitPattern: Int64(r.i3)))
        field64(r.d1.bitPattern)
        field64(r.d2.bitPattern)
        field64(r.d3.bitPattern)
        text(r.s1)
        text(r.s2)
        text(r.s3)
    }

    /// An 8-byte field (a bigint, or a double's bits).
    private mutating func field64(_ v: UInt64) {
        put32(8)
        put64(v)
    }

    private mutating func text(_ s: String) {
        put32(UInt32(s.utf8.count))
        bytes += s.utf8
    }

    /// The trailer: a field count of -1.
    mutating func finish() { put16(0xFFFF) }

    private mutating func put16(_ v: UInt16) {
        bytes.append(UInt8(v >> 8))
        bytes.append(UInt8(v & 0xFF))
    }

    private mutating func put32(_ v: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8((v >> UInt32(shift)) & 0xFF)) }
    }

    private mutating func put64(_ v: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((v >> UInt64(shift)) & 0xFF)) }
    }
}
