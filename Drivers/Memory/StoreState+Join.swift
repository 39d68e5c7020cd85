// StoreState+Join: INNER, LEFT, RIGHT and FULL joins, as nested loops with a hash lookup on an equality.
import Strata

extension StoreState {
    /// The rows of the main table joined with each join in turn: a joined row is the main row
    /// followed by one row of each joined table (NULLs where an outer join found none).
    ///
    /// Order, which SQL leaves open without ORDER BY: left rows in order, each followed by its
    /// matches in insertion order; a RIGHT or FULL join then adds the unmatched right rows.
    func joinedRows(_ s: Select, main: MemoryTable) throws(StrataError) -> (ColumnScope, [[DatabaseValue]]) {
        var scope = ColumnScope(main)
        var rows = main.slots.filter { !$0.isEmpty }
        for join in s.joins {
            let right = try table(join.table)
            let leftWidth = scope.width
            try scope.join(right, as: join.alias)
            let on = try CompiledCondition(join.on.node, scope: scope)
            let predicate = RowPredicate(on).evaluate
            let rightRows = right.slots.filter { !$0.isEmpty }
            let lookup = HashLookup(on, rows: rightRows, leftWidth: leftWidth, scope: scope)
            let keepLeft = join.kind == .left || join.kind == .full
            let keepRight = join.kind == .right || join.kind == .full
            var matchedRight = [Bool](repeating: false, count: keepRight ? rightRows.count : 0)
            let rightNulls = [DatabaseValue](repeating: .null, count: right.columns.count)
            var out: [[DatabaseValue]] = []
            let everyRight = Array(rightRows.indices)
            for left in rows {
                var matched = false
                for r in lookup?.candidates(for: left) ?? everyRight {
                    let combined = left + rightRows[r]
                    guard try predicate(combined) == .yes else { continue }
                    out.append(combined)
                    matched = true
                    if keepRight { matchedRight[r] = true }
                }
                if !matched && keepLeft { out.append(left + rightNulls) }
            }
            if keepRight {
                let leftNulls = [DatabaseValue](repeating: .null, count: leftWidth)
                for r in rightRows.indices where !matchedRight[r] { out.append(leftNulls + rightRows[r]) }
            }
            rows = out
        }
        return (scope, rows)
    }
}

/// For a join condition with a term `left column = right column`: the right rows by that column's
/// value, so each left row finds its matches without a scan. The full condition is still checked.
private struct HashLookup {
    let leftColumn: Int
    let rightType: ColumnType
    let rowsByKey: [IndexKey: [Int]]

    init?(_ on: CompiledCondition, rows: [[DatabaseValue]], leftWidth: Int, scope: ColumnScope) {
        guard let (l, r) = Self.equality(on, leftWidth: leftWidth) else { return nil }
        leftColumn = l
        rightType = scope.type(at: r)
        var map: [IndexKey: [Int]] = [:]
        for (i, row) in rows.enumerated() where !row[r - leftWidth].isNull {
            map[IndexKey(row[r - leftWidth]), default: []].append(i)
        }
        rowsByKey = map
    }

    /// A `left = right` term (or one inside an AND), as positions: left in the left row, right in the joined row.
    private static func equality(_ c: CompiledCondition, leftWidth: Int) -> (Int, Int)? {
        switch c {
        case .compare(.equal, .column(let a), .column(let b)):
            if a < leftWidth && b >= leftWidth { return (a, b) }
            if b < leftWidth && a >= leftWidth { return (b, a) }
            return nil
        case .and(let items):
            for item in items {
                if let found = equality(item, leftWidth: leftWidth) { return found }
            }
            return nil
        default:
            return nil
        }
    }

    /// The right rows whose column equals the left row's value, or nil when the lookup cannot
    /// answer (a value of another kind than the right column stores: scan instead).
    func candidates(for left: [DatabaseValue]) -> [Int]? {
        let v = left[leftColumn]
        if v.isNull { return [] }
        guard MemoryTable.sameKind(v, rightType) else { return nil }
        return rowsByKey[IndexKey(v)] ?? []
    }
}
