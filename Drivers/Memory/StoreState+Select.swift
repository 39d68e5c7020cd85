// StoreState+Select: SELECT of columns or COUNT, with WHERE, ORDER BY (NULLs first ascending), LIMIT and OFFSET.
import Strata

extension StoreState {
    /// Mutating only to build an index's ordered entries on first use.
    mutating func select(_ s: Select) throws(StrataError) -> Outcome {
        let s = try resolvingSubqueries(in: s)
        if let w = s.commonTable { return try commonTableSelect(s, w) }
        if let c = s.compound { return try compoundSelect(s, c) }
        // Read the table in place in the dictionary: copying the struct out costs a retain per field.
        guard let i = tables.index(forKey: s.table) else { throw .noSuchTable(s.table) }
        if s.needsGrouping {
            // Typed items (`select(.column(\.n), …)`) come here: a match, range or key term among them still
            // reads its index.
            if s.joins.isEmpty, let f = s.filter {
                let compiled = try CompiledCondition(f.node, scope: ColumnScope(tables.values[i]))
                tables.values[i].prepareOrderedEntries(for: compiled)
                if MemorySearchIndex.hasMatch(f.node) { tables.values[i].prepareSearchIndex(for: compiled) }
            } else if !s.joins.isEmpty {
                prepareJoin(s, main: i)
            }
            return try groupedSelect(s, main: tables.values[i])
        }
        if s.joins.isEmpty { return try Self.select(s, from: &tables.values[i]) }
        prepareJoin(s, main: i)
        let (scope, rows, filtered) = try joinedRows(s, main: tables.values[i])
        var condition = try s.filter.map { f throws(StrataError) in try CompiledCondition(f.node, scope: scope) }
        // Checked on the main rows before the join already.
        if filtered { condition = nil }
        return try Self.finish(s, scope: scope, rows: rows, condition: condition, candidates: nil, total: nil)
    }

    static func select(_ s: Select, from table: inout MemoryTable) throws(StrataError) -> Outcome {
        let scope = ColumnScope(table)
        // No closure over the scope here: capturing it would copy it.
        var condition: CompiledCondition?
        var candidates: [Int]?
        if let id = table.primaryKeyEquality(s.filter) {
            // `pk = id` (a find): the map gives the one row that matches, with nothing to compile or re-check.
            candidates = table.slotByID[id].map { [$0] } ?? []
        } else if s.filter == nil, s.selection != .count, let limit = s.limit, limit >= 0, (s.offset ?? 0) >= 0,
            let first = s.order.first, first.expression == nil,
            let column = try? scope.position(of: first.column, in: first.table)
        {
            // ORDER BY an indexed column with LIMIT: only the rows at that end of the index can come first.
            let (count, overflow) = (s.offset ?? 0).addingReportingOverflow(limit)
            if !overflow {
                candidates = table.orderedWindow(
                    column: column, count: count, descending: first.direction == .descending)
            }
        } else if let filter = s.filter {
            let compiled = try CompiledCondition(filter.node, scope: scope)
            condition = compiled
            table.prepareOrderedEntries(for: compiled)
            table.prepareSearchIndex(for: compiled)
            // Not `condition.flatMap(table.candidateSlots)`: a method reference would copy the table.
            candidates = table.candidateSlots(compiled, inOrder: s.order.isEmpty && s.selection != .count)
            if let window = walkWindow(s, scope: scope), candidates.map({ $0.count > 4 * window.count + 64 }) ?? true {
                // No key or narrow range: the first rows in the ORDER BY's index order that match (a keyset page).
                candidates =
                    table.orderedWalk(
                        compiled, column: window.column, count: window.count, descending: window.descending)
                    ?? candidates
            }
        }
        return try finish(
            s, scope: scope, rows: table.slots, condition: condition, candidates: candidates, total: table.liveCount)
    }

    /// For a filtered `ORDER BY column … LIMIT` (no count, no expression first): the column, the rows the page needs
    /// (offset and limit) and the direction, for ``MemoryTable/orderedWalk(_:column:count:descending:)``.
    private static func walkWindow(_ s: Select, scope: borrowing ColumnScope) -> (
        column: Int, count: Int, descending: Bool
    )? {
        guard s.selection != .count, let limit = s.limit, limit >= 0, (s.offset ?? 0) >= 0, let first = s.order.first,
            first.expression == nil, let column = try? scope.position(of: first.column, in: first.table)
        else { return nil }
        let (count, overflow) = (s.offset ?? 0).addingReportingOverflow(limit)
        return overflow ? nil : (column, count, first.direction == .descending)
    }

    /// Filters, sorts, pages and projects `rows` (a table's slots, empty ones skipped, or joined rows).
    ///
    /// - Parameters:
    ///   - candidates: the only rows that may match (from a key lookup), or nil to scan.
    ///   - total: the number of non-empty rows, for a COUNT without a filter.
    private static func finish(
        _ s: Select, scope: borrowing ColumnScope, rows: [[DatabaseValue]], condition: CompiledCondition?,
        candidates: [Int]?, total: Int?
    ) throws(StrataError) -> Outcome {
        var projection: [Int]?
        switch s.selection {
        case .columns(let names):
            projection = try scope.positions(of: names)
        case .refs(let refs):
            var positions: [Int] = []
            positions.reserveCapacity(refs.count)
            for r in refs { positions.append(try scope.position(of: r.name, in: r.table)) }
            projection = positions.elementsEqual(0..<scope.width) ? nil : positions
        case .count:
            break
        case .items:
            throw .invalidQuery("a SELECT of items runs as a grouped select")
        }
        var terms: [(column: Int, descending: Bool)] = []
        let computed = try ComputedOrder(s.order, scope: scope)
        for (k, o) in s.order.enumerated() {
            if let p = computed?.position(of: k) {
                terms.append((p, o.direction == .descending))
            } else {
                terms.append((try scope.position(of: o.column, in: o.table), o.direction == .descending))
            }
        }
        let offset = s.offset ?? 0
        let counting = s.selection == .count

        if counting && condition == nil && candidates == nil, let total {
            let start = min(offset, total)
            let n = s.limit.map { min($0, total - start) } ?? total - start
            return Outcome(rows: .list([[.integer(Int64(n))]]))
        }
        let sorted = !terms.isEmpty && !counting
        if condition == nil && candidates == nil && !sorted && !counting {
            return Outcome(rows: .scan(rows, skip: offset, take: s.limit ?? .max), projection: projection)
        }
        // Without ORDER BY, stop scanning once the page is full.
        let enough = s.limit.map { offset.addingReportingOverflow($0).partialValue }
        var matched = try RowScan.matching(rows, condition, candidates: candidates, limit: sorted ? nil : enough)
        var rows = rows
        if let computed, sorted {
            rows = try computed.extend(rows, matched)
            projection = projection ?? Array(0..<scope.width)
        }
        if sorted { matched = RowSort.sort(matched, of: rows, by: terms, keeping: enough) }

        let start = min(offset, matched.count)
        let end = s.limit.map { min(matched.count, start + min($0, matched.count - start)) } ?? matched.count
        if counting {
            return Outcome(rows: .list([[.integer(Int64(end - start))]]))
        }
        if start > 0 || end < matched.count { matched = Array(matched[start..<end]) }
        return Outcome(rows: .picked(rows, matched), projection: projection)
    }
}
