// StoreState+Select: SELECT of columns or COUNT, with WHERE, ORDER BY (NULLs first ascending), LIMIT and OFFSET.
import Strata

extension StoreState {
    func select(_ s: Select) throws(StrataError) -> Outcome {
        guard s.joins.isEmpty else { throw .unsupported(feature: "joins", driver: "memory") }
        if case .refs = s.selection { throw .unsupported(feature: "joins", driver: "memory") }
        let table = try table(s.table)
        var projection: [Int] = []
        if case .columns(let names) = s.selection {
            guard !names.isEmpty else { throw .invalidQuery("SELECT without columns") }
            projection.reserveCapacity(names.count)
            for name in names { projection.append(try table.position(of: name)) }
        }
        let condition = try s.filter.map { f throws(StrataError) in try CompiledCondition(f.node, table: table) }
        var terms: [(column: Int, descending: Bool)] = []
        for o in s.order { terms.append((try table.position(of: o.column), o.direction == .descending)) }
        if let l = s.limit, l < 0 { throw .invalidQuery("negative limit \(l)") }
        if let o = s.offset, o < 0 { throw .invalidQuery("negative offset \(o)") }
        let offset = s.offset ?? 0

        if s.selection == .count && condition == nil {
            let total = table.liveCount
            let start = min(offset, total)
            let n = s.limit.map { min($0, total - start) } ?? total - start
            return Outcome(rows: [[.integer(Int64(n))]], projection: [0])
        }
        let sorted = !terms.isEmpty && s.selection != .count
        // Without ORDER BY, stop scanning once the page is full.
        let enough = s.limit.map { offset.addingReportingOverflow($0).partialValue }
        var slots = try table.matchingSlots(condition, limit: sorted ? nil : enough)
        if sorted { slots = Self.sort(slots, of: table, by: terms, keeping: enough) }

        let start = min(offset, slots.count)
        let end = s.limit.map { min(slots.count, start + min($0, slots.count - start)) } ?? slots.count
        if s.selection == .count {
            return Outcome(rows: [[.integer(Int64(end - start))]], projection: [0])
        }
        var rows: [[DatabaseValue]] = []
        rows.reserveCapacity(end - start)
        for slot in slots[start..<end] {
            if let row = table.row(at: slot) { rows.append(row) }
        }
        return Outcome(rows: rows, projection: projection)
    }

    /// Sorts slots by the ORDER BY terms; NULLs come first ascending and last descending (NULL is the
    /// least value); ties keep insertion order. With `keeping`, only that many first rows are kept,
    /// found in one pass without sorting the rest.
    private static func sort(_ slots: [Int], of table: MemoryTable, by terms: [(column: Int, descending: Bool)],
                             keeping: Int?) -> [Int] {
        // The sort keys, copied once, row-major: key(i, t) = keys[i * width + t].
        let width = terms.count
        var keys: [DatabaseValue] = []
        keys.reserveCapacity(slots.count * width)
        for slot in slots {
            for term in terms { keys.append(table.slots[slot][term.column]) }
        }
        /// Whether the i-th matched row sorts before the j-th (i < j breaks ties: insertion order).
        func before(_ i: Int, _ j: Int) -> Bool {
            for t in 0..<width {
                let order = ValueOrder.compare(keys[i * width + t], keys[j * width + t])
                if order != 0 { return terms[t].descending ? order > 0 : order < 0 }
            }
            return i < j
        }
        var order: [Int]
        if let k = keeping, k < slots.count / 4 {
            // Top k: a sorted window, each candidate placed by binary search.
            order = []
            order.reserveCapacity(k + 1)
            if k > 0 {
                for i in slots.indices {
                    if order.count == k, let last = order.last, !before(i, last) { continue }
                    var lo = 0
                    var hi = order.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if before(order[mid], i) { lo = mid + 1 } else { hi = mid }
                    }
                    order.insert(i, at: lo)
                    if order.count > k { order.removeLast() }
                }
            }
        } else {
            order = Array(slots.indices)
            order.sort(by: before)
        }
        return order.map { slots[$0] }
    }
}
