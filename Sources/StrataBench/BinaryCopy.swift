// BinaryCopy: encodes records in PostgreSQL's binary COPY format (header, tuples of big-endian fields, trailer).

/// The bytes of a `COPY bench_record (i1, …, s3) FROM STDIN (FORMAT binary)`, for the bulk floor.
///
/// Columns are `bigint` ×3, `double precision` ×3, `text` ×3 (what Strata's migration creates):
/// each field is a 4-byte length and its bytes, integers and doubles big-endian. Written through a raw
/// pointer, as Strata's driver writes its COPY buffer; grows when a row needs it.
final class BinaryCopy {
    /// The size at which a buffer is sent as one CopyData message (Strata's driver sends at the same size).
    static let piece = 1 << 20

    /// `PGCOPY\n\377\r\n\0`, flags 0, header extension length 0.
    private static let header: [UInt8] = [
        0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
    ]

    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// Bytes written so far.
    private(set) var count = 0

    init(capacity: Int = BinaryCopy.piece + 64 * 1_024) {
        self.capacity = max(64, capacity)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    /// A copy of the bytes written (for tests; the COPY sends ``written``).
    var bytes: [UInt8] { Array(written) }

    /// The bytes written, without a copy.
    var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Starts over with the header, keeping the storage.
    func removeAll() {
        count = 0
        Self.header.withUnsafeBytes { put($0) }
    }

    /// Empties the buffer for the next piece of the same COPY (no header), keeping the storage.
    func startPiece() { count = 0 }

    /// Appends one record; with `ordinal`, a leading bigint field holding it (a staging table's order column).
    func append(_ r: RawRecord, ordinal: Int? = nil) {
        put16(UInt16(BenchSQL.insertWidth + (ordinal == nil ? 0 : 1)))
        if let ordinal { field64(UInt64(bitPattern: Int64(ordinal))) }
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

    /// The trailer: a field count of -1.
    func finish() { put16(0xFFFF) }

    @inline(__always) private func ensure(_ n: Int) {
        guard count + n > capacity else { return }
        let larger = max(count + n, capacity * 2)
        let moved = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 8)
        moved.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    @inline(__always) private func put16(_ v: UInt16) {
        ensure(2)
        base.storeBytes(of: v.bigEndian, toByteOffset: count, as: UInt16.self)
        count += 2
    }

    /// An 8-byte field (a bigint, or a double's bits).
    @inline(__always) private func field64(_ v: UInt64) {
        ensure(12)
        base.storeBytes(of: UInt32(8).bigEndian, toByteOffset: count, as: UInt32.self)
        base.storeBytes(of: v.bigEndian, toByteOffset: count + 4, as: UInt64.self)
        count += 12
    }

    @inline(__always) private func put(_ bytes: UnsafeRawBufferPointer) {
        guard let from = bytes.baseAddress, bytes.count > 0 else { return }
        ensure(bytes.count)
        (base + count).copyMemory(from: from, byteCount: bytes.count)
        count += bytes.count
    }

    @inline(__always) private func text(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            ensure(4)
            base.storeBytes(of: UInt32(utf8.count).bigEndian, toByteOffset: count, as: UInt32.self)
            count += 4
            put(UnsafeRawBufferPointer(utf8))
        }
    }
}
