// StoreState+Group: SELECTs with items, GROUP BY, HAVING, aggregates or DISTINCT, evaluated in memory.
import Foundation
import Strata

extension Select {
    /// Whether the memory driver runs this SELECT through ``StoreState/groupedSelect(_:main:)``.
    var needsGrouping: Bool {
        if case .items = selection { return true }
        return !groupBy.isEmpty || having != nil || distinct || order.contains { $0.aggregate != nil }
    }
}

extension StoreState {
    /// Filters (and joins) the rows, groups them, keeps the groups HAVING accepts, computes each item, sorts
    /// (NULLs first ascending), drops repeated rows for DISTINCT, then pages: SQL's order of evaluation.
    func groupedSelect(_ s: Select, main: MemoryTable) throws(StrataError) -> Outcome {
        if let outcome = try groupsOverJoin(s, main: main) { return outcome }
        let scope: ColumnScope
        let rows: [[DatabaseValue]]
        var filtered = false
        if s.joins.isEmpty {
            scope = ColumnScope(main)
            rows = main.slots
        } else {
            (scope, rows, filtered) = try joinedRows(s, main: main)
        }
        var condition = try s.filter.map { f throws(StrataError) in try CompiledCondition(f.node, scope: scope) }
        // Checked on the main rows before the join already.
        if filtered { condition = nil }
        let candidates = s.joins.isEmpty ? condition.flatMap { main.candidateSlots($0) } : nil
        let matched = try RowScan.matching(rows, condition, candidates: candidates)
        let (items, orderItems, selectedOrder) = try Self.outputItems(s)
        let evaluator = GroupEvaluator(scope: scope, rows: rows, table: s.table)
        // Each output row: the items, then the values it sorts by (dropped before returning).
        var out: [[DatabaseValue]] = []
        // A sum or average of doubles is accumulated for every group, as PostgreSQL and SQLite do: one that
        // overflows fails the query even in a group HAVING then drops (README: numeric rules).
        let accumulated = (items + orderItems).filter { item in
            guard case .aggregate(let a) = item, a.function == .sum || a.function == .avg else { return false }
            return a.type == .double
        }
        let havingDecimalSums = s.having?.decimalSums ?? []
        if s.isAggregated {
            let grouping = Self.grouping(s.groupBy, main: main, table: s.table)
            let (rowsByGroup, ranges) = try evaluator.groupRanges(matched, by: grouping)
            var all: [GroupEvaluator.Resolved] = []
            all.reserveCapacity(items.count + orderItems.count)
            for item in items + orderItems { all.append(try evaluator.resolve(item)) }
            var sums: [GroupEvaluator.Resolved] = []
            for item in accumulated { sums.append(try evaluator.resolve(item)) }
            out.reserveCapacity(ranges.count)
            for range in ranges {
                let group = rowsByGroup[range]
                for item in sums { _ = try evaluator.value(item, group) }
                // Each decimal sum HAVING reads, past 38 significant digits, fails as it does selected (issue 25).
                for a in havingDecimalSums {
                    if case .decimal(let d) = try evaluator.value(.aggregate(a), group), d.isNaN {
                        throw .arithmeticError(expression: a.summary, reason: DecimalDigits.pastLimit)
                    }
                }
                if let having = s.having, try evaluator.truth(having.node, group) != true { continue }
                var row: [DatabaseValue] = []
                row.reserveCapacity(all.count)
                for item in all { row.append(try evaluator.value(item, group)) }
                out.append(row)
            }
        } else {
            // Each window's values first: a window reads every matched row of its partition.
            var windows: [WindowFunction: [Int: DatabaseValue]] = [:]
            for w in s.windows where windows[w] == nil {
                windows[w] = try WindowValues.compute(w, matched: matched, rows: rows, scope: scope, table: s.table)
            }
            // Expression terms of the ORDER BY (`upper(title)`), computed for each matched row.
            var computed: [Int: ComputedValue] = [:]
            for (k, o) in s.order.enumerated() {
                if let e = o.expression { computed[k] = try ComputedValue(e.node, scope: scope) }
            }
            // Expression items (a JSON path's value), compiled once.
            var itemValues: [Int: ComputedValue] = [:]
            for (k, item) in items.enumerated() {
                if case .expression(let e) = item { itemValues[k] = try ComputedValue(e.node, scope: scope) }
            }
            // Where each value of an output row comes from, worked out once, not once a row (a column's position
            // was looked up by name, and a one-row group allocated, for each value). A column the scope lacks stays
            // an item, which throws as before, on the first row.
            var sources: [RowItemSource] = []
            sources.reserveCapacity(items.count + orderItems.count)
            for (k, item) in items.enumerated() {
                if case .window(let w) = item {
                    sources.append(.window(windows[w] ?? [:]))
                } else if let value = itemValues[k] {
                    sources.append(.computed(value))
                } else {
                    sources.append(RowItemSource(item, scope: scope))
                }
            }
            for (k, item) in orderItems.enumerated() {
                sources.append(computed[k].map(RowItemSource.computed) ?? RowItemSource(item, scope: scope))
            }
            out.reserveCapacity(matched.count)
            for i in matched {
                var row: [DatabaseValue] = []
                row.reserveCapacity(sources.count)
                for source in sources {
                    switch source {
                    case .column(let p): row.append(rows[i][p])
                    case .window(let values): row.append(values[i] ?? .null)
                    case .computed(let value): row.append(try value.value(rows[i]))
                    case .item(let item): row.append(try evaluator.value(item, [i][...]))
                    }
                }
                out.append(row)
            }
        }
        return Self.pagedGroups(s, out, width: items.count, selectedOrder: selectedOrder)
    }

