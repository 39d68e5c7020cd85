// Shrinker+Expressions: simpler variants of computed values and subqueries, for shrinking a divergence.
import Strata

extension DifferentialEngine {
    /// The operands of a computed value, and the same value over simpler operands; a subquery's filter
    /// simplified or dropped.
    static func simplerComputed(_ n: SQLExpression.Node) -> [SQLExpression.Node] {
        switch n {
        case .arithmetic(let op, let l, let r):
            return [l, r] + simpler(l).map { .arithmetic(op, $0, r) } + simpler(r).map { .arithmetic(op, l, $0) }
        case .concat(let l, let r):
            return [l, r] + simpler(l).map { .concat($0, r) } + simpler(r).map { .concat(l, $0) }
        case .caseMapped(let e, let upper): return [e] + simpler(e).map { .caseMapped($0, upper: upper) }
        case .typed(let e, let type): return simpler(e).map { .typed($0, type) }
        case .coalesce(let items):
            var out = items
            if items.count > 1 { out.append(.coalesce(Array(items.dropLast()))) }
            return out
        case .inSubquery(let e, let s, let negated):
            var out: [SQLExpression.Node] = negated ? [.inSubquery(e, s, negated: false)] : []
            out += simplerFilters(s).map { .inSubquery(e, $0, negated: negated) }
            return out
        case .scalarSubquery(let s):
            return [.value(.null)] + simplerFilters(s).map { .scalarSubquery($0) }
        case .correlatedExists(let s, let c, let negated):
            var out: [SQLExpression.Node] = [.constant(negated)]
            out += simplerFilters(s).map { .correlatedExists($0, c, negated: negated) }
            return out
        default:
            return []
        }
    }

    /// The subquery without its filter, and with each simpler filter.
    private static func simplerFilters(_ s: Select) -> [Select] {
        guard let f = s.filter else { return [] }
        var out: [Select] = []
        var none = s
        none.filter = nil
        out.append(none)
        for n in simpler(f.node) {
            var copy = s
            copy.filter = SQLExpression(n)
            out.append(copy)
        }
        return out
    }
}
