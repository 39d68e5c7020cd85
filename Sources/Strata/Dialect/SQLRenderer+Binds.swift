// SQLRenderer+Binds: the values a statement binds, in the order the renderer places them, without SQL.

extension SQLRenderer {
    /// The values `render(statement)` would bind, in the same order, without building SQL text.
    ///
    /// Used with a cached rendering of the same statement shape (see ``StatementTemplate``). Pass the
    /// dialect the statement is rendered with when it may hold a long IN list, which a dialect with
    /// ``Dialect/inListArray`` binds as one array value.
    public static func binds(of statement: Statement, dialect: (any Dialect)? = nil) -> [DatabaseValue] {
        var out: [DatabaseValue] = []
        switch statement {
        case .select(let s):
            selectBinds(s, dialect, into: &out)
        case .insert(let i):
            if i.rows.count == 1 { return i.rows[0] }  // shares the row's storage: no copy
            out.reserveCapacity(i.rows.count * i.columns.count)
            for row in i.rows { out.append(contentsOf: row) }
        case .update(let u):
            let table = SearchScope(table: u.table, filter: u.filter)
            for a in u.assignments {
                if let e = a.expression { collect(e.node, dialect, table, into: &out) } else { out.append(a.value) }
            }
            if let f = u.filter { collect(f.node, dialect, table, into: &out) }
        case .delete(let d):
            let table = SearchScope(table: d.table, filter: d.filter)
            if let f = d.filter { collect(f.node, dialect, table, into: &out) }
        case .createTable, .addColumn, .createIndex, .dropTable, .begin, .commit, .rollback, .savepoint,
            .releaseSavepoint, .rollbackToSavepoint, .beginIsolated:
            break
        }
        return out
    }

    /// `binds(of: .select(select), dialect:)` without wrapping the SELECT in a ``Statement`` (a copy of it).
    static func binds(ofSelect select: Select, dialect: (any Dialect)?) -> [DatabaseValue] {
        var out: [DatabaseValue] = []
        selectBinds(select, dialect, into: &out)
        return out
    }

    static func selectBinds(_ s: Select, _ dialect: (any Dialect)?, into out: inout [DatabaseValue]) {
        if let w = s.commonTable {
            selectBinds(w.select, dialect, into: &out)
            if let step = w.step, let r = w.recursion, step.order.isEmpty, step.limit == nil, step.offset == nil {
                // The bounded step's binds without building it: its filter ANDs `depth < bound` last, and nothing
                // is bound after the filter (no order, limit or offset), so the bound's value comes last.
                selectBinds(step, dialect, into: &out)
                out.append(.integer(Int64(r.maxDepth)))
            } else if let step = w.boundedStep {
                selectBinds(step, dialect, into: &out)
            }
        }
        for w in s.windows where !w.defaultValue.isNull && (w.function == .lag || w.function == .lead) {
            out.append(w.defaultValue)  // a LAG or LEAD default, bound in the SELECT's list
        }
        if let c = s.compound {
            for b in c.branches { selectBinds(b, dialect, into: &out) }
        }
        let table = SearchScope(table: SQLRenderer.searchTable(of: s), filter: s.filter)
        for join in s.joins { collect(join.on.node, dialect, table, into: &out) }
        if let f = s.filter { collect(f.node, dialect, table, into: &out) }
        if case .count = s.selection, s.limit == nil, s.offset == nil { return }
        for o in s.order {
            guard let e = o.expression else { continue }
            // A NULLs sort key (``NullsClauseSyntax/sortKey``) writes the term twice.
            if let dialect, dialect.nullsClause == .sortKey, needsNullsClause(o, in: s, dialect: dialect) {
                collect(e.node, dialect, table, into: &out)
            }
            collect(e.node, dialect, table, into: &out)
        }
        if let l = s.limit { out.append(.integer(Int64(l))) }
        if let o = s.offset { out.append(.integer(Int64(o))) }
    }

    /// Where a match may read a full-text index: the table the statement reads and the matches its WHERE clause
    /// ANDs at its top (see ``SQLRenderer/search(_:_:)``).
    struct SearchScope {
        var table: String?
        /// The WHERE clause whose top-level matches may read an index.
        let filter: SQLExpression?

        init(table: String?, filter: SQLExpression?) {
            self.table = table
            self.filter = filter
        }

        /// The matches the WHERE clause ANDs at its top, worked out when a match is met (a statement without one,
        /// most of them, walks nothing for it).
        var indexable: Set<SQLExpression.Node> { filter.map { SQLRenderer.conjunctSearches($0.node) } ?? [] }
    }

