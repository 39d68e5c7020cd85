// RowSort: ORDER BY over row indices: NULLs first ascending, ties in row order, a top-k window under LIMIT.
import Strata

/// Sorts row indices by ORDER BY terms. NULLs come first ascending and last descending (NULL is the
/// least value); ties keep the rows' order. With `keeping`, only that many first rows are kept, found
/// in one pass without sorting the rest. Rows are compared in place, never copied.
enum RowSort {
    typealias Term = (column: Int, descending: Bool)

    /// `matched` (row indices, in any order) in ORDER BY order; at least its first `keeping` are exact.
    static func sort(_ matched: [Int], of rows: [[DatabaseValue]], by terms: [Term], keeping: Int?) -> [Int] {
        guard matched.count > 1, !terms.isEmpty else { return matched }
        return rows.withUnsafeBufferPointer { rows in
            // The first term's values as plain numbers when they all are of one kind: compared
            // without going through DatabaseValue, the usual ORDER BY then costs a few ns a comparison.
            if let keyed = keyed(matched, rows, terms, keeping: keeping) { return keyed }
            return general(matched, rows, terms, keeping: keeping)
        }
    }

    /// Any values: each comparison goes through ``ValueOrder``.
    private static func general(
        _ matched: [Int], _ rows: UnsafeBufferPointer<[DatabaseValue]>, _ terms: [Term], keeping: Int?
    ) -> [Int] {
        let columns = terms.map(\.column)
        let descending = terms.map(\.descending)
        /// Whether row a sorts before row b (a < b, their order in `rows`, breaks ties).
        func before(_ a: Int, _ b: Int) -> Bool {
            var t = 0
            while t < columns.count {
                let order = ValueOrder.compare(rows[a][columns[t]], rows[b][columns[t]])
                if order != 0 { return descending[t] ? order > 0 : order < 0 }
                t += 1
            }
            return a < b
        }
        return first(matched, keeping: keeping, by: before)
    }

    /// The first term's values as order-preserving 64-bit keys, when every matched row holds an
    /// integer there, or every one a double that is not NaN; nil otherwise. Entries then sort as
    /// plain integers; rows whose keys tie are ordered by the remaining terms and the row order.
    private static func keyed(
        _ matched: [Int], _ rows: UnsafeBufferPointer<[DatabaseValue]>, _ terms: [Term], keeping: Int?
    ) -> [Int]? {
        let column = terms[0].column
        // Descending flips the key, so ties still come out in row order.
        let flip: UInt64 = terms[0].descending ? ~0 : 0
        var entries: [Entry] = []
        entries.reserveCapacity(matched.count)
        switch rows[matched[0]][column] {
        case .integer:
            for p in matched.indices {
                guard case .integer(let x) = rows[matched[p]][column] else { return nil }
                entries.append(Entry(key: (UInt64(bitPattern: x) ^ (1 << 63)) ^ flip, row: matched[p]))
            }
        case .double:
            for p in matched.indices {
                guard case .double(let x) = rows[matched[p]][column], !x.isNaN else { return nil }
                let bits = (x == 0 ? 0 : x).bitPattern  // -0.0 ties with 0.0
                let key = bits >> 63 == 1 ? ~bits : bits | (1 << 63)
                entries.append(Entry(key: key ^ flip, row: matched[p]))
            }
        default:
            return nil
        }
        var chosen: [Entry]
        if let k = keeping, k < entries.count {
            // Only the first k: move the k least to the front (in linear time), then sort those.
            selectLeast(k, of: &entries)
            chosen = Array(entries[..<k])
            chosen.sort()
            if terms.count > 1, let last = chosen.last {
                // The other rows of the last key may come first once the remaining terms are
                // compared, so they join the run of that key sorted below.
                chosen += entries[k...].filter { $0.key == last.key }.sorted()
            }
        } else {
            // Comparable's own sort: the comparison inlines (a comparator argument would not).
            chosen = entries
            chosen.sort()
        }
        if terms.count > 1 {
            // Runs of equal keys: order them by the remaining terms, then row order.
            let rest = terms.dropFirst()
            var start = 0
            while start < chosen.count {
                var end = start + 1
                while end < chosen.count && chosen[end].key == chosen[start].key { end += 1 }
                if end - start > 1 {
                    chosen[start..<end].sort { a, b in
                        for t in rest {
                            let order = ValueOrder.compare(
                                rows[a.row][t.column], rows[b.row][t.column])
                            if order != 0 { return t.descending ? order > 0 : order < 0 }
                        }
                        return a.row < b.row
                    }
                }
                start = end
            }
        }
        return chosen.map(\.row)
    }

    /// Reorders `entries` so that its first `k` are the `k` least, in some order (quickselect).
    private static func selectLeast(_ k: Int, of entries: inout [Entry]) {
        guard k > 0 && k < entries.count else { return }
        entries.withUnsafeMutableBufferPointer { e in
            var lo = 0
            var hi = e.count - 1
            while lo < hi {
                // Median of three as the pivot; entries are distinct (one per row).
                let a = e[lo]
                let b = e[(lo + hi) / 2]
                let c = e[hi]
                let pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b))
                var i = lo
                var j = hi
                while i <= j {
                    while e[i] < pivot { i += 1 }
                    while pivot < e[j] { j -= 1 }
                    if i <= j {
                        e.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                // Now e[lo...j] <= pivot <= e[i...hi]; entries between j and i equal the pivot.
                if k - 1 <= j {
                    hi = j
                } else if k - 1 >= i {
                    lo = i
                } else {
                    return
                }
            }
        }
    }

    /// A row's first-term key, and the row's index, which breaks ties.
    private struct Entry: Comparable {
        let key: UInt64
        let row: Int

        @inline(__always)
        static func < (a: Entry, b: Entry) -> Bool { a.key < b.key || (a.key == b.key && a.row < b.row) }
    }

    /// `items` sorted by `before`, or only their first `keeping` when that is a small share.
    @inline(__always)
    private static func first<E>(_ items: [E], keeping: Int?, by before: (E, E) -> Bool) -> [E] {
        guard let k = keeping, k < items.count / 4 else { return items.sorted(by: before) }
        // Top k: a sorted window, each candidate placed by binary search.
        var best: [E] = []
        best.reserveCapacity(k + 1)
        guard k > 0 else { return best }
        for item in items {
            if best.count == k, let last = best.last, !before(item, last) { continue }
            var lo = 0
            var hi = best.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if before(best[mid], item) { lo = mid + 1 } else { hi = mid }
            }
            best.insert(item, at: lo)
            if best.count > k { best.removeLast() }
        }
        return best
    }
}
