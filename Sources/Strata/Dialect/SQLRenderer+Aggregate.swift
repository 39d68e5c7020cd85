// SQLRenderer+Aggregate: select items, aggregate calls, GROUP BY and HAVING.

import Foundation

extension SQLRenderer {
    mutating func selectItems(_ items: [SelectItem], of s: Select, collated: Set<ColumnRef> = []) throws(StrataError) {
        for (n, item) in items.enumerated() {
            if n > 0 { sql += ", " }
            try selectItem(item, of: s, collated: collated)
        }
    }

    /// One item; a window function needs the SELECT it belongs to (`of`), whose joins decide its NULLS clauses.
    private mutating func selectItem(_ item: SelectItem, of s: Select? = nil, collated: Set<ColumnRef> = [])
        throws(StrataError)
    {
        switch item {
        case .column(let c): sql += try selected(c.name, table: c.table, collated: collated)
        case .aggregate(let a): try aggregate(a)
        case .window(let w):
            guard let s else { throw .invalidQuery("\(w.summary) outside a SELECT's list") }
            try window(w, in: s)
        case .expression(let e): try expression(e.node)
        }
    }

    /// `COUNT(*)`, or the dialect's function over a column: `SUM("amount")`, `COUNT(DISTINCT "j1"."title")`.
    mutating func aggregate(_ a: Aggregate) throws(StrataError) {
        guard let c = a.column else {
            guard a.function == .count, !a.distinct else { throw .invalidQuery("\(a.summary) needs a column") }
            sql += "COUNT(*)"
            return
        }
        let argument = (a.distinct ? "DISTINCT " : "") + (try column(c.name, table: c.table))
        sql += dialect.aggregateCall(a.function, over: a.type, argument: argument)
    }

    /// ` GROUP BY … HAVING …`, between WHERE and ORDER BY.
    mutating func groupTail(_ s: Select) throws(StrataError) {
        if !s.groupBy.isEmpty {
            sql += " GROUP BY "
            for (n, c) in s.groupBy.enumerated() {
                if n > 0 { sql += ", " }
                sql += try column(c.name, table: c.table)
            }
        }
        if let having = s.having {
            sql += " HAVING "
            // Each decimal sum the condition reads, checked for every group before it: past 38 significant digits
            // it is an arithmetic error, as selected (``Dialect/decimalSumGuard(_:)``). A CASE, not an AND, which
            // PostgreSQL may reorder.
            var guards: [String] = []
            for a in having.decimalSums {
                let outer = sql
                sql = ""
                try aggregate(a)
                let call = sql
                sql = outer
                if let g = dialect.decimalSumGuard(call) { guards.append(g) }
            }
            if !guards.isEmpty { sql += "CASE WHEN " + guards.joined(separator: " AND ") + " THEN " }
            defer { if !guards.isEmpty { sql += " END" } }
            let sums = dialect.checksSumsInHaving ? Self.doubleSums(of: s) : []
            if sums.isEmpty {
                try havingNode(having.node)
                return
            }
            // Each selected double sum read for every group, before the condition: `(s IS NULL OR s IS NOT NULL)`
            // is true, but an overflowed sum fails where the group would be dropped (``Dialect/checksSumsInHaving``).
            sql += "("
            for sum in sums {
                sql += "("
                try aggregate(sum)
                sql += " IS NULL OR "
                try aggregate(sum)
                sql += " IS NOT NULL) AND "
            }
            try havingNode(having.node)
            sql += ")"
        }
    }

    /// The double sums a grouped SELECT's items read (an average reads its sum), once each, in order.
    static func doubleSums(of s: Select) -> [Aggregate] {
        guard case .items(let items) = s.selection else { return [] }
        var out: [Aggregate] = []
        for case .aggregate(let a) in items where a.type == .double && (a.function == .sum || a.function == .avg) {
            var sum = a
            sum.function = .sum
            if !out.contains(sum) { out.append(sum) }
        }
        return out
    }

    /// An integer bound of a decimal sum, min or max, as the same decimal: SQLite, which stores decimals as text,
    /// would otherwise order every integer before every text (`1.5 >= 12` true); the others compare numbers alike.
    static func havingBound(_ value: DatabaseValue, against item: SelectItem) -> DatabaseValue {
        guard case .integer(let i) = value, case .aggregate(let a) = item, a.type == .decimal,
            a.function == .sum || a.function == .min || a.function == .max
        else { return value }
        return .decimal(Decimal(i))
    }

    private mutating func havingNode(_ node: HavingCondition.Node) throws(StrataError) {
        switch node {
        case .compare(let op, let item, let value):
            sql += "("
            try selectItem(item)
            sql += " " + op.rawValue + " "
            bind(Self.havingBound(value, against: item))
            sql += ")"
        case .isNull(let item, let negated):
            sql += "("
            try selectItem(item)
            sql += negated ? " IS NOT NULL)" : " IS NULL)"
        case .and(let items), .or(let items):
            let isAnd: Bool = if case .and = node { true } else { false }
            guard !items.isEmpty else {
                sql += dialect.literal(isAnd)
                return
            }
            sql += "("
            for (n, item) in items.enumerated() {
                if n > 0 { sql += isAnd ? " AND " : " OR " }
                try havingNode(item)
            }
            sql += ")"
        case .not(let inner):
            sql += "(NOT "
            try havingNode(inner)
            sql += ")"
        }
    }
}
