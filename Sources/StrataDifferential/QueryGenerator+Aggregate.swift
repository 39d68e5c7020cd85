// QueryGenerator+Aggregate: turns a generated SELECT into a grouped, aggregate or DISTINCT one over the same rows.
import Foundation
import Strata

extension QueryGenerator {
    /// `s` (its table, joins and filter) grouped by up to two columns, selecting them and one to three aggregates,
    /// maybe with HAVING on a count or an aggregate and ordered by the group keys; or, one time in four, the
    /// DISTINCT values of one or two columns. No limit: groups are compared as multisets.
    func aggregated(_ s: Select, scope: [ScopedColumn], _ rng: inout SplitMix64) -> Select {
        var q = Select(table: s.table, selection: .count, joins: s.joins, filter: s.filter)
        let groupable = scope.filter { $0.column.type != .json }
        if rng.chance(0.25) {
            let picked = (0..<(1 + rng.below(2))).map { _ in rng.pick(groupable).ref }
            q.selection = .items(picked.map(SelectItem.column))
            q.distinct = true
            return q
        }
        for _ in 0..<rng.below(3) {
            let c = rng.pick(groupable).ref
            if !q.groupBy.contains(c) { q.groupBy.append(c) }
        }
        var items = q.groupBy.map(SelectItem.column)
        for _ in 0..<(1 + rng.below(3)) { items.append(.aggregate(aggregate(scope, &rng))) }
        q.selection = .items(items)
        if !q.groupBy.isEmpty, rng.chance(0.35) {
            let a = rng.chance(0.5) ? Aggregate.countAll : aggregate(scope, &rng)
            let bound: DatabaseValue =
                switch a.function {
                case .count: .integer(Int64(rng.below(4)))
                case .avg: .double(Double(rng.below(40)) / 2)
                default: literalFor(a, scope: scope, &rng)
                }
            q.having = HavingCondition(.compare(rng.pick(Self.operators), .aggregate(a), bound))
        }
        for c in q.groupBy {
            q.order.append(Ordering(c.name, rng.chance(0.5) ? .ascending : .descending, table: c.table))
        }
        return q
    }

    /// The parent LEFT JOINed to its children on the foreign key, filtered mostly on the parent's columns, as an
    /// association aggregate (see ``associationAggregated(_:scope:_:)``); nil when the world has no such pair.
    func associationSelect(_ rng: inout SplitMix64) -> Select? {
        guard let parent = world.table(FuzzWorld.parent), let child = world.table(FuzzWorld.child) else { return nil }
        let alias = FuzzWorld.joinAlias
        let link = SQLExpression.compare(.equal, .column("parent_id", table: alias), .column("id"))
        let own = parent.schema.columns.map { ScopedColumn(alias: nil, table: parent.name, column: $0) }
        let scope = own + child.schema.columns.map { ScopedColumn(alias: alias, table: child.name, column: $0) }
        var s = Select(
            table: parent.name, selection: .count, joins: [Join(.left, table: child.name, alias: alias, on: link)])
        if rng.chance(0.7) { s.filter = predicate(rng.chance(0.7) ? own : scope, depth: 2, &rng) }
        return associationAggregated(s, scope: scope, &rng)
    }

    /// What `Parent.query(on:).having(…).order(…).all(with: .count(Parent.children), …)` sends (see
    /// `AssociationAggregate`): `s`'s LEFT JOIN of the parent's children on the foreign key, grouped by every
    /// column of the parent, selecting them and one to three aggregates of the children (a count of the child's
    /// id, 0 for a parent without children, a sum, average, minimum or maximum, NULL without children), maybe
    /// with HAVING on one of them, ordered by one of them and then the parent's id, maybe limited (counts, minimums
    /// and maximums only: they cannot fail). Nil unless `s`
    /// is the parent LEFT JOINed to the child on the foreign key alone. The parent's JSON columns are left out
    /// of the groups, as in ``aggregated(_:scope:_:)``.
    func associationAggregated(_ s: Select, scope: [ScopedColumn], _ rng: inout SplitMix64) -> Select? {
        guard s.table == FuzzWorld.parent, s.joins.count == 1, let join = s.joins.first, join.kind == .left,
            join.table == FuzzWorld.child,
            join.on == .compare(.equal, .column("parent_id", table: FuzzWorld.joinAlias), .column("id"))
        else { return nil }
        let parent = scope.filter { $0.alias == nil && $0.column.type != .json }
        let children = scope.filter { $0.alias == FuzzWorld.joinAlias }
        guard !children.isEmpty else { return nil }
        var q = Select(table: s.table, selection: .count, joins: s.joins, filter: s.filter)
        q.groupBy = parent.map(\.ref)
        var aggregates: [Aggregate] = []
        for _ in 0..<(1 + rng.below(3)) {
            var a = aggregate(children, &rng)
            if a.function == .count && a.column == nil || rng.chance(0.3) {
                a = Aggregate(.count, ColumnRef("id", table: FuzzWorld.joinAlias), type: .integer)
            }
            aggregates.append(a)
        }
        q.selection = .items(q.groupBy.map(SelectItem.column) + aggregates.map(SelectItem.aggregate))
        if rng.chance(0.4) {
            let a = rng.pick(aggregates)
            let bound: DatabaseValue =
                switch a.function {
                case .count: .integer(Int64(rng.below(4)))
                case .avg: .double(Double(rng.below(40)) / 2)
                default: literalFor(a, scope: children, &rng)
                }
            q.having = HavingCondition(.compare(rng.pick(Self.operators), .aggregate(a), bound))
        }
        if rng.chance(0.7) {
            q.order.append(Ordering(rng.pick(aggregates), rng.chance(0.5) ? .ascending : .descending))
        }
        q.order.append(Ordering("id", rng.chance(0.8) ? .ascending : .descending))
        // A sum or an average can fail (past Int64, past the largest double): such a read stays whole, or a limit
        // would let a backend stop before the failing group where another computes every group first (found by
        // seed 99817: SQLite answered LIMIT 0 with no rows, memory and PostgreSQL failed).
        if !aggregates.contains(where: { $0.function == .sum || $0.function == .avg }), rng.chance(0.4) {
            q.limit = rng.below(6)
        }
        return q
    }

