// ShardRouter: which shard a shard key's value lives on: FNV-1a over the value's canonical bytes, then jump hash.
import Foundation

/// Maps a shard key's value to one of N shards, the same way in every process, on every platform and in every
/// version of Strata: the mapping is part of the stored data's layout, so it never changes.
///
/// The value's canonical bytes are hashed with 64-bit FNV-1a, and the hash picks a shard with Lamping and Veach's
/// jump consistent hash (going from N to N+1 shards moves only about 1/(N+1) of the keys, all to the new shard).
/// The canonical bytes are a tag byte and the value:
///
/// | Key value | Bytes |
/// |---|---|
/// | integer (`Int`, `Int64`, `Int32`, …) | `0x01`, then the `Int64` in 8 bytes, big-endian two's complement |
/// | text (`String`, a `String` raw value) | `0x02`, then its UTF-8 bytes (no normalization) |
/// | `UUID` | `0x03`, then its 16 bytes |
/// | `Data` | `0x04`, then the bytes |
///
/// Other kinds (NULL, doubles, dates, decimals, JSON, booleans) are refused: their stored form differs between
/// backends or has several spellings of one value. Swift's `Hasher` is never used: it is seeded per process.
///
/// ```swift
/// ShardRouter.shard(for: .integer(42), count: 2)      // 1, in every process
/// ShardRouter.shard(for: .text("acme"), count: 4)     // 1
/// ```
public enum ShardRouter {
    /// The shard, in `0..<count`, that holds rows whose shard key is `value`.
    ///
    /// - Parameters:
    ///   - value: the shard key's stored value.
    ///   - count: the number of shards (at least 1).
    /// - Returns: the shard's index.
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` for a value of a kind that cannot be a key.
    public static func shard(for value: DatabaseValue, count: Int) throws(StrataError) -> Int {
        jump(fnv1a(try canonicalBytes(value)), buckets: Swift.max(count, 1))
    }

    /// The canonical bytes of a key value (see ``ShardRouter``).
    static func canonicalBytes(_ value: DatabaseValue) throws(StrataError) -> [UInt8] {
        switch value {
        case .integer(let i):
            let bits = UInt64(bitPattern: i)
            return [0x01] + (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }
        case .text(let s): return [0x02] + Array(s.utf8)
        case .uuid(let u): return withUnsafeBytes(of: u.uuid) { [0x03] + Array($0) }
        case .blob(let d): return [0x04] + Array(d)
        case .null, .bool, .double, .date, .decimal, .json:
            throw .invalidValue(
                table: nil, column: nil,
                reason: "a shard key must be an integer, text, a UUID or bytes, not \(kind(value))")
        }
    }

    private static func kind(_ value: DatabaseValue) -> String {
        switch value {
        case .null: "NULL"
        case .bool: "a boolean"
        case .double: "a double"
        case .date: "a date"
        case .decimal: "a decimal"
        case .json: "JSON"
        default: "this value"
        }
    }

    /// 64-bit FNV-1a.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// Jump consistent hash (Lamping, Veach 2014): a bucket in `0..<buckets`. The loop runs about ln(buckets) times.
    static func jump(_ key: UInt64, buckets: Int) -> Int {
        var key = key
        var b: Int64 = -1
        var j: Int64 = 0
        while j < Int64(buckets) {
            b = j
            key = key &* 2_862_933_555_777_941_757 &+ 1
            j = Int64(Double(b + 1) * (Double(Int64(1) << 31) / Double((key >> 33) + 1)))
        }
        return Int(b)
    }
}
