// StoreState+RenderChecks: the checks the SQL renderer makes before a database sees a statement, in its order.
import Strata

extension StoreState {
    /// Refuses what the SQL renderer refuses (a LIKE pattern ending in a lone escape, a subquery that does not
    /// select one column, an empty COALESCE) in the renderer's order, before the memory driver looks up any table
    /// or column: a SQL driver reports those errors first too, since the database sees nothing until rendering
    /// succeeds. A statement with two faults then fails with the same error on every driver.
    static func checkAsRendered(_ s: Select) throws(StrataError) {
        for join in s.joins { try checkAsRendered(join.on.node) }
        if let f = s.filter { try checkAsRendered(f.node) }
        for o in s.order { if let e = o.expression { try checkAsRendered(e.node) } }
    }

    /// The same for an UPDATE: its computed assignments, then its filter.
    static func checkAsRendered(_ u: Update) throws(StrataError) {
        for a in u.assignments { if let e = a.expression { try checkAsRendered(e.node) } }
        if let f = u.filter { try checkAsRendered(f.node) }
    }

    /// The same for a DELETE's filter.
    static func checkAsRendered(_ d: Delete) throws(StrataError) {
        if let f = d.filter { try checkAsRendered(f.node) }
    }

    private static func checkAsRendered(_ n: SQLExpression.Node) throws(StrataError) {
        switch n {
        case .column, .joinedColumn, .value, .constant, .unsafeRaw: return
        case .like(let e, let pattern, _, _):
            try LikePattern.validate(pattern)
            try checkAsRendered(e)
        case .inSubquery(let e, let s, let negated):
            try checkSingleColumn(s, use: negated ? "NOT IN" : "IN")
            try checkAsRendered(e)
            try checkAsRendered(s)
        case .scalarSubquery(let s):
            try checkSingleColumn(s, use: "a scalar subquery")
            try checkAsRendered(s)
        case .coalesce(let items):
            guard !items.isEmpty else { throw .invalidQuery("COALESCE without operands") }
            for item in items { try checkAsRendered(item) }
        case .compare(_, let l, let r), .arithmetic(_, let l, let r), .concat(let l, let r):
            try checkAsRendered(l)
            try checkAsRendered(r)
        case .and(let items), .or(let items): for item in items { try checkAsRendered(item) }
        case .not(let e), .isNull(let e, _), .caseMapped(let e, _), .typed(let e, _): try checkAsRendered(e)
        case .inList(let e, let values, _): if !values.isEmpty { try checkAsRendered(e) }
        case .between(let e, let low, let high, _):
            try checkAsRendered(e)
            try checkAsRendered(low)
            try checkAsRendered(high)
        }
    }
}
