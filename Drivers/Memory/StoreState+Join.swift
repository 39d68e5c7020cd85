// StoreState+Join: INNER, LEFT, RIGHT and FULL joins, as nested loops with an index or hash lookup on an equality.
import Strata

extension StoreState {
    /// Builds the ordered index entries ``joinedRows(_:main:)`` reads: the main table's, for the WHERE terms on its
    /// own columns, and each joined table's, for the column its ON condition equates with an earlier table's.
    /// Statements that fail here fail again, with their error, when they run.
    mutating func prepareJoin(_ s: Select, main i: [TableName: MemoryTable].Index) {
        let own = Self.ownTerms(s, main: tables.values[i])
        if let own {
            tables.values[i].prepareOrderedEntries(for: own)
            tables.values[i].prepareSearchIndex(for: own)
        }
        var scope = ColumnScope(tables.values[i])
        for (k, join) in s.joins.enumerated() {
            guard let r = tables.index(forKey: join.table) else { return }
            let leftWidth = scope.width
            guard (try? scope.join(tables.values[r], as: join.alias)) != nil else { return }
            guard let on = try? CompiledCondition(join.on.node, scope: scope),
                let equality = JoinEquality.find(on, leftWidth: leftWidth)
            else { continue }
            tables.values[r].prepareOrderedEntries(forColumn: equality.right - leftWidth)
            if k == 0, own == nil, Self.drivesFromRight(s, main: tables.values[i], right: tables.values[r]) {
                tables.values[i].prepareOrderedEntries(forColumn: equality.left)
            }
        }
    }

    /// Whether the first join may be read from its right rows (see ``rowsFromRight(_:main:right:leftWidth:)``),
    /// when no WHERE term narrows the main table: an INNER join of a table a tenth of the main table's size or less.
    static func drivesFromRight(_ s: Select, main: MemoryTable, right: MemoryTable) -> Bool {
        s.joins.first?.kind == .inner && right.liveCount <= main.liveCount / 10
    }

    /// The rows of the first join, an INNER one whose right table is small (a recursive walk's last level), found
    /// from its right rows: each right row's value of the ON equality's column looks its main rows up in an index
    /// of the main table, instead of each main row looking up the right table. Then sorted into the order the
    /// nested loop gives: main rows in slot order, each followed by its matches in slot order. The whole ON
    /// condition is checked on each joined row. Nil when the main table cannot answer a lookup (no built index on
    /// the column, a value of another kind, too many rows): the nested loop runs then.
    private func rowsFromRight(_ on: CompiledCondition, main: MemoryTable, right: MemoryTable, leftWidth: Int)
        throws(StrataError) -> [[DatabaseValue]]?
    {
        guard let e = JoinEquality.find(on, leftWidth: leftWidth), main.canLookUp(column: e.left) else { return nil }
        var pairs: [(main: Int, right: Int)] = []
        for r in right.slots.indices where !right.slots[r].isEmpty {
            let v = right.slots[r][e.right - leftWidth]
            if v.isNull { continue }
            guard let found = main.candidateSlots(.compare(.equal, .column(e.left), .value(v))) else { return nil }
            for m in found where !main.slots[m].isEmpty { pairs.append((m, r)) }
        }
        pairs.sort { $0.main < $1.main || ($0.main == $1.main && $0.right < $1.right) }
        let predicate = RowPredicate(on).evaluate
        var out: [[DatabaseValue]] = []
        for (m, r) in pairs {
            let combined = main.slots[m] + right.slots[r]
            if try predicate(combined) == .yes { out.append(combined) }
        }
        return out
    }

