// StatementCheck+Scope: every table-qualified column names the main table or a join in scope, refused once.

extension StatementCheck {
    /// The tables a column may be qualified with where it appears: the SELECT's main table and its joins' aliases
    /// (a join's ON condition sees the joins up to its own), none in an UPDATE's or a DELETE's conditions. A
    /// subquery has its own scope, the outer query's tables not in it.
    struct Scope {
        var main: String?
        var aliases: Set<String> = []
        var joined = false

        /// - Throws: ``StrataError/invalidQuery(_:)`` naming the table and the column when neither is in scope.
        func check(_ table: String?, _ column: String) throws(StrataError) {
            guard let table, table != main, !aliases.contains(table) else { return }
            throw .invalidQuery(
                joined ? "no joined table named \(table)" : "column \(table).\(column) of a joined table outside a join"
            )
        }
    }

    /// The qualified columns of a statement, after every other rule of the check: a SELECT's columns, its joins'
    /// ON conditions, WHERE, GROUP BY, HAVING and ORDER BY, in that order; an UPDATE's values and WHERE; a
    /// DELETE's WHERE.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` for a column of a table that is neither the main table nor a
    ///   join's alias in scope (`no joined table named j9`), or of any table outside a SELECT with joins (`column
    ///   j1.title of a joined table outside a join`).
    static func checkScopes(_ statement: Statement) throws(StrataError) {
        switch statement {
        case .select(let s): try checkScopes(s)
        case .update(let u):
            for a in u.assignments { if let e = a.expression { try checkScopes(e.node, Scope()) } }
            if let f = u.filter { try checkScopes(f.node, Scope()) }
        case .delete(let d):
            if let f = d.filter { try checkScopes(f.node, Scope()) }
        case .insert, .createTable, .addColumn, .createIndex, .dropTable, .begin, .commit, .rollback, .savepoint,
            .releaseSavepoint, .rollbackToSavepoint, .beginIsolated:
            return
        }
    }

    private static func checkScopes(_ s: Select) throws(StrataError) {
        let scope = Scope(main: s.table, aliases: Set(s.joins.map(\.alias)), joined: !s.joins.isEmpty)
        switch s.selection {
        case .columns, .count: break
        case .refs(let refs): for r in refs { try scope.check(r.table, r.name) }
        case .items(let items): for item in items { try checkScopes(item, scope) }
        }
        if let c = s.compound { for b in c.branches { try checkScopes(b) } }
        var seen = Scope(main: s.table, joined: true)
        for join in s.joins {
            seen.aliases.insert(join.alias)
            try checkScopes(join.on.node, seen)
        }
        if let f = s.filter { try checkScopes(f.node, scope) }
        for g in s.groupBy { try scope.check(g.table, g.name) }
        if let h = s.having { try checkScopes(h.node, scope) }
        for o in s.order {
            if let a = o.aggregate {
                try checkScopes(.aggregate(a), scope)
            } else if let e = o.expression {
                try checkScopes(e.node, scope)
            } else {
                try scope.check(o.table, o.column)
            }
        }
    }

    private static func checkScopes(_ item: SelectItem, _ scope: Scope) throws(StrataError) {
        switch item {
        case .column(let r): try scope.check(r.table, r.name)
        case .aggregate(let a): if let c = a.column { try scope.check(c.table, c.name) }
        case .window(let w):
            if let c = w.argument { try scope.check(c.table, c.name) }
            for c in w.partition { try scope.check(c.table, c.name) }
            for o in w.order { try scope.check(o.table, o.column) }
        case .expression(let e): try checkScopes(e.node, scope)
        }
    }

    private static func checkScopes(_ n: HavingCondition.Node, _ scope: Scope) throws(StrataError) {
        switch n {
        case .compare(_, let item, _), .isNull(let item, _): try checkScopes(item, scope)
        case .and(let items), .or(let items): for item in items { try checkScopes(item, scope) }
        case .not(let item): try checkScopes(item, scope)
        }
    }

    private static func checkScopes(_ n: SQLExpression.Node, _ scope: Scope) throws(StrataError) {
        switch n {
        case .column, .value, .constant, .unsafeRaw, .parameter: return
        case .joinedColumn(let table, let name):
            guard scope.joined else {
                throw .invalidQuery("column \(table).\(name) of a joined table outside a join")
            }
            try scope.check(table, name)
        case .inSubquery(let e, let s, _):
            try checkScopes(e, scope)
            try checkScopes(s)
        case .scalarSubquery(let s): try checkScopes(s)
        case .correlatedExists(let s, let c, _):
            // The outer columns are the enclosing statement's main table's; the inner ones the subquery's tables'.
            let inner = Scope(main: s.table, aliases: Set(s.joins.map(\.alias)), joined: true)
            for ref in c.inner { try inner.check(ref.table, ref.name) }
            try checkScopes(s)
        case .compare(_, let l, let r), .arithmetic(_, let l, let r), .concat(let l, let r):
            try checkScopes(l, scope)
            try checkScopes(r, scope)
        case .and(let items), .or(let items), .coalesce(let items): for item in items { try checkScopes(item, scope) }
        case .not(let e), .isNull(let e, _), .caseMapped(let e, _), .typed(let e, _), .like(let e, _, _, _),
            .jsonPath(let e, _), .search(let e, _), .searchRank(let e, _):
            try checkScopes(e, scope)
        case .inList(let e, let values, _): if !values.isEmpty { try checkScopes(e, scope) }
        case .between(let e, let low, let high, _):
            try checkScopes(e, scope)
            try checkScopes(low, scope)
            try checkScopes(high, scope)
        }
    }
}