    /// The items a grouped or DISTINCT select returns, the values its ORDER BY sorts by that are not among them (an
    /// output row holds those after the items), and, when every ORDER BY term is a selected item (`GROUP BY s2
    /// ORDER BY s2`), each term's item: no value is then computed twice, nor a row copied to drop the extra ones.
    static func outputItems(_ s: Select) throws(StrataError) -> (
        items: [SelectItem], orderItems: [SelectItem], selectedOrder: [Int]?
    ) {
        let items: [SelectItem]
        switch s.selection {
        case .columns(let names): items = names.map { .column(ColumnRef($0)) }
        case .refs(let refs): items = refs.map { .column($0) }
        case .items(let list): items = list
        case .count: throw .invalidQuery("COUNT(*) of a grouped or DISTINCT select: select a count item instead")
        }
        let orderItems = s.order.map { o in
            o.aggregate.map(SelectItem.aggregate) ?? .column(ColumnRef(o.column, table: o.table))
        }
        var selected: [Int] = []
        for (k, o) in s.order.enumerated() {
            guard o.expression == nil, let j = items.firstIndex(of: orderItems[k]) else {
                return (items, orderItems, nil)
            }
            selected.append(j)
        }
        return s.order.isEmpty ? (items, orderItems, nil) : (items, [], selected)
    }

    /// Sorts the output rows (NULLs first ascending), drops repeated rows for DISTINCT, pages them and drops the
    /// values past the first `width` (what the ORDER BY alone needed).
    static func pagedGroups(_ s: Select, _ out: [[DatabaseValue]], width: Int, selectedOrder: [Int]?) -> Outcome {
        let terms = s.order.enumerated().map {
            (
                column: selectedOrder?[$0.offset] ?? width + $0.offset,
                descending: $0.element.direction == .descending
            )
        }
        var positions = RowSort.sort(Array(out.indices), of: out, by: terms, keeping: nil)
        if s.distinct {
            var seen: Set<[IndexKey]> = []
            positions = positions.filter { seen.insert(out[$0].prefix(width).map(IndexKey.init)).inserted }
        }
        let start = min(s.offset ?? 0, positions.count)
        let end = s.limit.map { min(positions.count, start + min($0, positions.count - start)) } ?? positions.count
        if selectedOrder != nil || s.order.isEmpty {
            return Outcome(rows: .list(positions[start..<end].map { out[$0] }))
        }
        return Outcome(rows: .list(positions[start..<end].map { Array(out[$0].prefix(width)) }))
    }
}

extension StoreState {
    /// The GROUP BY columns to number groups by: with the main table's integer primary key among them, the key and
    /// the columns of joined tables only. The key names one main row, so each other column of the main table holds
    /// one value in a group (NULL with the key, in a row an outer join brought without a main row): the groups are
    /// the same, found by hashing one integer a row instead of every grouped value (what `all(with:)` groups by).
    static func grouping(_ columns: [ColumnRef], main: MemoryTable, table: String) -> [ColumnRef] {
        guard columns.count > 1, let pk = main.primaryKey else { return columns }
        let key = main.columns[pk].name
        func isMain(_ c: ColumnRef) -> Bool { c.table == nil || c.table == table }
        guard let keyRef = columns.first(where: { isMain($0) && $0.name == key }) else { return columns }
        return [keyRef] + columns.filter { !isMain($0) }
    }
}