    /// The rows of the main table joined with each join in turn: a joined row is the main row
    /// followed by one row of each joined table (NULLs where an outer join found none).
    ///
    /// Order, which SQL leaves open without ORDER BY: left rows in order, each followed by its
    /// matches in insertion order; a RIGHT or FULL join then adds the unmatched right rows.
    ///
    /// When every join is INNER or LEFT, the main rows are first narrowed by an index over the WHERE terms on the
    /// main table's own columns (the whole WHERE is still evaluated on the joined rows); a joined table whose ON
    /// column has an index is read through it for each left row, else through a hash of its rows built once.
    ///
    /// - Returns: the scope, the rows, and whether the whole WHERE was checked on the main rows already (see
    ///   ``wholeFilterIsOwn(_:main:)``), so that the caller need not check it on the joined rows.
    func joinedRows(_ s: Select, main: MemoryTable) throws(StrataError) -> (
        ColumnScope, [[DatabaseValue]], filtered: Bool
    ) {
        var scope = ColumnScope(main)
        var rows: [[DatabaseValue]] = []
        let (own, whole) = Self.ownFilter(s, main: main)
        for (k, join) in s.joins.enumerated() {
            let right = try table(join.table)
            let leftWidth = scope.width
            try scope.join(right, as: join.alias)
            let on = try CompiledCondition(join.on.node, scope: scope)
            if k == 0, own == nil, Self.drivesFromRight(s, main: main, right: right),
                let found = try rowsFromRight(on, main: main, right: right, leftWidth: leftWidth)
            {
                rows = found
                continue
            }
            if k == 0 {
                // A WHERE made only of terms on the main table, that no row can make throw, is checked on the main
                // rows here, before they are joined (see ``wholeFilterIsOwn(_:main:)``).
                let checked = whole ? own : nil
                if let own, let slots = main.candidateSlots(own) {
                    rows.reserveCapacity(slots.count)
                    for slot in slots where !main.slots[slot].isEmpty {
                        if let checked, (try? checked.truth(main.slots[slot])) != .yes { continue }
                        rows.append(main.slots[slot])
                    }
                } else {
                    rows = main.slots.filter { row in
                        !row.isEmpty && (checked.map { (try? $0.truth(row)) == .yes } ?? true)
                    }
                }
            }
            let equality = JoinEquality.find(on, leftWidth: leftWidth)
            let predicate = RowPredicate(on).evaluate
            // An ON condition that is just the equality is checked on the two rows' values before they are joined.
            let onlyEquality: JoinEquality?
            if case .compare(.equal, .column, .column) = on { onlyEquality = equality } else { onlyEquality = nil }
            // The right table's live slots, listed on first use: a join answered through an index never needs them.
            var live: [Int]?
            // The right column's position in its own table, when an index answers `column = value` there.
            let indexed = equality.flatMap { e in right.canLookUp(column: e.right - leftWidth) ? e : nil }
            var hash: HashLookup?  // built on the first left row the index cannot answer
            let keepLeft = join.kind == .left || join.kind == .full
            let keepRight = join.kind == .right || join.kind == .full
            var matchedRight = [Bool](repeating: false, count: keepRight ? right.slots.count : 0)
            let rightNulls = [DatabaseValue](repeating: .null, count: right.columns.count)
            var out: [[DatabaseValue]] = []
            for left in rows {
                var candidates: [Int]?
                if let e = indexed {
                    let v = left[e.left]
                    candidates =
                        v.isNull
                        ? []
                        : right.equalSlots(column: e.right - leftWidth, v)
                            ?? right.candidateSlots(.compare(.equal, .column(e.right - leftWidth), .value(v)))
                }
                if candidates == nil, let e = equality {
                    if hash == nil {
                        hash = HashLookup(e, table: right, leftWidth: leftWidth, scope: scope)
                    }
                    candidates = hash?.candidates(for: left)
                }
                if candidates == nil && live == nil { live = right.slots.indices.filter { !right.slots[$0].isEmpty } }
                var matched = false
                // An index's candidates may name slots emptied since it was built: skipped, as a scan skips them.
                for r in candidates ?? live ?? [] where !right.slots[r].isEmpty {
                    let combined: [DatabaseValue]
                    if let e = onlyEquality {
                        let a = left[e.left]
                        let b = right.slots[r][e.right - leftWidth]
                        guard !a.isNull && !b.isNull && ValueOrder.compare(a, b) == 0 else { continue }
                        combined = Self.joined(left, right.slots[r])
                    } else {
                        combined = Self.joined(left, right.slots[r])
                        guard try predicate(combined) == .yes else { continue }
                    }
                    out.append(combined)
                    matched = true
                    if keepRight { matchedRight[r] = true }
                }
                if !matched && keepLeft { out.append(Self.joined(left, rightNulls)) }
            }
            if keepRight {
                let leftNulls = [DatabaseValue](repeating: .null, count: leftWidth)
                for r in right.slots.indices where !matchedRight[r] && !right.slots[r].isEmpty {
                    out.append(leftNulls + right.slots[r])
                }
            }
            rows = out
        }
        return (scope, rows, whole)
    }

