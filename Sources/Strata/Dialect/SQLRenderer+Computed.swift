// SQLRenderer+Computed: renders arithmetic, concatenation, lower/upper, COALESCE and subqueries per dialect.

extension SQLRenderer {
    /// Renders the computed-value and subquery nodes of ``SQLExpression`` (the core has refused a subquery that
    /// does not select exactly one column and an empty COALESCE: see `StatementCheck`).
    mutating func computed(_ node: SQLExpression.Node) throws(StrataError) {
        // Below anything but arithmetic (COALESCE, a subquery), an arithmetic expression is outermost again.
        let outer = insideArithmetic
        // A type mark (`.typed(a / b, as: .integer)`) leaves an arithmetic expression where it was.
        if case .arithmetic = node {} else if case .typed = node {} else { insideArithmetic = false }
        defer { insideArithmetic = outer }
        switch node {
        case .arithmetic(let op, let l, let r):
            try nanChecked(op) { (r2: inout SQLRenderer) throws(StrataError) in try r2.arithmetic(op, l, r) }
        case .concat(let l, let r):
            sql += dialect.concatSyntax == .pipes ? "(" : "CONCAT("
            try expression(l)
            sql += dialect.concatSyntax == .pipes ? " || " : ", "
            try expression(r)
            sql += ")"
        case .caseMapped(let e, let upper):
            try caseMapped(upper: upper) { (r: inout SQLRenderer) throws(StrataError) in try r.expression(e) }
        case .coalesce(let items):
            sql += "COALESCE("
            for (n, item) in items.enumerated() {
                if n > 0 { sql += ", " }
                try expression(item)
            }
            sql += ")"
            if let c = dialect.numericSyntax.decimalCollation, Self.isDecimal(node) { sql += " COLLATE " + (try q(c)) }
        case .typed(.arithmetic(.divide, let l, let r), .integer) where dialect.arithmeticSyntax == .guardedDivision:
            try nanChecked(.divide) { (r2: inout SQLRenderer) throws(StrataError) in
                try r2.arithmetic(.divide, l, r, integer: true)
            }
        case .typed(let e, let type):
            try expression(e)
            // A decimal the backend cannot see as one (COALESCE over decimal columns) gets its collation here;
            // a column keeps its own, and a visible decimal expression has added it already.
            if type == .decimal, let c = dialect.numericSyntax.decimalCollation, !Self.isColumn(e), !Self.isDecimal(e) {
                sql += " COLLATE " + (try q(c))
            }
        case .inSubquery(let e, let s, let negated):
            sql += "("
            try expression(e)
            sql += negated ? " NOT IN (" : " IN ("
            let derived = dialect.limitedInSubquery == .derivedTable && (s.limit != nil || s.offset != nil)
            if derived { sql += "SELECT * FROM (" }
            try select(s)
            if derived { sql += ") AS " + (try q("strata_in")) }
            sql += "))"
        case .scalarSubquery(let s):
            sql += "("
            try select(Self.firstRow(of: s))
            sql += ")"
        case .correlatedExists(let s, let c, let negated):
            try c.check(in: s)
            sql += negated ? "(NOT EXISTS (" : "(EXISTS ("
            try select(Self.correlated(s, c))
            sql += "))"
        default:
            throw .invalidQuery("not a computed expression")
        }
    }

    /// `s` with the correlation's pairs put before its own filter: the SELECT inside `EXISTS (…)`.
    static func correlated(_ s: Select, _ c: Correlation) -> Select {
        var out = s
        out.filter = .and(c.terms(in: s) + (s.filter.map { [$0] } ?? []))
        return out
    }