    /// Collects the binds of `node`; `table` says where a match may read a full-text index.
    static func collect(
        _ node: SQLExpression.Node, _ dialect: (any Dialect)?, _ table: SearchScope, insideArithmetic: Bool = false,
        into out: inout [DatabaseValue]
    ) {
        // Asked only where it matters (an IN list, BETWEEN), not through the dialect's existential at every node.
        var mixed: Bool { dialect?.numericSyntax.mixedComparison != nil }
        switch node {
        case .column, .joinedColumn, .constant: break
        case .value(let v): out.append(v)
        // Only a prepared query's plan collects the binds of a SELECT with parameters (the statement check refuses
        // it anywhere else): each parameter's place holds its marker.
        case .parameter(let slot): out.append(slot.marker)
        case .compare(_, let l, let r):
            collect(l, dialect, table, into: &out)
            collect(r, dialect, table, into: &out)
        case .and(let items), .or(let items): for item in items { collect(item, dialect, table, into: &out) }
        case .not(let e), .isNull(let e, _): collect(e, dialect, table, into: &out)
        case .inList(let e, let values, _):
            if values.isEmpty { return }
            collect(e, dialect, table, into: &out)
            if let dialect, let array = ArrayInList(values, negated: false, dialect: dialect) {
                out.append(array.value)
            } else if mixed, isComputedNumber(e) {  // `f(e, v1) = 0 OR f(e, v2) = 0 …` (SQLRenderer+Numbers)
                for (n, v) in values.enumerated() {
                    if n > 0 { collect(e, dialect, table, into: &out) }
                    out.append(v)
                }
            } else {
                out.append(contentsOf: values)
            }
        case .like(let e, let pattern, _, _):
            collect(e, dialect, table, into: &out)
            out.append(.text(pattern))
        case .between(let e, let low, let high, _):
            collect(e, dialect, table, into: &out)
            collect(low, dialect, table, into: &out)
            // `f(e, low) >= 0 AND f(e, high) <= 0` (SQLRenderer+Numbers) names `e` twice.
            if mixed, [e, low, high].contains(where: isComputedNumber) { collect(e, dialect, table, into: &out) }
            collect(high, dialect, table, into: &out)
        case .unsafeRaw(_, let values): out.append(contentsOf: values)
        case .typed(.arithmetic(.divide, let l, let r), .integer) where dialect?.arithmeticSyntax == .guardedDivision:
            // `DIV`: the quotient's guarded divisor, no underflow guard (SQLRenderer+Computed).
            for e in [l, r, l, r] { collect(e, dialect, table, insideArithmetic: insideArithmetic, into: &out) }
        case .arithmetic(let op, let l, let r) where dialect?.arithmeticSyntax == .guardedDivision:
            // SQLRenderer+Computed: `%` and a decimal's `/` are the guarded quotient (l, r, then r and l in the
            // divisor's guard, r); `*` and `/` that may underflow are `CASE WHEN EXP(7779 * (v = 0 AND l <> 0
            // [AND r <> 0])) THEN v END` around the product or quotient v.
            let quotient = [l, r, l, r]
            let parts: [Node]
            switch op {
            case .multiply where SQLRenderer.mayUnderflow(op, l, r): parts = [l, r, l, r, l, r]
            case .divide where SQLRenderer.mayUnderflow(op, l, r): parts = quotient + [l] + quotient
            case .divide, .remainder: parts = quotient
            default: parts = [l, r]
            }
            for e in parts { collect(e, dialect, table, insideArithmetic: insideArithmetic, into: &out) }
        case .arithmetic(let op, let l, let r):
            // The outermost arithmetic is rendered twice where NaN is checked (SQLRenderer+Numbers).
            let twice = !insideArithmetic && op != .remainder && dialect?.numericSyntax.nullsNaN == true
            let inner = twice || insideArithmetic
            for _ in 0..<(twice ? 2 : 1) {
                collect(l, dialect, table, insideArithmetic: inner, into: &out)
                collect(r, dialect, table, insideArithmetic: inner, into: &out)
            }
        case .concat(let l, let r):
            collect(l, dialect, table, into: &out)
            collect(r, dialect, table, into: &out)
        case .caseMapped(let e, _): collect(e, dialect, table, into: &out)
        // A type mark leaves an arithmetic expression where it was (SQLRenderer+Computed).
        case .typed(let e, _): collect(e, dialect, table, insideArithmetic: insideArithmetic, into: &out)
        case .coalesce(let items): for item in items { collect(item, dialect, table, into: &out) }
        case .inSubquery(let e, let s, _):
            collect(e, dialect, table, into: &out)
            selectBinds(s, dialect, into: &out)
        case .scalarSubquery(let s): selectBinds(firstRow(of: s), dialect, into: &out)
        case .correlatedExists(let s, let c, _): selectBinds(SQLRenderer.correlated(s, c), dialect, into: &out)
        case .jsonPath: break  // a column and literal path steps: nothing bound
        case .search(let e, let query):
            collect(e, dialect, table, into: &out)  // a column: nothing bound
            if let dialect, table.indexable.contains(node),
                SQLRenderer.fullTextIndex(for: e, in: table.table, dialect: dialect) != nil
            {
                out.append(.text(SQLRenderer.fts5Text(query)))
            }
            out += SQLRenderer.searchBinds(query, dialect?.searchSyntax ?? .likeTokens)
        case .searchRank(let e, let query):
            collect(e, dialect, table, into: &out)
            out += SQLRenderer.rankBinds(query, dialect?.searchSyntax ?? .likeTokens)
        }
    }
}