/// Computes items and HAVING conditions over groups of rows (each group: row positions, in scan order).
/// Where one value of an ungrouped output row comes from.
enum RowItemSource {
    /// The row's value at this position.
    case column(Int)
    /// A window's value of each matched row.
    case window([Int: DatabaseValue])
    case computed(ComputedValue)
    /// Anything else, through the group evaluator over the row alone.
    case item(SelectItem)

    init(_ item: SelectItem, scope: borrowing ColumnScope) {
        if case .column(let c) = item, let p = try? scope.position(of: c.name, in: c.table) {
            self = .column(p)
        } else {
            self = .item(item)
        }
    }
}

struct GroupEvaluator {
    let scope: ColumnScope
    let rows: [[DatabaseValue]]
    let table: String

    /// The groups of `matched` by the values of `columns` (NULL equal to NULL), in order of first row; with no
    /// columns, one group of every row, even none (an aggregate over no rows still answers).
    func groups(_ matched: [Int], by columns: [ColumnRef]) throws(StrataError) -> [[Int]] {
        let (rowsByGroup, ranges) = try groupRanges(matched, by: columns)
        return ranges.map { Array(rowsByGroup[$0]) }
    }

    /// The groups of ``groups(_:by:)`` as ranges of one array of row positions, group after group: two
    /// allocations for any number of groups, where an array per group costs one each and its growth.
    ///
    /// - Parameter hashed: false to number the groups through the dictionary of keys alone (the path every kind of
    ///   value takes), as tests compare both.
    func groupRanges(_ matched: [Int], by columns: [ColumnRef], hashed: Bool = true) throws(StrataError) -> (
        [Int], [Range<Int>]
    ) {
        guard !columns.isEmpty else { return (matched, [0..<matched.count]) }
        var positions: [Int] = []
        for c in columns { positions.append(try scope.position(of: c.name, in: c.table)) }
        // Integers, text, JSON, doubles and booleans through the hash table of ``GroupNumbering``; other kinds
        // through a dictionary of keys, one lookup a row (a new key's group number is written where the lookup
        // found no entry).
        var (groupOf, counts) =
            hashed
            ? rows.withUnsafeBufferPointer { GroupNumbering.number($0, matched, positions) } ?? ([], []) : ([], [])
        if groupOf.count != matched.count {
            var index: [IndexKey: Int] = [:]
            groupOf.reserveCapacity(matched.count)
            rows.withUnsafeBufferPointer { rows in
                for i in matched {
                    let key = IndexKey(grouping: rows[i], columns: positions)
                    let g = Self.numbered(&index[key, default: -1], counts.count)
                    if g == counts.count { counts.append(1) } else { counts[g] += 1 }
                    groupOf.append(g)
                }
            }
        }
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(counts.count)
        var next: [Int] = []
        next.reserveCapacity(counts.count)
        var start = 0
        for n in counts {
            ranges.append(start..<start + n)
            next.append(start)
            start += n
        }
        var rowsByGroup = [Int](repeating: 0, count: matched.count)
        for (k, i) in matched.enumerated() {
            let g = groupOf[k]
            rowsByGroup[next[g]] = i
            next[g] += 1
        }
        return (rowsByGroup, ranges)
    }

    /// The group number in `entry`, or `new` written there when it holds none (-1).
    @inline(__always)
    private static func numbered(_ entry: inout Int, _ new: Int) -> Int {
        if entry < 0 { entry = new }
        return entry
    }

    /// An item with its column's position found: what ``value(_:_:)-(Resolved,_)`` reads for each group.
    enum Resolved {
        case column(Int)
        /// `COUNT(*)`.
        case countAll
        case aggregate(Aggregate, position: Int)
        case other(SelectItem)
    }

    /// `item` with its column's position found once, not once a group.
    func resolve(_ item: SelectItem) throws(StrataError) -> Resolved {
        switch item {
        case .column(let c): return .column(try scope.position(of: c.name, in: c.table))
        case .aggregate(let a):
            guard let c = a.column else { return .countAll }
            return .aggregate(a, position: try scope.position(of: c.name, in: c.table))
        case .window, .expression: return .other(item)
        }
    }

    /// The value of a resolved item over a group.
    func value(_ item: Resolved, _ group: ArraySlice<Int>) throws(StrataError) -> DatabaseValue {
        switch item {
        case .column(let p):
            guard let first = group.first else { return .null }
            return rows[first][p]
        case .countAll: return .integer(Int64(group.count))
        case .aggregate(let a, let p): return try aggregate(a, at: p, group)
        case .other(let item): return try value(item, group)
        }
    }

