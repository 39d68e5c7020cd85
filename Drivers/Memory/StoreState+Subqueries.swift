// StoreState+Subqueries: runs a statement's subqueries first and puts their values in its AST.
import Strata

extension StoreState {
    /// `s` with each subquery replaced by its result: `x IN (SELECT …)` by `x IN (values)`, a scalar subquery
    /// by its first row's value (or NULL), a correlated `EXISTS` by the outer rows' match against the key tuples
    /// its subquery yields. So one run each suffices: a correlated EXISTS refers to the outer row only through
    /// its column pairs.
    mutating func resolvingSubqueries(in s: Select) throws(StrataError) -> Select {
        guard s.hasSubquery else { return s }
        var out = s
        if let f = s.filter { out.filter = SQLExpression(try resolved(f.node)) }
        for (i, join) in s.joins.enumerated() { out.joins[i].on = SQLExpression(try resolved(join.on.node)) }
        for (i, o) in s.order.enumerated() {
            if let e = o.expression { out.order[i].expression = SQLExpression(try resolved(e.node)) }
        }
        return out
    }

    /// `u` with its subqueries (in the filter and the assignments) replaced by their results.
    mutating func resolvingSubqueries(in u: Update) throws(StrataError) -> Update {
        var out = u
        if let f = u.filter, f.node.hasSubquery { out.filter = SQLExpression(try resolved(f.node)) }
        for (i, a) in u.assignments.enumerated() {
            if let e = a.expression, e.node.hasSubquery {
                out.assignments[i].expression = SQLExpression(try resolved(e.node))
            }
        }
        return out
    }

    /// `d` with the subqueries of its filter replaced by their results.
    mutating func resolvingSubqueries(in d: Delete) throws(StrataError) -> Delete {
        guard let f = d.filter, f.node.hasSubquery else { return d }
        var out = d
        out.filter = SQLExpression(try resolved(f.node))
        return out
    }

    private mutating func resolved(_ node: SQLExpression.Node) throws(StrataError) -> SQLExpression.Node {
        guard node.hasSubquery else { return node }
        switch node {
        case .inSubquery(let e, let s, let negated):
            return .inList(try resolved(e), try firstColumn(of: s), negated: negated)
        case .scalarSubquery(let s):
            var one = s
            if s.selection != .count { one.limit = min(s.limit ?? 1, 1) }
            return .value(try firstColumn(of: one).first ?? .null)
        case .correlatedExists(let s, let c, let negated):
            let exists = try matching(s, c)
            return negated ? .not(exists) : exists
        case .compare(let op, let l, let r): return .compare(op, try resolved(l), try resolved(r))
        case .and(let items): return .and(try resolvedAll(items))
        case .or(let items): return .or(try resolvedAll(items))
        case .not(let e): return .not(try resolved(e))
        case .isNull(let e, let negated): return .isNull(try resolved(e), negated: negated)
        case .inList(let e, let values, let negated): return .inList(try resolved(e), values, negated: negated)
        case .like(let e, let p, let ci, let negated):
            return .like(try resolved(e), pattern: p, caseInsensitive: ci, negated: negated)
        case .between(let e, let low, let high, let negated):
            return .between(try resolved(e), low: try resolved(low), high: try resolved(high), negated: negated)
        case .arithmetic(let op, let l, let r): return .arithmetic(op, try resolved(l), try resolved(r))
        case .concat(let l, let r): return .concat(try resolved(l), try resolved(r))
        case .caseMapped(let e, let upper): return .caseMapped(try resolved(e), upper: upper)
        case .coalesce(let items): return .coalesce(try resolvedAll(items))
        case .typed(let e, let type): return .typed(try resolved(e), type)
        case .jsonPath(let e, let path): return .jsonPath(try resolved(e), path)
        case .search(let e, let query): return .search(try resolved(e), query)
        case .searchRank(let e, let query): return .searchRank(try resolved(e), query)
        case .column, .joinedColumn, .value, .constant, .unsafeRaw, .parameter: return node
        }
    }

    private mutating func resolvedAll(_ items: [SQLExpression.Node]) throws(StrataError) -> [SQLExpression.Node] {
        var out: [SQLExpression.Node] = []
        out.reserveCapacity(items.count)
        for item in items { out.append(try resolved(item)) }
        return out
    }

    /// `EXISTS (SELECT … WHERE inner = outer …)` decorrelated: the subquery's inner key tuples read once, and the
    /// outer row's columns matched against them as `outer IS NOT NULL AND … AND ((o1 = v1 AND o2 = v2) OR …)`.
    /// A tuple with a NULL matches no row, as `=` never does, so the test is TRUE or FALSE, never unknown.
    private mutating func matching(_ s: Select, _ c: Correlation) throws(StrataError) -> SQLExpression.Node {
        var keys = s
        keys.selection = .refs(c.inner)
        keys.order = []
        keys.distinct = true
        var seen: Set<[DatabaseValue]> = []
        var tuples: [SQLExpression] = []
        let outer = c.outer.map { SQLExpression.column($0) }
        for tuple in materialized(try select(keys)) where !tuple.contains(where: \.isNull) {
            guard seen.insert(tuple).inserted else { continue }
            tuples.append(.and(zip(outer, tuple).map { .compare(.equal, $0, .value($1)) }))
        }
        return SQLExpression.and(outer.map { .isNull($0, negated: true) } + [.or(tuples)]).node
    }

    /// The first column of every row `s` returns, in order.
    private mutating func firstColumn(of s: Select) throws(StrataError) -> [DatabaseValue] {
        let outcome = try select(s)
        let p = outcome.projection?.first ?? 0
        if case .values(let values) = outcome.rows { return values }
        return outcome.rows.map { $0[p] }
    }
}

extension Select {
    /// Whether any expression of the statement holds a subquery.
    var hasSubquery: Bool {
        if filter?.node.hasSubquery == true { return true }
        if joins.contains(where: { $0.on.node.hasSubquery }) { return true }
        return order.contains { $0.expression?.node.hasSubquery == true }
    }
}

extension SQLExpression.Node {
    /// Whether the expression holds a subquery anywhere.
    var hasSubquery: Bool {
        switch self {
        case .inSubquery, .scalarSubquery, .correlatedExists: return true
        case .column, .joinedColumn, .value, .constant, .unsafeRaw, .parameter: return false
        case .compare(_, let l, let r), .arithmetic(_, let l, let r), .concat(let l, let r):
            return l.hasSubquery || r.hasSubquery
        case .and(let items), .or(let items), .coalesce(let items): return items.contains { $0.hasSubquery }
        case .not(let e), .isNull(let e, _), .inList(let e, _, _), .like(let e, _, _, _), .caseMapped(let e, _),
            .typed(let e, _), .jsonPath(let e, _), .search(let e, _), .searchRank(let e, _):
            return e.hasSubquery
        case .between(let e, let low, let high, _): return e.hasSubquery || low.hasSubquery || high.hasSubquery
        }
    }
}
