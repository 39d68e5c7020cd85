// RowFinder: finds the rows a condition selects, through the primary key or an index when it can.
import Strata

extension MemoryTable {
    /// The slots of the rows `condition` selects (all rows when nil), in insertion order, at most `limit`.
    ///
    /// `pk = v` and `pk IN (…)`, alone or as a term of an AND, read the primary-key map in O(1);
    /// so does equality on the single column of a unique index. Ranges, equality and IN on the first
    /// column of an index read its ordered entries when built (see ``rangeSlots(_:)``). Anything
    /// else scans.
    func matchingSlots(_ condition: CompiledCondition?, limit: Int? = nil) throws(StrataError) -> [Int] {
        try RowScan.matching(slots, condition, candidates: condition.flatMap { candidateSlots($0) }, limit: limit)
    }

    /// The id of a filter that is exactly `primary key = integer` (what `find` sends), or nil.
    func primaryKeyEquality(_ filter: SQLExpression?) -> Int64? {
        guard let pk = primaryKey, case .compare(.equal, let l, let r)? = filter?.node else { return nil }
        switch (l, r) {
        case (.column(let name), .value(.integer(let id))), (.value(.integer(let id)), .column(let name)):
            return name == columns[pk].name ? id : nil
        default:
            return nil
        }
    }

    /// The position in ``indexes`` of the unique index whose every column `filter` compares, in the index's column
    /// order, with the bind at the same position: `a = binds[0]` alone or `a = binds[0] AND b = binds[1] …` (what a
    /// find by a composite, text or UUID key sends); nil for any other filter.
    func uniqueIndexEquality(_ filter: SQLExpression?, binds: [DatabaseValue]) -> Int? {
        guard let node = filter?.node else { return nil }
        var terms = [node]
        if case .and(let items) = node { terms = items }
        guard terms.count == binds.count else { return nil }
        var names: [String] = []
        for (term, bind) in zip(terms, binds) {
            guard case .compare(.equal, .column(let name), .value(let v)) = term, v == bind else { return nil }
            names.append(name)
        }
        return indexes.firstIndex { $0.isUnique && $0.columnNames == names }
    }

    /// The slot of the row whose columns of the unique index at position `i` of ``indexes`` hold `key` (one value
    /// per column, in the index's order), by one probe of the index.
    ///
    /// - Returns: nil when the probe cannot answer as SQL equality does (no such unique index, or a value that is
    ///   NULL or not of its column's kind: see ``sameKind(_:_:)``); `.some(nil)` when no row has the key.
    func slot(forKey key: [DatabaseValue], inIndex i: Int) -> Int?? {
        guard i < indexes.count, indexes[i].isUnique, indexes[i].columns.count == key.count, !key.isEmpty else {
            return nil
        }
        for k in key.indices where !Self.sameKind(key[k], columns[indexes[i].columns[k]].type) { return nil }
        return .some(indexes[i].slots[IndexKey(values: key)])
    }

    /// Slots that may match, in insertion order, or nil when the condition needs a scan: an exact
    /// lookup (primary key, unique index) when a term allows one, else a range of an ordered index.
    ///
    /// Without `inOrder` (a SELECT that sorts or counts), slots from an index range may come in any order.
    func candidateSlots(_ condition: CompiledCondition, inOrder: Bool = true) -> [Int]? {
        exactSlots(condition) ?? searchSlots(condition) ?? rangeSlots(condition, inOrder: inOrder)
    }

    /// Slots from the primary-key map or a unique index, or nil.
    private func exactSlots(_ condition: CompiledCondition) -> [Int]? {
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
                if let found = exactSlots(item) { return found }
            }
            return compositeSlots(items)
        default:
            return nil
        }
    }

    /// The slot from a unique index of several columns (a composite key's) whose every column a term of `items` (an
    /// AND's) compares for equality with a value of the column's kind, by one probe; nil when no index is covered.
    private func compositeSlots(_ items: [CompiledCondition]) -> [Int]? {
        guard items.count >= 2 else { return nil }
        search: for i in indexes.indices where indexes[i].isUnique && indexes[i].columns.count >= 2 {
            guard indexes[i].columns.count <= items.count else { continue }
            var key: [DatabaseValue] = []
            key.reserveCapacity(indexes[i].columns.count)
            for c in indexes[i].columns {
                guard let v = Self.equalValue(of: c, in: items) else { continue search }
                if v.isNull { return [] }  // `= NULL` is never true
                guard Self.sameKind(v, columns[c].type) else { continue search }
                key.append(v)
            }
            return indexes[i].slots[IndexKey(values: key)].map { [$0] } ?? []
        }
        return nil
    }

    /// The value a term of `items` says column `c` equals (`c = v` or `v = c`), if one does.
    private static func equalValue(of c: Int, in items: [CompiledCondition]) -> DatabaseValue? {
        for item in items {
            switch item {
            case .compare(.equal, .column(let d), .value(let v)), .compare(.equal, .value(let v), .column(let d)):
                if d == c { return v }
            default: continue
            }
        }
        return nil
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

/// Scans rows (a table's slots, or joined rows) for those a condition selects.
enum RowScan {
    /// The indices of the non-empty rows `condition` selects (all when nil), in order, at most `limit`;
    /// only `candidates` are looked at when given.
    static func matching(
        _ rows: [[DatabaseValue]], _ condition: CompiledCondition?, candidates: [Int]? = nil,
        limit: Int? = nil
    ) throws(StrataError) -> [Int] {
        if let limit, limit <= 0 { return [] }
        let limit = limit ?? Int.max
        // Plain loops in one scope: a nested function capturing `out` would box it and pay dynamic
        // exclusivity checks on every row.
        guard let condition else {
            let order = candidates ?? Array(rows.indices)
            var out: [Int] = []
            for i in order where !rows[i].isEmpty {
                out.append(i)
                if out.count == limit { break }
            }
            return out
        }
        if let candidates, candidates.count <= 4 {
            // A key lookup's few rows: the general evaluator, without building a filter or predicate.
            var out: [Int] = []
            for i in candidates where !rows[i].isEmpty {
                guard try condition.truth(rows[i]) == .yes else { continue }
                out.append(i)
                if out.count == limit { break }
            }
            return out
        }
        if let filter = ConjunctiveFilter(condition) {
            return try rows.withUnsafeBufferPointer { rows throws(StrataError) -> [Int] in
                // While loops over Ints keep unoptimized (debug) builds, where app tests run, quick too.
                var out: [Int] = []
                if let candidates {
                    for i in candidates where !rows[i].isEmpty {
                        guard try filter.matches(rows, i) else { continue }
                        out.append(i)
                        if out.count == limit { break }
                    }
                    return out
                }
                var i = 0
                let n = rows.count
                while i < n {
                    if !rows[i].isEmpty, try filter.matches(rows, i) {
                        out.append(i)
                        if out.count == limit { break }
                    }
                    i += 1
                }
                return out
            }
        }
        let predicate = RowPredicate(condition).evaluate
        let order = candidates ?? Array(rows.indices)
        var out: [Int] = []
        for i in order where !rows[i].isEmpty {
            guard try predicate(rows[i]) == .yes else { continue }
            out.append(i)
            if out.count == limit { break }
        }
        return out
    }
}
