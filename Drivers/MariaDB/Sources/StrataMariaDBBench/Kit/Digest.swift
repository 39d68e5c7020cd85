// Digest: a 64-bit hash over every column value of every row, compared between Strata and raw libmariadb.

/// A checksum over the values read back or written, so that a run fails when both sides did not see the same data
/// (and so that no read can be elided): the root bench's, over ``RawRecord``.
///
/// Each row hashes all ten columns (FNV-1a over the integers' and doubles' bit patterns and the strings' UTF-8
/// bytes, each string's length first), then a final avalanche; rows combine by wrapping addition, so the digest does
/// not depend on the order rows arrive in. The id enters as its offset from `base`, since two runs number the same
/// rows differently.
public struct Digest: Equatable, Sendable, CustomStringConvertible {
    public private(set) var value: UInt64 = 0
    public private(set) var rows: Int = 0

    init() {}

    public var description: String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 16 - hex.count)) + hex + " over \(rows) rows"
    }

    @inline(__always)
    mutating func add(_ r: RawRecord, base: Int64) {
        var h = Hasher64()
        h.add(UInt64(bitPattern: r.id.map { $0 &- base } ?? -1))
        h.add(UInt64(bitPattern: Int64(r.i1)))
        h.add(UInt64(bitPattern: Int64(r.i2)))
        h.add(UInt64(bitPattern: Int64(r.i3)))
        h.add(value: r.d1)
        h.add(value: r.d2)
        h.add(value: r.d3)
        h.add(r.s1)
        h.add(r.s2)
        h.add(r.s3)
        value = value &+ h.finish()
        rows += 1
    }

    static func of(_ rows: [RawRecord], base: Int64) -> Digest {
        var d = Digest()
        for r in rows { d.add(r, base: base) }
        return d
    }

    /// Written rows: ids relative to the first row's.
    static func written(_ rows: [RawRecord]) -> Digest { of(rows, base: rows.first?.id ?? 0) }
}

/// FNV-1a, 64-bit, fed byte by byte, with a murmur3-style finalizer so that sums of row hashes stay spread.
struct Hasher64 {
    private var h: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    @inline(__always)
    mutating func add(byte: UInt8) { h = (h ^ UInt64(byte)) &* Self.prime }

    @inline(__always)
    mutating func add(_ word: UInt64) {
        var w = word
        for _ in 0..<8 {
            add(byte: UInt8(truncatingIfNeeded: w))
            w >>= 8
        }
    }

    /// A double by value: its bits, except that -0.0 counts as 0.0.
    @inline(__always)
    mutating func add(value d: Double) { add(d == 0 ? 0 : d.bitPattern) }

    @inline(__always)
    mutating func add(_ s: String) {
        var s = s
        s.withUTF8 { bytes in
            add(UInt64(bytes.count))
            for b in bytes { add(byte: b) }
        }
    }

    @inline(__always)
    func finish() -> UInt64 {
        var x = h
        x ^= x >> 33
        x = x &* 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x = x &* 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return x
    }
}
