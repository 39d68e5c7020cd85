// WalkStep: a recursive walk's step (a table INNER JOINed to the walk's last level) compiled once for all its levels.
import Strata

/// The step of a recursive walk of the usual shape, `SELECT columns FROM table INNER JOIN walk ON table.a = walk.b
/// [AND …] [WHERE …]`, compiled once for every level: its scope, its ON and WHERE conditions and its projection. Each
/// level then looks the table's rows up by the ON equality's column for each row of the last level, with none of
/// the statement's preparation again (a level cost as much as a statement: the scope and its names, the conditions
/// compiled twice, the projection matched by name, the rows copied twice).
///
/// The rows are those ``StoreState/select(_:)`` gives for the step over the level: the pairs of a table row and a
/// level row for which ON and WHERE are TRUE, in the order of the table's slots and then the level's rows (the
/// order both ways of joining give), projected, each followed by the depth. Only conditions that cannot throw
/// (``MemoryTable/cannotThrow(_:)``) are planned, so the order in which rows are checked changes no error.
struct WalkStep {
    /// The ON condition's `table.a = walk.b`: `left` in the table's rows, `right` in the joined row.
    let equality: JoinEquality
    /// The number of the table's columns: a level row's values start there in a joined row.
    let leftWidth: Int
    /// The whole ON condition, or nil when it is only the equality (checked on the two values).
    let on: CompiledCondition?
    let filter: CompiledCondition?
    /// The joined row's positions the step selects, in order (nil: every column).
    let projection: [Int]?

    /// The plan of `step` over `main` (its table) and `walk` (the walk's rows so far, named as the step joins them),
    /// or nil for any other shape.
    init?(_ step: Select, main: MemoryTable, walk: MemoryTable) {
        guard step.joins.count == 1, let join = step.joins.first, join.kind == .inner, join.table == walk.name,
            step.table != walk.name, !step.hasSubquery, step.commonTable == nil, step.compound == nil,
            step.groupBy.isEmpty, step.having == nil, !step.distinct, step.order.isEmpty, step.limit == nil,
            step.offset == nil, step.lock == nil, !step.needsGrouping
        else { return nil }
        var scope = ColumnScope(main)
        leftWidth = scope.width
        guard (try? scope.join(walk, as: join.alias)) != nil,
            let on = try? CompiledCondition(join.on.node, scope: scope), MemoryTable.cannotThrow(on),
            let e = JoinEquality.find(on, leftWidth: leftWidth)
        else { return nil }
        equality = e
        if case .compare(.equal, .column, .column) = on { self.on = nil } else { self.on = on }
        if let f = step.filter {
            guard let compiled = try? CompiledCondition(f.node, scope: scope), MemoryTable.cannotThrow(compiled) else {
                return nil
            }
            filter = compiled
        } else {
            filter = nil
        }
        switch step.selection {
        case .columns(let names):
            guard let positions = try? scope.positions(of: names) else { return nil }
            projection = positions
        case .refs(let refs):
            var positions: [Int] = []
            for r in refs {
                guard let p = try? scope.position(of: r.name, in: r.table) else { return nil }
                positions.append(p)
            }
            projection = positions.elementsEqual(0..<scope.width) ? nil : positions
        case .count, .items:
            return nil
        }
    }

    /// The step's rows over `level`, each followed by `depth`; nil when `main` cannot look a level's value up (no
    /// index on the column, a value of another kind): the statement runs then.
    func rows(main: borrowing MemoryTable, level: [[DatabaseValue]], depth: Int64) -> [[DatabaseValue]]? {
        let column = equality.left
        let walkColumn = equality.right - leftWidth
        guard main.canLookUp(column: column) else { return nil }
        var pairs: [(main: Int, right: Int)] = []
        for r in level.indices {
            let v = level[r][walkColumn]
            if v.isNull { continue }
            guard
                let found = main.equalSlots(column: column, v)
                    ?? main.candidateSlots(.compare(.equal, .column(column), .value(v)))
            else { return nil }
            for m in found where !main.slots[m].isEmpty { pairs.append((m, r)) }
        }
        if pairs.count > 1 { pairs.sort { $0.main < $1.main || ($0.main == $1.main && $0.right < $1.right) } }
        let on = self.on.map { RowPredicate($0).evaluate }
        let filter = self.filter.map { RowPredicate($0).evaluate }
        var out: [[DatabaseValue]] = []
        out.reserveCapacity(pairs.count)
        for (m, r) in pairs {
            let left = main.slots[m]
            let right = level[r]
            if on == nil {
                let a = left[column]
                let b = right[walkColumn]
                guard !a.isNull && !b.isNull && ValueOrder.compare(a, b) == 0 else { continue }
            }
            let combined = StoreState.joined(left, right)
            // Neither condition can throw (see the type's summary).
            if let on, (try? on(combined)) != .yes { continue }
            if let filter, (try? filter(combined)) != .yes { continue }
            guard let projection else {
                var row = combined
                row.append(.integer(depth))
                out.append(row)
                continue
            }
            var row: [DatabaseValue] = []
            row.reserveCapacity(projection.count + 1)
            for p in projection { row.append(combined[p]) }
            row.append(.integer(depth))
            out.append(row)
        }
        return out
    }
}