    /// `(a + b)`, the dialect's checked function `strata_add(a, b)`, or, for ``ArithmeticSyntax/guardedDivision``,
    /// a guarded divisor and `DIV` for an `integer` division.
    private mutating func arithmetic(_ op: ArithmeticOperator, _ l: Node, _ r: Node, integer: Bool = false)
        throws(StrataError)
    {
        switch dialect.arithmeticSyntax {
        case .guardedDivision where (op == .multiply || (op == .divide && !integer)) && Self.mayUnderflow(op, l, r):
            // A product or quotient that underflows to 0 (both operands, or the dividend, not 0) is an error, as on
            // the other drivers: `EXP(7779 * …)` overflows, error 1690, mapped to "double out of range (underflow)".
            func value(_ r2: inout SQLRenderer) throws(StrataError) {
                if op == .multiply {
                    r2.sql += "("
                    try r2.expression(l)
                    r2.sql += " * "
                    try r2.expression(r)
                    r2.sql += ")"
                } else {
                    try r2.guardedQuotient(l, r, " / ")
                }
            }
            sql += "CASE WHEN EXP(7779 * ("
            try value(&self)
            sql += " = 0 AND "
            try expression(l)
            sql += " <> 0"
            if op == .multiply {
                sql += " AND "
                try expression(r)
                sql += " <> 0"
            }
            sql += ")) THEN "
            try value(&self)
            sql += " END"
        case .guardedDivision where op == .divide || op == .remainder:
            try guardedQuotient(l, r, op == .remainder ? " % " : integer ? " DIV " : " / ")
        case .operators, .guardedDivision:
            sql += "("
            try expression(l)
            sql += " " + op.rawValue + " "
            try expression(r)
            sql += ")"
        case .checkedFunctions:
            sql += op.checkedFunctionName + "("
            try expression(l)
            sql += ", "
            try expression(r)
            sql += ")"
        }
    }

    /// `(l / CASE WHEN EXP(7777 * (r = 0 AND l IS NOT NULL)) THEN r END)`, with `operator` (` / `, ` DIV ` or
    /// ` % `) between them: the divisor guarded so that zero raises (``ArithmeticSyntax/guardedDivision``). The
    /// guard reads the dividend too: a NULL dividend gives NULL, as elsewhere, and a guard over a column is not a
    /// constant MariaDB folds (and fails on) before it reads a row.
    private mutating func guardedQuotient(_ l: Node, _ r: Node, _ operator: String) throws(StrataError) {
        sql += "("
        try expression(l)
        sql += `operator`
        sql += "CASE WHEN EXP(7777 * ("
        try expression(r)
        sql += " = 0 AND "
        try expression(l)
        sql += " IS NOT NULL)) THEN "
        try expression(r)
        sql += " END)"
    }

    /// Whether a guarded dialect checks `l op r` for underflow: a product or a non-integer quotient that is not a
    /// decimal's (a decimal rounds at its scale; only doubles underflow). Mirrored by ``binds(of:dialect:)``.
    static func mayUnderflow(_ op: ArithmeticOperator, _ l: Node, _ r: Node) -> Bool {
        (op == .multiply || op == .divide) && !isDecimal(.arithmetic(op, l, r))
    }

    /// A scalar subquery reads its first row only: `LIMIT 1` (or its own smaller limit), so that every backend
    /// agrees (PostgreSQL would fail on a second row, SQLite would take the first).
    static func firstRow(of s: Select) -> Select {
        var one = s
        if s.selection != .count { one.limit = min(s.limit ?? 1, 1) }  // a count is one row already
        return one
    }
}

extension Dialect {
    /// Default: ``ArithmeticSyntax/operators`` (the backend raises division by zero and overflow itself).
    public var arithmeticSyntax: ArithmeticSyntax { .operators }
    /// Default: ``CaseMappingSyntax/plain`` (the backend's `lower`/`upper` fold ASCII only).
    public var caseMappingSyntax: CaseMappingSyntax { .plain }
}

extension SQLRenderer {
    /// `lower(…)` or `upper(…)` of what `body` renders, folding ASCII letters only on every dialect (see
    /// ``CaseMappingSyntax``).
    mutating func caseMapped(
        upper: Bool, _ body: (inout SQLRenderer) throws(StrataError) -> Void
    ) throws(StrataError) {
        switch dialect.caseMappingSyntax {
        case .plain:
            sql += upper ? "upper(" : "lower("
            try body(&self)
            sql += ")"
        case .collateC:
            sql += upper ? "upper((" : "lower(("
            try body(&self)
            sql += ") COLLATE " + (try q("C")) + ")"
        case .asciiReplace:
            let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            sql += String(repeating: "REPLACE(", count: letters.count)
            try body(&self)
            for letter in letters {
                let from = upper ? letter.lowercased() : String(letter)
                let to = upper ? String(letter) : letter.lowercased()
                sql += ", '" + from + "', '" + to + "')"
            }
        }
    }
}
