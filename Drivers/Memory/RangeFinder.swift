// RangeFinder: the candidate rows of range, equality and IN terms, read from an index's ordered entries.
import Strata

extension MemoryTable {
    /// Builds the ordered entries of the indexes whose first column a term of `condition` bounds,
    /// so that ``rangeSlots(_:)`` can use them. Only a SELECT builds them: their cost is repaid by
    /// the lookups that follow; writes use them when present.
    mutating func prepareOrderedEntries(for condition: CompiledCondition) {
        switch condition {
        case .and(let items):
            for item in items { prepareOrderedEntries(for: item) }
        case .compare(let op, .column(let c), .value(let v)), .compare(let op, .value(let v), .column(let c)):
            if op != .notEqual { prepareOrderedEntries(column: c, for: [v]) }
        case .between(.column(let c), .value(let low), .value(let high), negated: false):
            prepareOrderedEntries(column: c, for: [low, high])
        case .inList(.column(let c), let list, negated: false):
            prepareOrderedEntries(column: c, for: list.values)
        case .compare(let op, .computed(let box), .value(let v)), .compare(let op, .value(let v), .computed(let box)):
            if op != .notEqual { preparePathEntries(box.computed, for: [v]) }
        case .between(.computed(let box), .value(let low), .value(let high), negated: false):
            preparePathEntries(box.computed, for: [low, high])
        default:
            break
        }
    }

    /// Builds the entries of the path index that `value` reads, if it has none yet and the bounds can search them.
    private mutating func preparePathEntries(_ value: ComputedValue, for bounds: [DatabaseValue]) {
        guard let i = pathIndexes.indices.first(where: { pathIndexes[$0].reads(value) }),
            pathIndexes[i].ordered == nil,
            bounds.allSatisfy({ $0.isNull || Self.orderable($0, in: pathIndexes[i].valueType) })
        else { return }
        buildPathEntries(ofIndex: i)
    }

    /// For `ORDER BY column [DESC] LIMIT count` without WHERE: the slots that may hold the first
    /// `count` rows, from the column's ordered entries (built on first use), or nil to scan: no index
    /// leads with the column, a row holds NULL there, or the window is no small share of the table.
    mutating func orderedWindow(column c: Int, count: Int, descending: Bool) -> [Int]? {
        guard let i = indexes.indices.first(where: { indexes[$0].columns[0] == c }) else { return nil }
        if indexes[i].ordered == nil { buildOrderedEntries(ofIndex: i) }
        guard let entries = indexes[i].ordered, entries.nulls == 0 else { return nil }
        let extra = entries.stale + entries.pending.count
        guard count >= 0 && count <= max(64, liveCount / 8) - extra else { return nil }
        return entries.edge(count, descending: descending, slotCount: slots.count)
    }

    /// Builds the ordered entries of an index whose first column is `c`, if one has none yet: for a join that looks
    /// rows up by that column (see ``canLookUp(column:)``).
    mutating func prepareOrderedEntries(forColumn c: Int) {
        guard let i = indexes.indices.first(where: { indexes[$0].columns[0] == c }), indexes[i].ordered == nil else {
            return
        }
        buildOrderedEntries(ofIndex: i)
    }

    /// Whether ``candidateSlots(_:inOrder:)`` can answer `c = value` without a scan: `c` is the primary key, the
    /// column of a unique index, or the first column of an index whose ordered entries are built.
    func canLookUp(column c: Int) -> Bool {
        c == primaryKey || orderedIndex(on: c) != nil
            || indexes.contains { $0.isUnique && $0.columns.count == 1 && $0.columns[0] == c }
    }

    /// The slots whose column `c` may equal `v` (not NULL), ascending, read from the column's built ordered entries
    /// (their pending slots included): a join's lookup of each left row's value, without the general search of
    /// ``candidateSlots(_:inOrder:)`` (a condition built, its terms matched, ranges collected, the result sorted).
    /// Nil when no built entries answer, or `v` is of a kind they are not ordered with.
    func equalSlots(column c: Int, _ v: DatabaseValue) -> [Int]? {
        guard c != primaryKey, let i = orderedIndex(on: c), let entries = indexes[i].ordered,
            Self.orderable(v, in: columns[c].type), let r = entries.positions(.equal, v)
        else { return nil }
        // Equal values' entries are in slot order: without pending slots, nothing to sort or merge.
        guard entries.pending.isEmpty else { return entries.candidates([r], slotCount: slots.count, inOrder: true) }
        return entries.slotsInOrder(r, below: slots.count)
    }

    private mutating func prepareOrderedEntries(column c: Int, for values: [DatabaseValue]) {
        guard let i = indexes.indices.first(where: { indexes[$0].columns[0] == c }), indexes[i].ordered == nil else {
            return
        }
        guard values.allSatisfy({ $0.isNull || Self.orderable($0, in: columns[c].type) }) else { return }
        buildOrderedEntries(ofIndex: i)
    }

    /// The slots an index's ordered entries give for the condition's terms on that index's first
    /// column (the smallest set when several indexes apply), in insertion order; nil when no term
    /// can use built entries, or when so many rows qualify that a scan is cheaper. Without
    /// `inOrder`, the slots may come in any order.
    func rangeSlots(_ condition: CompiledCondition, inOrder: Bool = true) -> [Int]? {
        var found: [(index: Int, ranges: [Range<Int>])] = []
        if case .and(let items) = condition {
            for item in items { add(item, to: &found) }
        } else {
            add(condition, to: &found)
        }
        var best: (index: Int, ranges: [Range<Int>], count: Int)?
        for f in found {
            let count = f.ranges.reduce(0) { $0 + $1.count }
            if best.map({ count < $0.count }) ?? true { best = (f.index, f.ranges, count) }
        }
        guard let best, let entries = orderedEntries(best.index) else { return nil }
        // Sorting the candidates back into insertion order costs more than scanning past a share of the rows.
        guard best.count + entries.pending.count <= max(64, liveCount / 8) else { return nil }
        return entries.candidates(best.ranges, slotCount: slots.count, inOrder: inOrder)
    }

