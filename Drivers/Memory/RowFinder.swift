// RowFinder: finds the rows a condition selects, through the primary key or a unique index when it can.
import Strata

extension MemoryTable {
    /// The slots of the rows `condition` selects (all rows when nil), in insertion order, at most `limit`.
    ///
    /// `pk = v` and `pk IN (…)`, alone or as a term of an AND, read the primary-key map in O(1);
    /// so does equality on the single column of a unique index. Anything else scans.
    func matchingSlots(_ condition: CompiledCondition?, limit: Int? = nil) throws(StrataError) -> [Int] {
        if let limit, limit <= 0 { return [] }
        let limit = limit ?? Int.max
        var out: [Int] = []
        guard let condition else {
            for slot in slots.indices where isLive(slot) {
                out.append(slot)
                if out.count == limit { break }
            }
            return out
        }
        let candidates = candidateSlots(condition)
        if let filter = ConjunctiveFilter(condition) {
            slots.withUnsafeBufferPointer { rows in
                func visit(_ slot: Int) -> Bool {
                    guard rows[slot].withUnsafeBufferPointer({ row in !row.isEmpty && filter.matches(row) }) else { return true }
                    out.append(slot)
                    return out.count < limit
                }
                if let candidates {
                    for slot in candidates where !visit(slot) { break }
                } else {
                    for slot in rows.indices where !visit(slot) { break }
                }
            }
            return out
        }
        let predicate = RowPredicate(condition).evaluate
        if let candidates {
            for slot in candidates where isLive(slot) {
                guard try predicate(slots[slot]) == .yes else { continue }
                out.append(slot)
                if out.count == limit { break }
            }
            return out
        }
        for slot in slots.indices where isLive(slot) {
            guard try predicate(slots[slot]) == .yes else { continue }
            out.append(slot)
            if out.count == limit { break }
        }
        return out
    }

    /// Slots that may match, in insertion order, or nil when the condition needs a scan.
    private func candidateSlots(_ condition: CompiledCondition) -> [Int]? {
        switch condition {
        case .compare(.equal, .column(let c), .value(let v)), .compare(.equal, .value(let v), .column(let c)):
            return lookup(c, v)
        case .inList(.column(let c), let list, negated: false):
            var found: [Int] = []
            for v in list.values {
                guard let slots = lookup(c, v) else { return nil }
                found += slots
            }
            found.sort()
            var unique: [Int] = []
            unique.reserveCapacity(found.count)
            for s in found where unique.last != s { unique.append(s) }
            return unique
        case .and(let items):
            for item in items {
                if let found = candidateSlots(item) { return found }
            }
            return nil
        default:
            return nil
        }
    }

    /// The slots whose column `c` equals `v` by a map lookup, or nil when no map covers `c` for `v`'s kind.
    private func lookup(_ c: Int, _ v: DatabaseValue) -> [Int]? {
        if v.isNull { return [] }  // `= NULL` and `IN (NULL)` are never true
        if c == primaryKey {
            guard case .integer(let id) = v else { return nil }
            return slotByID[id].map { [$0] } ?? []
        }
        guard Self.sameKind(v, columns[c].type) else { return nil }
        switch lookup(column: c, key: IndexKey(v)) {
        case .none: return nil
        case .some(let slot): return slot.map { [$0] } ?? []
        }
    }

    /// Whether `v` is of the exact kind a column of `type` stores, so key equality equals SQL equality.
    static func sameKind(_ v: DatabaseValue, _ type: ColumnType) -> Bool {
        switch (type, v) {
        case (.integer, .integer), (.text, .text), (.blob, .blob), (.bool, .bool), (.date, .date),
             (.decimal, .decimal), (.uuid, .uuid), (.json, .json):
            return true
        case (.double, .double(let d)): return !d.isNaN
        default: return false
        }
    }
}
