// GroupNumbering: numbers rows by their GROUP BY values through an open-addressing table of 64-bit hashes.
import Strata

/// The group of each row, numbered in order of each group's first row, found through a table of the groups'
/// 64-bit hashes (open addressing, linear probing) that compares a candidate with the group's first row in place.
///
/// What ``GroupEvaluator/groupRanges(_:by:)`` does with a `[IndexKey: Int]` dictionary, without building a key per
/// row (a copy of its values, an array for several columns) or hashing it through `Hasher`: integers are mixed,
/// text and JSON hashed over their UTF-8 bytes eight at a time, with a seed drawn once per process. Equality is
/// ``IndexKey``'s (text by its bytes, NULL equal to NULL, NaN equal to NaN, `-0.0` to `0.0`), so the groups are the
/// dictionary's. Values of other kinds (dates, decimals, UUIDs, blobs) are not hashed here: ``number(_:_:_:)``
/// answers nil and the dictionary path runs.
enum GroupNumbering {
    /// The seed of every hash, drawn once per process so that no chosen set of keys collides on every run.
    private static let seed = UInt64.random(in: 1...UInt64.max)

    /// The group number of each of `matched` (in its order) and each group's row count; nil when a grouped value
    /// is of a kind this table does not hash.
    static func number(
        _ rows: UnsafeBufferPointer<[DatabaseValue]>, _ matched: [Int], _ positions: [Int]
    ) -> (groupOf: [Int], counts: [Int])? {
        let seed = Self.seed
        var mask = 63
        var buckets = [Int](repeating: -1, count: mask + 1)
        var hashes: [UInt64] = []
        var first: [Int] = []
        var counts: [Int] = []
        var groupOf: [Int] = []
        groupOf.reserveCapacity(matched.count)
        // One integer column (a key, what grouping by a primary key comes to): a row whose value is the last row's
        // is in its group, found without hashing (a join's rows come in runs of one main row).
        let single = positions.count == 1 ? positions[0] : nil
        var last: (value: Int64, group: Int)?
        for i in matched {
            if let c = single, case .integer(let x) = rows[i][c] {
                if let last, last.value == x {
                    counts[last.group] += 1
                    groupOf.append(last.group)
                    continue
                }
            }
            let row = rows[i]
            var h = seed
            for p in positions {
                guard let v = hash(row[p]) else { return nil }
                h = mix(h ^ v)
            }
            var b = Int(truncatingIfNeeded: h) & mask
            var g = -1
            while buckets[b] >= 0 {
                let candidate = buckets[b]
                if hashes[candidate] == h && same(row, rows[first[candidate]], positions) {
                    g = candidate
                    break
                }
                b = (b + 1) & mask
            }
            if g < 0 {
                g = counts.count
                buckets[b] = g
                hashes.append(h)
                first.append(i)
                counts.append(1)
                if counts.count * 2 > mask {
                    // Half full: twice the buckets, every group placed again by its hash.
                    mask = mask * 2 + 1
                    buckets = [Int](repeating: -1, count: mask + 1)
                    for (k, gh) in hashes.enumerated() {
                        var nb = Int(truncatingIfNeeded: gh) & mask
                        while buckets[nb] >= 0 { nb = (nb + 1) & mask }
                        buckets[nb] = k
                    }
                }
            } else {
                counts[g] += 1
            }
            groupOf.append(g)
            if let c = single, case .integer(let x) = row[c] { last = (x, g) } else { last = nil }
        }
        return (groupOf, counts)
    }

    /// Whether two rows hold the same values at `positions`, by ``IndexKey``'s equality.
    @inline(__always)
    private static func same(_ a: [DatabaseValue], _ b: [DatabaseValue], _ positions: [Int]) -> Bool {
        for p in positions where !IndexKey.same(a[p], b[p]) { return false }
        return true
    }

    /// A value's hash, equal for values ``IndexKey/same(_:_:)`` calls equal; nil for a kind not hashed here.
    @inline(__always)
    static func hash(_ v: DatabaseValue) -> UInt64? {
        switch v {
        case .null: return 0x6A09_E667_F3BC_C908
        case .integer(let i): return UInt64(bitPattern: i)
        case .bool(let b): return b ? 1 : 0
        case .double(let d):
            if d.isNaN { return 0xA54F_F53A_5F1D_36F1 }
            // An integral double hashes as the integer it equals (`1.0` and `1` are one group wherever they meet).
            if let i = Int64(exactly: d) { return UInt64(bitPattern: i) }
            return d.bitPattern
        case .text(let s), .json(let s): return text(s)
        default: return nil
        }
    }

    /// A hash of text's UTF-8 bytes, eight at a time.
    @inline(__always)
    private static func text(_ s: String) -> UInt64 {
        if let h = s.utf8.withContiguousStorageIfAvailable({ bytes(UnsafeRawBufferPointer($0)) }) { return h }
        var s = s
        return s.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
    }

    private static func bytes(_ p: UnsafeRawBufferPointer) -> UInt64 {
        let n = p.count
        var h = 0x510E_527F_ADE6_82D1 ^ UInt64(n)
        var i = 0
        while i + 8 <= n {
            h = mix(h ^ p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            tail |= UInt64(p[i]) << shift
            shift += 8
            i += 1
        }
        return mix(h ^ tail)
    }

    /// A 64-bit mix (the finalizer of MurmurHash3): every input bit reaches every output bit.
    @inline(__always)
    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z ^= z >> 33
        z = z &* 0xFF51_AFD7_ED55_8CCD
        z ^= z >> 33
        z = z &* 0xC4CE_B9FE_1A85_EC53
        z ^= z >> 33
        return z
    }
}
