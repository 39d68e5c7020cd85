// OrderedWalk: WHERE … ORDER BY an indexed column … LIMIT n, read along the column's ordered entries until n match.
import Strata

extension MemoryTable {
    /// For `WHERE condition ORDER BY column [DESC], … LIMIT count` (a keyset page: `(a > x) OR (a = x AND id > y)`):
    /// the slots among which the first `count` matching rows are, found by walking the column's ordered entries from
    /// the bound the condition sets on the column (its least value ascending, its greatest descending; the end
    /// without one) and checking the condition on each row, until `count` rows match and the next entry holds
    /// another value (rows that tie on the column are ordered by the later terms). Rows written since the entries
    /// were built (their pending slots) are checked too. The caller checks the condition again and sorts.
    ///
    /// Nil, for a scan, when no index leads with the column, when the condition may throw on some row (it reads
    /// anything but columns and values: a scan would fail where the walk stops first), or when rows holding NULL
    /// in the column (first ascending, last descending) could be among the first without a bound to exclude them.
    mutating func orderedWalk(_ condition: CompiledCondition, column c: Int, count: Int, descending: Bool) -> [Int]? {
        guard count > 0, Self.cannotThrow(condition),
            let i = indexes.indices.first(where: { indexes[$0].columns[0] == c })
        else { return nil }
        let bound = Self.bound(of: condition, column: c, upper: descending, type: columns[c].type)
        if indexes[i].ordered == nil { buildOrderedEntries(ofIndex: i) }
        guard let entries = indexes[i].ordered else { return nil }
        // Ascending, NULLs come first: only a bound (a comparison NULL never satisfies) rules them out.
        if !descending && entries.nulls > 0 && bound == nil { return nil }
        let pending = Set(entries.pending)
        var out: [Int] = []
        for slot in pending where slot < slots.count && !slots[slot].isEmpty {
            if (try? condition.truth(slots[slot])) == .yes { out.append(slot) }
        }
        var found = 0
        var last: DatabaseValue?
        let checkStale = entries.stale > 0
        var p: Int
        if let bound {
            let r = entries.positions(descending ? .lessOrEqual : .greaterOrEqual, bound) ?? 0..<entries.count
            p = descending ? r.upperBound - 1 : r.lowerBound
        } else {
            p = descending ? entries.count - 1 : 0
        }
        while p >= 0 && p < entries.count {
            let key = entries.keys[p]
            if let last, !ValueOrder.equal(key, last) { return out }
            let slot = entries.slots[p]
            p += descending ? -1 : 1
            guard slot < slots.count, !slots[slot].isEmpty, !pending.contains(slot) else { continue }
            // A stale entry (its row changed since the build) is skipped: the row's new value is pending or NULL.
            if checkStale && !ValueOrder.equal(slots[slot][c], key) { continue }
            guard (try? condition.truth(slots[slot])) == .yes else { continue }
            out.append(slot)
            found += 1
            if found == count { last = key }
        }
        // Past the last entry: descending, the NULL rows come next unless a bound rules them out.
        if descending && entries.nulls > 0 && bound == nil && last == nil { return nil }
        return out
    }

    /// Whether evaluating `condition` can never throw: it compares, tests and combines columns and values only.
    static func cannotThrow(_ condition: CompiledCondition) -> Bool {
        func plain(_ o: Operand) -> Bool {
            switch o {
            case .column, .value: true
            case .condition, .computed: false
            }
        }
        switch condition {
        case .constant: return true
        case .compare(_, let l, let r): return plain(l) && plain(r)
        case .and(let items), .or(let items): return items.allSatisfy(cannotThrow)
        case .not(let inner): return cannotThrow(inner)
        case .isNull(let o, _), .inList(let o, _, _): return plain(o)
        case .between(let o, let low, let high, _): return plain(o) && plain(low) && plain(high)
        case .operand, .like, .search: return false
        }
    }

    /// A value of column `c` that every row `condition` selects is at least (at most, with `upper`): from a
    /// comparison of the column with a value (`>`, `>=`, `=`; `<`, `<=`, `=`) or a BETWEEN, the tightest of an
    /// AND's terms, the loosest of an OR's when each has one. Nil when there is none, or its value is of a kind the
    /// column's entries are not ordered with (``orderable(_:in:)``).
    static func bound(of condition: CompiledCondition, column c: Int, upper: Bool, type: ColumnType) -> DatabaseValue? {
        func usable(_ v: DatabaseValue) -> DatabaseValue? { !v.isNull && orderable(v, in: type) ? v : nil }
        func compared(_ op: ComparisonOperator, _ v: DatabaseValue) -> DatabaseValue? {
            switch op {
            case .equal: usable(v)
            case .greater, .greaterOrEqual: upper ? nil : usable(v)
            case .less, .lessOrEqual: upper ? usable(v) : nil
            case .notEqual: nil
            }
        }
        /// The tighter of two bounds (`tighter`), or the looser.
        func pick(_ a: DatabaseValue, _ b: DatabaseValue, tighter: Bool) -> DatabaseValue {
            let order = ValueOrder.compare(a, b)
            return (order < 0) == (upper == tighter) ? a : b
        }
        switch condition {
        case .compare(let op, .column(let x), .value(let v)) where x == c:
            return compared(op, v)
        case .compare(let op, .value(let v), .column(let x)) where x == c:
            return compared(op.mirrored, v)
        case .between(.column(let x), .value(let low), .value(let high), negated: false) where x == c:
            return usable(upper ? high : low)
        case .and(let items):
            var best: DatabaseValue?
            for item in items {
                guard let b = bound(of: item, column: c, upper: upper, type: type) else { continue }
                best = best.map { pick($0, b, tighter: true) } ?? b
            }
            return best
        case .or(let items):
            var loosest: DatabaseValue?
            for item in items {
                guard let b = bound(of: item, column: c, upper: upper, type: type) else { return nil }
                loosest = loosest.map { pick($0, b, tighter: false) } ?? b
            }
            return loosest
        default:
            return nil
        }
    }
}
