// SQLRenderer+Numbers: the SQL a dialect's NumericSyntax asks for: decimal collations, NaN as NULL, mixed compares.

extension SQLRenderer {
    typealias Node = SQLExpression.Node

    /// Whether the renderer can see that a node's value is a decimal: a decimal value, a node the typed API
    /// marked as one, or a COALESCE, an arithmetic or a scalar subquery over one.
    static func isDecimal(_ node: Node) -> Bool {
        switch node {
        case .value(.decimal), .typed(_, .decimal): return true
        case .typed(let e, _): return isDecimal(e)
        case .coalesce(let items): return items.contains(where: isDecimal)
        case .arithmetic(_, let l, let r): return isDecimal(l) || isDecimal(r)
        case .scalarSubquery(let s):
            if case .items(let items) = s.selection, items.count == 1, case .aggregate(let a) = items[0] {
                return a.type == .decimal && a.function != .count && a.function != .avg
            }
            return false
        default: return false
        }
    }

    /// Whether a node is a column of a table (whose own collation and type the backend knows).
    static func isColumn(_ node: Node) -> Bool {
        switch node {
        case .column, .joinedColumn: return true
        default: return false
        }
    }

    /// Whether a node is a number whose type (integer or double) only the row decides: arithmetic, or a
    /// COALESCE over it.
    static func isComputedNumber(_ node: Node) -> Bool {
        switch node {
        case .arithmetic: return true
        case .coalesce(let items): return items.contains(where: isComputedNumber)
        case .typed(let e, _): return isComputedNumber(e)
        default: return false
        }
    }

    /// Whether a node is a double value of magnitude 2^53 or more, where comparing an integer with it exactly
    /// and as two doubles can differ.
    static func isWideDouble(_ node: Node) -> Bool {
        if case .value(let v) = node { return isWideDouble(v) }
        return false
    }

    /// ` COLLATE "strata_decimal"` after `left` when the dialect compares decimal text through a collation and
    /// the comparison is between decimals the backend cannot see as such (an expression, not a column).
    mutating func decimalCollation(after left: Node, against others: [Node], values: [DatabaseValue] = [])
        throws(StrataError)
    {
        guard let c = dialect.numericSyntax.decimalCollation, !Self.isColumn(left), !Self.isDecimal(left) else {
            return
        }
        let decimalValue = values.contains { if case .decimal = $0 { true } else { false } }
        guard decimalValue || others.contains(where: Self.isDecimal) else { return }
        sql += " COLLATE " + (try q(c))
    }

    /// An operand of a comparison; a column compared with a double past 2^53 is read as a double where the
    /// dialect compares an integer with a double exactly (``NumericSyntax/mixedComparison``).
    mutating func numericOperand(_ node: Node, against others: [Node]) throws(StrataError) {
        guard dialect.numericSyntax.mixedComparison != nil, Self.isColumn(node),
            others.contains(where: Self.isWideDouble)
        else { return try expression(node) }
        sql += "("
        try expression(node)
        sql += " + 0.0)"
    }

    /// An operand compared with a list of values (`IN`), read as `numericOperand(_:against:)` reads it
    /// against the values as nodes, without making a node of each (10,000 allocations for a list of 10,000 ids).
    mutating func numericOperand(_ node: Node, against values: [DatabaseValue]) throws(StrataError) {
        guard dialect.numericSyntax.mixedComparison != nil, Self.isColumn(node),
            values.contains(where: Self.isWideDouble)
        else { return try expression(node) }
        sql += "("
        try expression(node)
        sql += " + 0.0)"
    }

    /// Whether a value is a finite double of magnitude 2^53 or more (see `isWideDouble(_:)` of a node).
    static func isWideDouble(_ value: DatabaseValue) -> Bool {
        if case .double(let d) = value { return d.isFinite && d.magnitude >= 9_007_199_254_740_992 }
        return false
    }

    /// `(f(l, r) op 0)` where an arithmetic result meets another value and the dialect names a mixed
    /// comparison function; false (nothing rendered) otherwise.
    mutating func mixedComparison(_ op: ComparisonOperator, _ l: Node, _ r: Node) throws(StrataError) -> Bool {
        guard let f = dialect.numericSyntax.mixedComparison, Self.isComputedNumber(l) || Self.isComputedNumber(r)
        else { return false }
        try mixedCall(f, l, r)
        sql += " " + op.rawValue + " 0)"
        return true
    }

    /// `(f(l, r)`, the opening of a mixed comparison.
    private mutating func mixedCall(_ f: String, _ l: Node, _ r: Node) throws(StrataError) {
        sql += "(" + f + "("
        try expression(l)
        sql += ", "
        try expression(r)
        sql += ")"
    }

    /// `e BETWEEN low AND high` as two mixed comparisons, when one of them is an arithmetic result.
    mutating func mixedBetween(_ e: Node, _ low: Node, _ high: Node, negated: Bool) throws(StrataError) -> Bool {
        guard let f = dialect.numericSyntax.mixedComparison, [e, low, high].contains(where: Self.isComputedNumber)
        else { return false }
        sql += negated ? "(NOT (" : "(("
        try mixedCall(f, e, low)
        sql += " >= 0) AND "
        try mixedCall(f, e, high)
        sql += " <= 0)))"
        return true
    }

    /// `e IN (v, …)` as mixed equalities, when `e` is an arithmetic result.
    mutating func mixedInList(_ e: Node, _ values: [DatabaseValue], negated: Bool) throws(StrataError) -> Bool {
        guard let f = dialect.numericSyntax.mixedComparison, Self.isComputedNumber(e) else { return false }
        sql += negated ? "(NOT (" : "(("
        for (n, v) in values.enumerated() {
            if n > 0 { sql += " OR " }
            try mixedCall(f, e, .value(v))
            sql += " = 0)"
        }
        sql += "))"
        return true
    }

    /// An arithmetic expression; outside another one, wrapped so that NaN reads as NULL where the dialect asks
    /// (``NumericSyntax/nullsNaN``). NaN stays NaN through `+ - * /`, so the outermost wrap is enough.
    mutating func nanChecked(_ op: ArithmeticOperator, _ render: (inout SQLRenderer) throws(StrataError) -> Void)
        throws(StrataError)
    {
        // `%` takes integers only, which never make NaN.
        guard dialect.numericSyntax.nullsNaN, !insideArithmetic, op != .remainder else { return try render(&self) }
        insideArithmetic = true
        defer { insideArithmetic = false }
        sql += "(CASE WHEN "
        try render(&self)
        sql += " = CAST('NaN' AS DOUBLE PRECISION) THEN NULL ELSE "
        try render(&self)
        sql += " END)"
    }
}
