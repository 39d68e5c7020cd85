// OrderedEntries: one indexed column's values in sorted order with their slots, for range and equality lookups.
import Strata

/// The non-NULL values of an index's first column, sorted by ``ValueOrder`` (ties by slot), each with
/// the slot of its row.
///
/// Built by the first lookup that can use it, then kept cheap to maintain: a write does not re-sort,
/// it records the written slot in ``pending`` (which every lookup adds to its candidates) and counts
/// the entry it may have left stale. A lookup therefore yields a superset of the rows whose column
/// is in range, and callers re-check the full condition on each. Past a bound on pending or stale
/// entries the table drops the entries, and the next lookup that wants them rebuilds them.
struct OrderedEntries: Sendable {
    /// The values, in ``ValueOrder``.
    private(set) var keys: [DatabaseValue]
    /// The slot of each value's row (ascending among equal values).
    private(set) var slots: [Int]
    /// Slots written since the build: their current value may have no entry.
    private(set) var pending: [Int] = []
    /// How many entries may no longer hold their row's value (the row changed or went away).
    private(set) var stale = 0
    /// How many rows hold NULL in the column (they have no entry).
    private(set) var nulls = 0

    /// The entries of column `column` over a table's slots (empty slots are deleted rows).
    init(column: Int, rows: [[DatabaseValue]]) {
        var order: [Int] = []
        order.reserveCapacity(rows.count)
        var allIntegers = true
        var nulls = 0
        for slot in rows.indices where !rows[slot].isEmpty {
            switch rows[slot][column] {
            case .null:
                nulls += 1
                continue
            case .integer: break
            default: allIntegers = false
            }
            order.append(slot)
        }
        self.nulls = nulls
        if allIntegers {
            // The common case: sort plain (value, slot) pairs.
            var pairs: [(Int64, Int)] = []
            pairs.reserveCapacity(order.count)
            for slot in order {
                if case .integer(let v) = rows[slot][column] { pairs.append((v, slot)) }
            }
            pairs.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
            keys = pairs.map { .integer($0.0) }
            slots = pairs.map(\.1)
            return
        }
        rows.withUnsafeBufferPointer { rows in
            order.sort { a, b in
                let c = ValueOrder.compare(rows[a][column], rows[b][column])
                return c < 0 || (c == 0 && a < b)
            }
        }
        keys = order.map { rows[$0][column] }
        slots = order
    }

    /// The entries of values computed for each slot (nil: a deleted row), as an index on a JSON path keeps them.
    init(values: [DatabaseValue?]) {
        var order: [Int] = []
        order.reserveCapacity(values.count)
        var nulls = 0
        for slot in values.indices {
            guard let v = values[slot] else { continue }
            if v.isNull {
                nulls += 1
            } else {
                order.append(slot)
            }
        }
        self.nulls = nulls
        values.withUnsafeBufferPointer { values in
            order.sort { a, b in
                // Both are non-nil: only live slots were kept.
                let c = ValueOrder.compare(values[a] ?? .null, values[b] ?? .null)
                return c < 0 || (c == 0 && a < b)
            }
        }
        keys = order.map { values[$0] ?? .null }
        slots = order
    }

    /// The number of entries.
    var count: Int { keys.count }

    /// Whether lookups stay cheaper than rebuilding: few pending slots and few stale entries.
    var isWorthKeeping: Bool { pending.count <= max(64, keys.count / 8) && stale <= max(64, keys.count / 2) }

    /// Records a write of `slot` whose indexed value went from `before` to `after` (nil: no row).
    mutating func noteWrite(slot: Int, before: DatabaseValue?, after: DatabaseValue?) {
        if let before {
            if before.isNull { nulls -= 1 } else { stale += 1 }
        }
        if let after {
            if after.isNull { nulls += 1 } else { pending.append(slot) }
        }
    }

    // MARK: Lookups

    /// The positions of the entries whose value `v` satisfies `v op bound` (for `=`, `<`, `<=`, `>`,
    /// `>=`; nil for `<>`, which a range cannot answer). Empty for a NULL bound: never true.
    func positions(_ op: ComparisonOperator, _ bound: DatabaseValue) -> Range<Int>? {
        if bound.isNull { return op == .notEqual ? nil : 0..<0 }
        switch op {
        case .equal: return first { ValueOrder.compare($0, bound) >= 0 }..<first { ValueOrder.compare($0, bound) > 0 }
        case .less: return 0..<first { ValueOrder.compare($0, bound) >= 0 }
        case .lessOrEqual: return 0..<first { ValueOrder.compare($0, bound) > 0 }
        case .greater: return first { ValueOrder.compare($0, bound) > 0 }..<keys.count
        case .greaterOrEqual: return first { ValueOrder.compare($0, bound) >= 0 }..<keys.count
        case .notEqual: return nil
        }
    }

    /// The first position whose value satisfies `test`, which must be false then true along the keys.
    private func first(where test: (DatabaseValue) -> Bool) -> Int {
        keys.withUnsafeBufferPointer { keys in
            var lo = 0
            var hi = keys.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if test(keys[mid]) { hi = mid } else { lo = mid + 1 }
            }
            return lo
        }
    }

    /// The slots that may hold the `count` least values (the greatest when `descending`), in any
    /// order, for an ORDER BY on the column with a LIMIT: the first (last) `count + stale` entries,
    /// so that at least `count` of them are accurate, every entry equal to the window's inner end
    /// (ties are ordered by later ORDER BY terms, or by slot), and the pending slots.
    func edge(_ count: Int, descending: Bool, slotCount: Int) -> [Int] {
        let n = count >= keys.count - stale ? keys.count : count + stale
        if descending {
            var start = keys.count - n
            while start > 0 && start < keys.count && ValueOrder.equal(keys[start - 1], keys[start]) { start -= 1 }
            return candidates([start..<keys.count], slotCount: slotCount, inOrder: false)
        }
        var end = n
        while end > 0 && end < keys.count && ValueOrder.equal(keys[end - 1], keys[end]) { end += 1 }
        return candidates([0..<end], slotCount: slotCount, inOrder: false)
    }

    /// The slots of the entries at `positions` below `slotCount`, in the entries' order.
    func slotsInOrder(_ positions: Range<Int>, below slotCount: Int) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(positions.count)
        for p in positions where slots[p] < slotCount { out.append(slots[p]) }
        return out
    }

    /// The slots of the entries in `ranges` plus the pending slots, without repeats, below
    /// `slotCount` (a slot past the end was an insert since rolled back), and ascending when
    /// `inOrder` (else in any order: an ORDER BY sorts them anyway).
    func candidates(_ ranges: [Range<Int>], slotCount: Int, inOrder: Bool) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(ranges.reduce(pending.count) { $0 + $1.count })
        slots.withUnsafeBufferPointer { slots in
            for r in ranges {
                for p in r where slots[p] < slotCount { out.append(slots[p]) }
            }
        }
        // A build holds each slot once, so one range without pending slots has no repeats.
        if !inOrder && ranges.count <= 1 && pending.isEmpty { return out }
        for slot in pending where slot < slotCount { out.append(slot) }
        out.sort()
        var unique = 0
        for i in out.indices where unique == 0 || out[i] != out[unique - 1] {
            out[unique] = out[i]
            unique += 1
        }
        out.removeLast(out.count - unique)
        return out
    }
}
