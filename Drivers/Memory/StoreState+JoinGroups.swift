// StoreState+JoinGroups: a main table's rows grouped by their key with aggregates of their joined rows, unjoined.
import Strata

extension StoreState {
    /// `SELECT main columns, aggregates of the joined table … FROM main LEFT|INNER JOIN other ON main.x = other.y
    /// WHERE (main columns only) GROUP BY main.key, …` (what `all(with: .count(…), .sum(…))` sends), answered
    /// without making the joined rows: each main row's matches are looked up in the joined table's index and the
    /// aggregates read the joined table's rows in place. A group is one main row (its key is the table's integer
    /// primary key), so its joined rows are that row's matches in slot order, or one row of NULLs for an unmatched
    /// row of a LEFT join: the groups, their order, the values folded in and their order are those of
    /// ``groupedSelect(_:main:)``'s general path, which runs for anything else (nil here): another join kind or
    /// more than one join, an ON condition other than one equality of columns, a WHERE term on the joined table or
    /// one that could throw, HAVING, an item that is an expression or an aggregate of a main column, a joined
    /// table with no index answering the lookup.
    func groupsOverJoin(_ s: Select, main: MemoryTable) throws(StrataError) -> Outcome? {
        guard s.isAggregated, s.having == nil, s.joins.count == 1, let join = s.joins.first,
            join.kind == .left || join.kind == .inner,
            !s.groupBy.isEmpty, let pk = main.primaryKey,
            Self.grouping(s.groupBy, main: main, table: s.table).count == 1,
            let right = tables[join.table]
        else { return nil }
        // The WHERE, checked on the main rows: only when it is theirs alone and cannot throw.
        let (own, whole) = Self.ownFilter(s, main: main)
        guard s.filter == nil || whole else { return nil }
        var scope = ColumnScope(main)
        let leftWidth = scope.width
        try scope.join(right, as: join.alias)
        let on = try CompiledCondition(join.on.node, scope: scope)
        guard case .compare(.equal, .column, .column) = on, let e = JoinEquality.find(on, leftWidth: leftWidth),
            right.canLookUp(column: e.right - leftWidth)
        else { return nil }
        let grouped = s.groupBy.map { c in (try? scope.position(of: c.name, in: c.table)) ?? -1 }
        guard grouped.contains(pk), grouped.allSatisfy({ $0 >= 0 && $0 < leftWidth }) else { return nil }
        let (items, orderItems, selectedOrder) = try Self.outputItems(s)
        // Each item as a main column's position, COUNT(*), or an aggregate of a joined column.
        let rightEvaluator = GroupEvaluator(scope: ColumnScope(right), rows: right.slots, table: s.table)
        var all: [GroupEvaluator.Resolved] = []
        for item in items + orderItems {
            switch try GroupEvaluator(scope: scope, rows: [], table: s.table).resolve(item) {
            case .column(let p) where p < leftWidth: all.append(.column(p))
            case .countAll: all.append(.countAll)
            case .aggregate(let a, let p) where p >= leftWidth: all.append(.aggregate(a, position: p - leftWidth))
            default: return nil
            }
        }
        // Double sums first in each group, as the general path accumulates them before anything else.
        let sums = all.filter { item in
            guard case .aggregate(let a, _) = item, a.function == .sum || a.function == .avg else { return false }
            return a.type == .double
        }
        // The main rows, as the join reads them: narrowed by an index over the WHERE, which is checked on each.
        var slots = own.flatMap { main.candidateSlots($0) } ?? Array(main.slots.indices)
        slots.removeAll { slot in
            main.slots[slot].isEmpty || (own.map { (try? $0.truth(main.slots[slot])) != .yes } ?? false)
        }
        let keepUnmatched = join.kind == .left
        let column = e.right - leftWidth
        var out: [[DatabaseValue]] = []
        out.reserveCapacity(slots.count)
        var matches: [Int] = []
        for m in slots {
            let v = main.slots[m][e.left]
            matches.removeAll(keepingCapacity: true)
            if !v.isNull {
                guard
                    let candidates = right.equalSlots(column: column, v)
                        ?? right.candidateSlots(.compare(.equal, .column(column), .value(v)))
                else { return nil }
                for r in candidates where !right.slots[r].isEmpty {
                    let w = right.slots[r][column]
                    if !w.isNull && ValueOrder.compare(v, w) == 0 { matches.append(r) }
                }
            }
            if matches.isEmpty && !keepUnmatched { continue }
            // An unmatched main row of a LEFT join is one joined row of NULLs: aggregates over no values.
            let group = matches[...]
            for item in sums { _ = try rightEvaluator.value(item, group) }
            var row: [DatabaseValue] = []
            row.reserveCapacity(all.count)
            for item in all {
                switch item {
                case .column(let p): row.append(main.slots[m][p])
                case .countAll: row.append(.integer(Int64(max(1, matches.count))))
                default: row.append(try rightEvaluator.value(item, group))
                }
            }
            out.append(row)
        }
        return Self.pagedGroups(s, out, width: items.count, selectedOrder: selectedOrder)
    }
}
