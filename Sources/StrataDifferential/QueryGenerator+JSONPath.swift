// QueryGenerator+JSONPath: now and then a generated read filters, orders or selects by a path in a JSON column.
import Strata

extension QueryGenerator {
    /// The share of reads of one table (no joins, grouping, set operation or WITH query) that also read a JSON
    /// path (``JSONPath``).
    static let jsonPathShare = 0.2

    /// Paths into the edge documents of ``EdgeValues/jsons``: keys that are there and keys that are not, indexes
    /// inside and past the end, steps into scalars.
    static let jsonPaths: [[JSONPath.Step]] = [
        ["a"], ["b"], ["b", 0], ["b", 1], ["b", 2], ["k", "n"], ["k"], [0], [1], [2], ["a", "x"], ["n"], ["d"],
        ["t"], ["s"], ["0"],
    ]

    /// Makes ``jsonPathShare`` of the reads of one table read a path inside one of its JSON columns, as one of
    /// the four types: a filter term (a comparison with a value of the type, or IS [NOT] NULL) ANDed to the
    /// read's filter, a first ORDER BY term (ties still broken by the key where the read pages), or an item
    /// beside the selected columns. Drawn from a stream of its own, so the rest of the run's queries stay what
    /// their seed made them. A risky read (see ``risky(_:_:)``) gets no filter term: a term ANDed beside the failing
    /// one lets a backend skip the failing row where another does not (PostgreSQL orders a filter's terms by cost;
    /// found by seed 8101).
    func jsonPath(_ s: inout Select, _ rng: SplitMix64, risky: Bool = false) {
        var seed = rng
        var side = SplitMix64(seed: seed.next() ^ 0x4A53_4F4E_5041_5448)
        guard side.chance(Self.jsonPathShare), s.joins.isEmpty, s.groupBy.isEmpty, s.having == nil,
            s.compound == nil, s.commonTable == nil, !s.distinct, s.tag != Self.keysetTag,
            let table = world.table(s.table)
        else { return }
        let documents = table.schema.columns.filter { $0.type == .json }
        guard !documents.isEmpty else { return }
        let type = side.pick([JSONPath.ValueType.text, .integer, .double, .bool])
        let path = JSONPath(side.pick(Self.jsonPaths), as: type)
        let e = SQLExpression.Node.jsonPath(.column(side.pick(documents).name), path)
        switch side.below(3) {
        case 0 where risky: return
        case 0:
            let term: SQLExpression.Node
            if side.chance(0.2) {
                term = .isNull(e, negated: side.chance(0.5))
            } else {
                let op = side.pick([
                    ComparisonOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual,
                ])
                term = .compare(op, e, .value(Self.jsonPathValue(type, &side)))
            }
            s.filter = s.filter.map { .and([$0, SQLExpression(term)]) } ?? SQLExpression(term)
        case 1:
            s.order.insert(Ordering(expression: SQLExpression(e), side.chance(0.5) ? .ascending : .descending), at: 0)
        default:
            guard case .columns(let names) = s.selection else { return }
            s.selection = .items(names.map { .column(ColumnRef($0)) } + [.expression(SQLExpression(e))])
        }
    }

    /// A value a path of `type` is compared with: values the edge documents hold, and others.
    static func jsonPathValue(_ type: JSONPath.ValueType, _ rng: inout SplitMix64) -> DatabaseValue {
        switch type {
        case .text: return .text(rng.pick(["", "x", "é", "𝄞", "1", "a"]))
        case .integer: return .integer(rng.pick([0, 1, -1, 2, 9_007_199_254_740_993, Int64.max]))
        case .double: return .double(rng.pick([0, 1, -1.5, 2.5, 9_007_199_254_740_992, 0.1]))
        case .bool: return .bool(rng.chance(0.5))
        }
    }
}

extension Select {
    /// Whether the SELECT reads a JSON path in its filter, order or items.
    var readsJSONPath: Bool {
        func has(_ n: SQLExpression.Node) -> Bool {
            switch n {
            case .jsonPath: return true
            case .and(let items), .or(let items): return items.contains(where: has)
            case .compare(_, let l, let r): return has(l) || has(r)
            case .isNull(let e, _), .not(let e): return has(e)
            default: return false
            }
        }
        if let f = filter, has(f.node) { return true }
        if order.contains(where: { $0.expression.map { has($0.node) } ?? false }) { return true }
        if case .items(let items) = selection {
            return items.contains { if case .expression(let e) = $0 { has(e.node) } else { false } }
        }
        return false
    }
}
