// SQLRenderer+Aggregate: select items, aggregate calls, GROUP BY and HAVING.

extension SQLRenderer {
    mutating func selectItems(_ items: [SelectItem], collated: Set<ColumnRef> = []) throws(StrataError) {
        for (n, item) in items.enumerated() {
            if n > 0 { sql += ", " }
            try selectItem(item, collated: collated)
        }
    }

    private mutating func selectItem(_ item: SelectItem, collated: Set<ColumnRef> = []) throws(StrataError) {
        switch item {
        case .column(let c): sql += try selected(c.name, table: c.table, collated: collated)
        case .aggregate(let a): try aggregate(a)
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
            try havingNode(having.node)
        }
    }

    private mutating func havingNode(_ node: HavingCondition.Node) throws(StrataError) {
        switch node {
        case .compare(let op, let item, let value):
            sql += "("
            try selectItem(item)
            sql += " " + op.rawValue + " "
            bind(value)
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