    /// A joined row: `left`'s values, then `right`'s, in one allocation of their size.
    @inline(__always)
    static func joined(_ left: [DatabaseValue], _ right: [DatabaseValue]) -> [DatabaseValue] {
        Array(unsafeUninitializedCapacity: left.count + right.count) { buffer, count in
            left.withUnsafeBufferPointer { l in
                right.withUnsafeBufferPointer { r in
                    guard let base = buffer.baseAddress else { return }
                    if let lb = l.baseAddress { (base).initialize(from: lb, count: l.count) }
                    if let rb = r.baseAddress { (base + l.count).initialize(from: rb, count: r.count) }
                }
            }
            count = left.count + right.count
        }
    }

    /// Whether the whole WHERE is terms on the main table's own columns (``ownFilter(_:main:)`` compiles each) that
    /// read only columns and values, so no row can make them throw: they are then checked on the main rows before
    /// the join, where they select the same joined rows (an INNER or LEFT join keeps each main row's values).
    static func wholeFilterIsOwn(_ s: Select, main: MemoryTable) -> Bool { ownFilter(s, main: main).whole }

    /// The WHERE terms (of its top-level AND) that name only the main table's columns, compiled over the main
    /// table alone; nil when there are none, or when a RIGHT or FULL join can bring rows without a main row.
    static func ownTerms(_ s: Select, main: MemoryTable) -> CompiledCondition? { ownFilter(s, main: main).own }

    /// ``ownTerms(_:main:)``, and whether they are the whole WHERE and cannot throw (``wholeFilterIsOwn(_:main:)``),
    /// from one compilation of the terms.
    static func ownFilter(_ s: Select, main: MemoryTable) -> (own: CompiledCondition?, whole: Bool) {
        guard let filter = s.filter, s.joins.allSatisfy({ $0.kind == .inner || $0.kind == .left }) else {
            return (nil, false)
        }
        let terms: [SQLExpression.Node]
        if case .and(let items) = filter.node { terms = items } else { terms = [filter.node] }
        let scope = ColumnScope(main)
        var own: [CompiledCondition] = []
        var whole = true
        for term in terms {
            if let c = try? CompiledCondition(term, scope: scope) {
                own.append(c)
                if !MemoryTable.cannotThrow(c) { whole = false }
            } else {
                whole = false
            }
        }
        if own.isEmpty { return (nil, false) }
        return (own.count == 1 ? own[0] : .and(own), whole)
    }
}

/// A term `left column = right column` of a join condition (alone or inside an AND), as positions: `left` in the
/// left row, `right` in the joined row.
struct JoinEquality {
    let left: Int
    let right: Int

    static func find(_ c: CompiledCondition, leftWidth: Int) -> JoinEquality? {
        switch c {
        case .compare(.equal, .column(let a), .column(let b)):
            if a < leftWidth && b >= leftWidth { return JoinEquality(left: a, right: b) }
            if b < leftWidth && a >= leftWidth { return JoinEquality(left: b, right: a) }
            return nil
        case .and(let items):
            for item in items {
                if let found = find(item, leftWidth: leftWidth) { return found }
            }
            return nil
        default:
            return nil
        }
    }
}

/// The right table's live slots by the value of the equality's right column, so each left row finds its matches
/// without a scan. The full condition is still checked.
private struct HashLookup {
    let leftColumn: Int
    let rightType: ColumnType
    let slotsByKey: [IndexKey: [Int]]

    init(_ e: JoinEquality, table: MemoryTable, leftWidth: Int, scope: ColumnScope) {
        leftColumn = e.left
        rightType = scope.type(at: e.right)
        let column = e.right - leftWidth
        var map: [IndexKey: [Int]] = [:]
        for slot in table.slots.indices where !table.slots[slot].isEmpty && !table.slots[slot][column].isNull {
            map[IndexKey(table.slots[slot][column]), default: []].append(slot)
        }
        slotsByKey = map
    }

    /// The right slots whose column equals the left row's value, or nil when the lookup cannot
    /// answer (a value of another kind than the right column stores: scan instead).
    func candidates(for left: [DatabaseValue]) -> [Int]? {
        let v = left[leftColumn]
        if v.isNull { return [] }
        guard MemoryTable.sameKind(v, rightType) else { return nil }
        return slotsByKey[IndexKey(v)] ?? []
    }
}