    /// An aggregate every backend answers exactly alike: counts of anything; sums and averages of integer columns
    /// (exact in 128 bits: a sum past Int64 is an error where it is used, an average past 2^53 is the exact sum
    /// over the count) and of double columns whose sums do not depend on row order (integral values within
    /// ±2^40, ±infinity, whose NaN is NULL); min and max of ordered types.
    private func aggregate(_ scope: [ScopedColumn], _ rng: inout SplitMix64) -> Aggregate {
        let c = rng.pick(scope)
        let type = c.column.type
        switch rng.below(5) {
        case 0: return .countAll
        case 1: return Aggregate(.count, c.ref, distinct: rng.chance(0.5) && type != .json, type: type)
        case 2:
            let summable = scope.filter { [.integer, .decimal].contains($0.column.type) || orderFreeDoubles($0) }
            guard !summable.isEmpty else { return .countAll }
            let s = rng.pick(summable)
            return Aggregate(rng.chance(0.6) ? .sum : .avg, s.ref, type: s.column.type)
        default:
            let ordered = scope.filter { ![.json, .bool, .blob, .uuid].contains($0.column.type) }
            guard !ordered.isEmpty else { return .countAll }
            let m = rng.pick(ordered)
            return Aggregate(rng.chance(0.5) ? .min : .max, m.ref, type: m.column.type)
        }
    }

    /// Whether every stored value of a double column is integral within ±2^40 or infinite, so that its sums are
    /// exact in any order (engines visit rows in different orders after writes and through joins).
    private func orderFreeDoubles(_ c: ScopedColumn) -> Bool {
        guard c.column.type == .double, let t = world.table(c.table),
            let i = t.schema.insertColumnNames.firstIndex(of: c.column.name)
        else { return false }
        return t.rows.allSatisfy { row in
            if case .double(let v) = row[i] { return v.isInfinite || (v == v.rounded() && v.magnitude < 0x1p40) }
            return row[i].isNull
        }
    }

    /// A HAVING bound for a sum, min or max: a stored value of its column when there is one.
    private func literalFor(_ a: Aggregate, scope: [ScopedColumn], _ rng: inout SplitMix64) -> DatabaseValue {
        guard let ref = a.column, let c = scope.first(where: { $0.ref == ref }) else { return .integer(1) }
        if a.function == .sum { return .integer(Int64(rng.below(60))) }
        return values.value(c.column.type, &rng)
    }
}

extension FuzzWorld {
    /// The type each item of a SELECT's list reads as: a count as an integer, an average as a double, a sum as
    /// its column's type, min and max as their column's.
    func itemTypes(_ s: Select, _ items: [SelectItem]) -> [ColumnType] {
        items.map { item in
            switch item {
            case .column(let c): return resultTypes(Select(table: s.table, selection: .refs([c]), joins: s.joins))[0]
            case .aggregate(let a):
                switch a.function {
                case .count: return .integer
                case .avg: return .double
                case .sum, .min, .max: return a.type ?? .integer
                }
            case .window(let w):
                switch w.function {
                case .count: return .integer
                case .avg: return .double
                case .sum: return w.argumentType ?? .integer
                default: break
                }
                guard let c = w.argument else { return .integer }
                return resultTypes(Select(table: s.table, selection: .refs([c]), joins: s.joins))[0]
            case .expression(let e):
                guard case .jsonPath(_, let path) = e.node else { return .text }
                return path.type.columnType
            }
        }
    }
}

/// Aggregate results made comparable across backends: each value normalized to the type every driver agrees on
/// (PostgreSQL's numeric sum to an integer). An average is compared bit for bit: every driver divides the exact
/// sum, read as the nearest double, by the count (README: numeric rules).
enum AggregateResults {
    static func normalize(_ v: DatabaseValue, item: SelectItem?, table: String) throws -> DatabaseValue {
        guard let a = item?.aggregateRule else { return v }
        return try a.normalize(v, model: table)
    }

    /// The items of a SELECT, when it selects items.
    static func items(_ statement: Statement) -> [SelectItem]? {
        guard case .select(let s) = statement, case .items(let items) = s.selection else { return nil }
        return items
    }
}