    /// Intersects the ranges of `term` (when it can use built entries) with those found so far for its index.
    private func add(_ term: CompiledCondition, to found: inout [(index: Int, ranges: [Range<Int>])]) {
        guard let (index, ranges) = ranges(of: term) else { return }
        guard let k = found.firstIndex(where: { $0.index == index }) else {
            found.append((index, ranges))
            return
        }
        var both: [Range<Int>] = []
        for a in found[k].ranges {
            for b in ranges where a.overlaps(b) { both.append(a.clamped(to: b)) }
        }
        found[k].ranges = both
    }

    /// The index and the entry positions whose value satisfies `term`, or nil when `term` cannot use built entries.
    private func ranges(of term: CompiledCondition) -> (Int, [Range<Int>])? {
        switch term {
        case .compare(let op, .column(let c), .value(let v)):
            return ranges(column: c, [v]) { e in e.positions(op, v).map { $0.isEmpty ? [] : [$0] } }
        case .compare(let op, .value(let v), .column(let c)):
            return ranges(column: c, [v]) { e in e.positions(op.mirrored, v).map { $0.isEmpty ? [] : [$0] } }
        case .between(.column(let c), .value(let low), .value(let high), negated: false):
            return ranges(column: c, [low, high]) { e in
                guard let a = e.positions(.greaterOrEqual, low), let b = e.positions(.lessOrEqual, high) else {
                    return nil
                }
                return a.overlaps(b) ? [a.clamped(to: b)] : []
            }
        case .compare(let op, .computed(let box), .value(let v)):
            return ranges(path: box.computed, [v]) { e in e.positions(op, v).map { $0.isEmpty ? [] : [$0] } }
        case .compare(let op, .value(let v), .computed(let box)):
            return ranges(path: box.computed, [v]) { e in e.positions(op.mirrored, v).map { $0.isEmpty ? [] : [$0] } }
        case .between(.computed(let box), .value(let low), .value(let high), negated: false):
            return ranges(path: box.computed, [low, high]) { e in
                guard let a = e.positions(.greaterOrEqual, low), let b = e.positions(.lessOrEqual, high) else {
                    return nil
                }
                return a.overlaps(b) ? [a.clamped(to: b)] : []
            }
        case .inList(.column(let c), let list, negated: false):
            return ranges(column: c, list.values) { e in
                var out: [Range<Int>] = []
                for v in list.values {
                    guard let r = e.positions(.equal, v) else { return nil }
                    if !r.isEmpty { out.append(r) }
                }
                return out
            }
        default:
            return nil
        }
    }

    /// The ordered index on column `c` and the ranges `body` finds in it for `bounds`; nil when
    /// there is none, a bound is of a kind the entries cannot search, or `body` finds nothing usable.
    private func ranges(
        column c: Int, _ bounds: [DatabaseValue], _ body: (OrderedEntries) -> [Range<Int>]?
    ) -> (Int, [Range<Int>])? {
        guard let i = orderedIndex(on: c), let entries = indexes[i].ordered else { return nil }
        for v in bounds where !v.isNull && !Self.orderable(v, in: columns[c].type) { return nil }
        guard let found = body(entries) else { return nil }
        return (i, found)
    }

    /// The path index whose path `value` reads, as an entry source numbered after the column indexes (see
    /// ``orderedEntries(_:)``), and the ranges `body` finds in it for `bounds`; nil as for a column.
    private func ranges(
        path value: ComputedValue, _ bounds: [DatabaseValue], _ body: (OrderedEntries) -> [Range<Int>]?
    ) -> (Int, [Range<Int>])? {
        guard let i = pathIndexes.indices.first(where: { pathIndexes[$0].reads(value) }),
            let entries = pathIndexes[i].ordered
        else { return nil }
        for v in bounds where !v.isNull && !Self.orderable(v, in: pathIndexes[i].valueType) { return nil }
        guard let found = body(entries) else { return nil }
        return (indexes.count + i, found)
    }

    /// The built entries of entry source `i`: column index `i`, or past them, path index `i - indexes.count`.
    private func orderedEntries(_ i: Int) -> OrderedEntries? {
        i < indexes.count ? indexes[i].ordered : pathIndexes[i - indexes.count].ordered
    }

    /// The first index whose first column is `c` and whose ordered entries are built.
    private func orderedIndex(on c: Int) -> Int? {
        indexes.indices.first { indexes[$0].columns[0] == c && indexes[$0].ordered != nil }
    }

    /// Whether entries of a column of `type` can be searched for `v`: a value of the kind the column
    /// stores, or a number for a numeric column. Both compare exactly, so the order a column's values
    /// are sorted in is the order they compare with `v`.
    static func orderable(_ v: DatabaseValue, in type: ColumnType) -> Bool {
        if sameKind(v, type) { return true }
        switch (type, v) {
        case (.integer, .double(let d)): return !d.isNaN
        case (.double, .integer): return true
        default: return false
        }
    }
}