    func value(_ item: SelectItem, _ group: ArraySlice<Int>) throws(StrataError) -> DatabaseValue {
        switch item {
        case .column(let c):
            guard let first = group.first else { return .null }
            return rows[first][try scope.position(of: c.name, in: c.table)]
        case .aggregate(let a):
            return try aggregate(a, group)
        case .window(let w):
            throw .invalidQuery("\(w.summary) is computed per row, not per group")
        case .expression(let e):
            guard let first = group.first else { return .null }
            return try ComputedValue(e.node, scope: scope).value(rows[first])
        }
    }

    /// The sum of the integers at position `p` of the group's rows (NULL when all are NULL); nil, for the general
    /// path and its errors, when a value is not an integer or the sum leaves Int64.
    private func integerSum(at p: Int, _ group: ArraySlice<Int>) -> DatabaseValue? {
        var total: Int128 = 0
        var n = 0
        for i in group {
            switch rows[i][p] {
            case .null: continue
            case .integer(let x):
                total += Int128(x)
                n += 1
            default: return nil
            }
        }
        guard n > 0 else { return .null }
        return Int64(exactly: total).map(DatabaseValue.integer)
    }

    /// HAVING in three-valued logic: nil is unknown (a comparison with NULL).
    func truth(_ node: HavingCondition.Node, _ group: ArraySlice<Int>) throws(StrataError) -> Bool? {
        switch node {
        case .compare(let op, let item, let bound):
            let v = try value(item, group)
            if v.isNull || bound.isNull { return nil }
            let c = ValueOrder.compare(v, bound)
            switch op {
            case .equal: return c == 0
            case .notEqual: return c != 0
            case .less: return c < 0
            case .lessOrEqual: return c <= 0
            case .greater: return c > 0
            case .greaterOrEqual: return c >= 0
            }
        case .isNull(let item, let negated):
            return try value(item, group).isNull != negated
        case .and(let items):
            var unknown = false
            for item in items {
                switch try truth(item, group) {
                case false?: return false
                case nil: unknown = true
                case true?: break
                }
            }
            return unknown ? nil : true
        case .or(let items):
            var unknown = false
            for item in items {
                switch try truth(item, group) {
                case true?: return true
                case nil: unknown = true
                case false?: break
                }
            }
            return unknown ? nil : false
        case .not(let inner):
            return try truth(inner, group).map { !$0 }
        }
    }

    /// One aggregate over a group: NULLs skipped, DISTINCT by SQL equality; no values give NULL (0 for a count).
    /// Values are folded in as they are read, in the group's row order.
    func aggregate(_ a: Aggregate, _ group: ArraySlice<Int>) throws(StrataError) -> DatabaseValue {
        guard let c = a.column else { return .integer(Int64(group.count)) }
        return try aggregate(a, at: try scope.position(of: c.name, in: c.table), group)
    }

    /// One aggregate over the column at position `p` of the rows.
    func aggregate(_ a: Aggregate, at p: Int, _ group: ArraySlice<Int>) throws(StrataError) -> DatabaseValue {
        if !a.distinct {
            // The usual ones in a loop of their own: a count of values, an integer sum that fits in Int64.
            if a.function == .count {
                var n = 0
                for i in group where !rows[i][p].isNull { n += 1 }
                return .integer(Int64(n))
            }
            if a.function == .sum, (a.type ?? scope.type(at: p)) == .integer, let sum = integerSum(at: p, group) {
                return sum
            }
        }
        var seen: Set<IndexKey> = []
        var count = 0
        var best: DatabaseValue?
        var sum: AggregateSum?
        if a.function == .sum || a.function == .avg {
            sum = AggregateSum(type: a.type ?? scope.type(at: p), table: table, aggregate: a)
        }
        for i in group {
            let v = rows[i][p]
            if v.isNull { continue }
            if a.distinct, !seen.insert(IndexKey(v)).inserted { continue }
            count += 1
            switch a.function {
            case .count: break
            case .min: if best.map({ ValueOrder.compare(v, $0) < 0 }) ?? true { best = v }
            case .max: if best.map({ ValueOrder.compare(v, $0) > 0 }) ?? true { best = v }
            case .sum, .avg: try sum?.add(v)
            }
        }
        switch a.function {
        case .count: return .integer(Int64(count))
        case .min, .max: return best ?? .null
        case .sum, .avg:
            guard count > 0, let sum else { return .null }
            return try sum.result(average: a.function == .avg)
        }
    }
}
