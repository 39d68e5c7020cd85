// RowSort: ORDER BY over row indices: NULLs first ascending, ties in row order, a top-k window under LIMIT.
import Strata

/// Sorts row indices by ORDER BY terms. NULLs come first ascending and last descending (NULL is the
/// least value); ties keep the rows' order. With `keeping`, only that many first rows are kept, found
/// in one pass without sorting the rest. Rows are compared in place, never copied.
enum RowSort {
    typealias Term = (column: Int, descending: Bool)

    /// `matched` (ascending row indices) in ORDER BY order; at least its first `keeping` are exact.
    static func sort(_ matched: [Int], of rows: [[DatabaseValue]], by terms: [Term], keeping: Int?) -> [Int] {
        guard matched.count > 1, let first = terms.first else { return matched }
        return rows.withUnsafeBufferPointer { rows in
            // The first term's values as plain numbers when they all are of one kind: compared
            // without going through DatabaseValue, the usual ORDER BY then costs a few ns a comparison.
            switch rows[matched[0]][first.column] {
            case .integer:
                let keys = typed(matched, rows, terms, keeping: keeping) { v -> Int64? in
                    if case .integer(let x) = v { return x }
                    return nil
                }
                if let keys { return keys }
            case .double:
                let keys = typed(matched, rows, terms, keeping: keeping) { v -> Double? in
                    if case .double(let x) = v, !x.isNaN { return x }
                    return nil
                }
                if let keys { return keys }
            default:
                break
            }
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

    /// The first term's values read once as `K` (nil when a matched row holds another kind); the
    /// remaining terms and the row order break ties.
    private static func typed<K: Comparable>(
        _ matched: [Int], _ rows: UnsafeBufferPointer<[DatabaseValue]>, _ terms: [Term], keeping: Int?,
        key: (DatabaseValue) -> K?
    ) -> [Int]? {
        let column = terms[0].column
        var entries: [(key: K, position: Int)] = []
        entries.reserveCapacity(matched.count)
        for p in matched.indices {
            guard let k = key(rows[matched[p]][column]) else { return nil }
            entries.append((k, p))
        }
        let descending = terms[0].descending
        let rest = terms.dropFirst()
        func before(_ a: (key: K, position: Int), _ b: (key: K, position: Int)) -> Bool {
            if a.key != b.key { return descending ? a.key > b.key : a.key < b.key }
            for t in rest {
                let order = ValueOrder.compare(rows[matched[a.position]][t.column], rows[matched[b.position]][t.column])
                if order != 0 { return t.descending ? order > 0 : order < 0 }
            }
            return a.position < b.position
        }
        return first(entries, keeping: keeping, by: before).map { matched[$0.position] }
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
