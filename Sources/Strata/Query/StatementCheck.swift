// StatementCheck: the refusals every driver shares, made once in the core before a statement reaches any driver.
import Foundation

/// Refuses what no backend may answer differently, before any driver sees the statement: a SELECT without
/// columns, a join alias that is the main table's name or another join's, an UPDATE that sets nothing, a negative
/// LIMIT or OFFSET, a LIKE pattern ending in a lone escape (raw conditions' included, where the core can read
/// them), a subquery used as a value that does not select exactly one column, an empty COALESCE, a grouping or a
/// row lock no backend answers alike (``Select/checkGrouping()``, ``Select/checkLock()``); an INSERT whose rows do
/// not fit its columns or whose upsert clause has no target or sets nothing, a table with a column named twice,
/// two primary keys or a key that is not an integer, a UUID or text, a primary key added to a table, an index
/// without columns (`+Writes`); last, a column qualified with a table that is not in scope (`+Scope`).
///
/// Every statement a ``Transaction`` runs passes here, so a statement with two faults fails with the same error on
/// every driver, and no driver (nor the renderer) repeats these rules. A SELECT is checked in the order it is
/// written: grouping, row lock, its columns and join aliases, its conditions (joins, WHERE, ORDER BY terms, each
/// subquery in full where it appears), then LIMIT and OFFSET.
///
/// ``SQLRenderer`` renders what passed here: code that renders a statement itself, outside a ``Transaction`` (a
/// tool, a fuzzer), calls ``check(_:)`` first.
public enum StatementCheck {
    /// Checks one statement.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the fault.
    public static func check(_ statement: Statement) throws(StrataError) {
        try checkShape(statement)
        try checkScopes(statement)
    }

    /// Every rule but the scope of qualified columns, which comes last (`+Scope`).
    private static func checkShape(_ statement: Statement) throws(StrataError) {
        switch statement {
        case .select(let s): try check(s)
        case .update(let u):
            guard !u.assignments.isEmpty else { throw .invalidQuery("UPDATE without any column to set") }
            for a in u.assignments { if let e = a.expression { try check(e.node) } }
            if let f = u.filter { try check(f.node) }
        case .delete(let d):
            if let f = d.filter { try check(f.node) }
        case .insert(let i): try check(i)
        case .createTable(let t): try check(t)
        case .addColumn(_, let c):
            // An existing table has its key (SQLite cannot add one; PostgreSQL would add a second).
            if c.isPrimaryKey { throw .invalidQuery("cannot add a PRIMARY KEY column") }
        case .createIndex(let table, let index): try check(index, table: table)
        case .dropTable, .begin, .commit, .rollback, .savepoint, .releaseSavepoint, .rollbackToSavepoint,
            .beginIsolated:
            return
        }
    }

    /// A SELECT (or a subquery): grouping, row lock, its conditions, then paging.
    static func check(_ s: Select) throws(StrataError) {
        if let tag = s.tag { try QueryTag.check(tag) }
        try s.checkGrouping()
        try s.checkWindows()
        if s.lock != nil { try s.checkLock() }
        switch s.selection {
        case .columns(let c) where c.isEmpty: throw .invalidQuery("SELECT without columns")
        case .refs(let r) where r.isEmpty: throw .invalidQuery("SELECT without columns")
        default: break
        }
        if let w = s.commonTable { try check(w, of: s) }
        if let c = s.compound { try check(c, of: s) }
        var aliases: Set<String> = []
        for join in s.joins {
            guard join.alias != s.table else {
                throw .invalidQuery("join alias '\(join.alias)' is the main table's name")
            }
            guard aliases.insert(join.alias).inserted else {
                throw .invalidQuery("join alias '\(join.alias)' is used twice")
            }
        }
        for join in s.joins { try check(join.on.node) }
        if let f = s.filter { try check(f.node) }
        for o in s.order { if let e = o.expression { try check(e.node) } }
        if case .items(let items) = s.selection { for case .expression(let e) in items { try check(e.node) } }
        if let l = s.limit, l < 0 { throw .invalidQuery("negative limit \(l)") }
        if let o = s.offset, o < 0 { throw .invalidQuery("negative offset \(o)") }
    }

    /// A compound the SELECT `outer` reads: the outer takes no joins nor row lock; every branch lists the first
    /// branch's columns and has no ORDER BY, LIMIT, OFFSET or row lock; each branch is checked in full, left to right.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the set operator, the branch (1 is the leftmost), the
    ///   model's table and the fault.
    private static func check(_ c: Compound, of outer: Select) throws(StrataError) {
        let name = c.rest.first?.kind.rawValue ?? "set operation"
        guard !c.rest.isEmpty else { throw .invalidQuery("a \(name) on \(outer.table) without a second SELECT") }
        guard outer.joins.isEmpty else {
            throw .invalidQuery("the combined rows of a \(name) on \(outer.table) take no joins; join in each branch")
        }
        guard outer.lock == nil else {
            throw .invalidQuery("the combined rows of a \(name) on \(outer.table) cannot be locked")
        }
        guard let columns = c.columns else {
            throw .invalidQuery("branch 1 of the \(name) on \(outer.table) must select columns")
        }
        for (n, b) in c.branches.enumerated() {
            let kind = n == 0 ? name : c.rest[n - 1].kind.rawValue
            let part = "branch \(n + 1) of the \(kind) on \(outer.table)"
            guard case .columns(let mine) = b.selection, mine == columns else {
                let mine: String
                if case .columns(let m) = b.selection { mine = m.joined(separator: ", ") } else { mine = "no columns" }
                throw .invalidQuery(
                    "\(part) selects (\(mine)), branch 1 (\(columns.joined(separator: ", "))): "
                        + "set operations need the same columns")
            }
            guard b.order.isEmpty, b.limit == nil, b.offset == nil else {
                throw .invalidQuery("\(part) has an ORDER BY, LIMIT or OFFSET; order and limit the combined rows")
            }
            guard b.lock == nil else { throw .invalidQuery("\(part) takes a row lock; set operations take none") }
            guard b.commonTable == nil else {
                throw .invalidQuery("\(part) reads a WITH query; read the combined rows from one instead")
            }
            try check(b)
        }
    }

    /// A named SELECT the SELECT `outer` reads: the outer is no set operation and takes no joins nor row lock, and
    /// selects columns the named SELECT lists; the name is neither the outer model's table nor a table the named
    /// SELECT reads; the named SELECT lists columns, takes no row lock, and is checked in full. A recursive one
    /// also needs a base case that does not read the name, a step that does, a depth bound of 0 or more (see
    /// ``checkRecursion(_:part:)``).
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the WITH query, the model's table and the fault.
    private static func check(_ w: CommonTable, of outer: Select) throws(StrataError) {
        // Built only for an error: a statement that passes (every statement, nearly) formats no text.
        func part() -> String {
            "the \(w.recursion == nil ? "" : "recursive ")WITH query \(w.name) of \(outer.table)"
        }
        guard !w.name.isEmpty else { throw .invalidQuery("a WITH query of \(outer.table) without a name") }
        let readsName = w.select.table == w.name || w.select.joins.contains { $0.table == w.name }
        guard w.name != outer.table, w.recursion != nil || !readsName else {
            throw .invalidQuery("\(part()) is named as a table it or its query reads; name it apart")
        }
        guard outer.compound == nil else { throw .invalidQuery("\(part()) cannot be read by a set operation") }
        guard outer.joins.isEmpty else { throw .invalidQuery("the rows of \(part()) take no joins") }
        guard outer.lock == nil else { throw .invalidQuery("the rows of \(part()) cannot be locked") }
        // The named rows' columns: a walk's are its base's then its depth column, read apart here rather than
        // joined into a new array on every statement (``CommonTable/columns`` builds that array).
        let columns: [String]
        var depth: String? = nil
        if w.windowColumn == nil, let r = w.recursion, case .columns(let base) = w.select.selection {
            columns = base
            depth = r.depthColumn
        } else if let all = w.columns {
            columns = all
        } else {
            throw .invalidQuery(
                w.windowColumn == nil
                    ? "\(part()) must select columns"
                    : "\(part()) must select columns of its table, then one window function, and not recurse")
        }
        if let wc = w.windowColumn, columns.dropLast().contains(wc) {
            throw .invalidQuery("the window column \(wc) of \(part()) is one of its columns; name it apart")
        }
        guard w.select.lock == nil else { throw .invalidQuery("\(part()) takes a row lock; WITH queries take none") }
        if w.recursion != nil { try checkRecursion(w, part: part) }
        if case .columns(let wanted) = outer.selection {
            // Most outer SELECTs list the named columns in their order: each compared in place before a search.
            for (i, c) in wanted.enumerated()
            where !(i < columns.count && columns[i] == c) && c != depth && !columns.contains(c) {
                let named = (columns + (depth.map { [$0] } ?? [])).joined(separator: ", ")
                throw .invalidQuery("\(part()) selects (\(named)), not \(c): read only the columns it selects")
            }
        }
        try check(w.select)
        // The step as it runs adds `depth < bound` to its filter (``CommonTable/boundedStep``): a comparison of a
        // column with a value, which no rule here refuses, so the step is checked without building that copy.
        if let step = w.step { try check(step) }
    }

    /// A recursive WITH query's parts: a depth bound of 0 or more, a depth column the base does not select, a
    /// base case that does not read the name, a step that joins it (once) and selects the base's columns, and
    /// neither of them ordered, paged, grouped or a set operation (SQLite and PostgreSQL refuse some of these in a
    /// recursive query, and answer others differently).
    private static func checkRecursion(_ w: CommonTable, part: () -> String) throws(StrataError) {
        guard let r = w.recursion, let step = w.step else {
            throw .invalidQuery("\(part()) has no recursive step")
        }
        guard r.maxDepth >= 0 else {
            throw .invalidQuery("the depth bound of \(part()) is \(r.maxDepth); it must be 0 or more")
        }
        guard case .columns(let base) = w.select.selection, !base.contains(r.depthColumn) else {
            throw .invalidQuery("the base case of \(part()) selects its depth column \(r.depthColumn); name it apart")
        }
        guard w.select.table != w.name, !w.select.joins.contains(where: { $0.table == w.name }) else {
            throw .invalidQuery("\(part()) has no base case: its base reads \(w.name) itself")
        }
        var joinsOfName = 0
        for join in step.joins where join.table == w.name { joinsOfName += 1 }
        guard step.table != w.name, joinsOfName == 1 else {
            throw .invalidQuery(
                "the recursive step of \(part()) does not join \(w.name) once: it must read the rows found last")
        }
        guard step.selection == w.select.selection else {
            throw .invalidQuery("the recursive step of \(part()) selects other columns than its base case")
        }
        // Each part read in place: no array of the two (a copy of each SELECT on every statement).
        func plain(_ s: Select, base: Bool) -> Bool {
            s.order.isEmpty && s.limit == nil && s.offset == nil && s.lock == nil && s.groupBy.isEmpty
                && s.having == nil && !s.distinct && (s.compound == nil || base) && s.commonTable == nil
        }
        func refused(_ name: String) -> StrataError {
            .invalidQuery(
                "the \(name) of \(part()) is ordered, paged, grouped, distinct, a WITH query or (the step) a set "
                    + "operation")
        }
        if !plain(w.select, base: true) { throw refused("base case") }
        if !plain(step, base: false) { throw refused("recursive step") }
    }

    static func check(_ n: SQLExpression.Node) throws(StrataError) {
        switch n {
        case .column, .joinedColumn, .value, .constant: return
        case .parameter(let slot): throw .unboundParameter(slot.name)
        case .unsafeRaw(let sql, let values): try checkRaw(sql, values)
        case .like(let e, let pattern, _, _):
            try LikePattern.validate(pattern)
            try check(e)
        case .inSubquery(let e, let s, let negated):
            try checkSingleColumn(s, use: negated ? "NOT IN" : "IN")
            try check(e)
            try check(s)
        case .scalarSubquery(let s):
            try checkSingleColumn(s, use: "a scalar subquery")
            try check(s)
        case .correlatedExists(let s, let c, _):
            try c.check(in: s)
            try check(s)
        case .coalesce(let items):
            guard !items.isEmpty else { throw .invalidQuery("COALESCE without operands") }
            for item in items { try check(item) }
        case .compare(_, let l, let r), .arithmetic(_, let l, let r), .concat(let l, let r):
            try check(l)
            try check(r)
        case .and(let items), .or(let items): for item in items { try check(item) }
        case .not(let e), .isNull(let e, _), .caseMapped(let e, _), .typed(let e, _): try check(e)
        case .search(let e, _), .searchRank(let e, _):
            switch e {
            case .column, .joinedColumn: break
            default: throw .invalidQuery("a full-text search reads a search document column, not a computed value")
            }
        case .jsonPath(let e, let path):
            let name: String
            switch e {
            case .column(let c): name = c
            case .joinedColumn(let t, let c): name = t + "." + c
            default: throw .invalidQuery("a JSON path (\(path)) reads a column, not a computed value")
            }
            try path.validate(column: name)
        case .inList(let e, let values, _): if !values.isEmpty { try check(e) }
        case .between(let e, let low, let high, _):
            try check(e)
            try check(low)
            try check(high)
        }
    }

    /// A raw condition's LIKE patterns, when the core reads the condition (``RawCondition``'s subset, where `\`
    /// escapes whether or not `ESCAPE '\'` is written): a pattern ending in a lone escape is refused before the
    /// database sees it, as for a LIKE of the query builder. Text outside the subset goes to the driver as it is.
    private static func checkRaw(_ sql: String, _ values: [DatabaseValue]) throws(StrataError) {
        guard sql.range(of: "like", options: .caseInsensitive) != nil,
            let node = try? RawCondition.parse(sql, values)
        else { return }
        try check(node)
    }

    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the subquery's table and columns unless it selects one.
    static func checkSingleColumn(_ s: Select, use: String) throws(StrataError) {
        let names: [String]
        switch s.selection {
        case .columns(let c): names = c
        case .refs(let r): names = r.map { ($0.table.map { $0 + "." } ?? "") + $0.name }
        case .items(let items):
            names = items.map { item in
                switch item {
                case .column(let r): return (r.table.map { $0 + "." } ?? "") + r.name
                case .aggregate(let a): return a.summary
                case .window(let w): return w.summary
                case .expression(let e): return e.summary
                }
            }
        case .count: return
        }
        guard names.count == 1 else {
            throw .invalidQuery(
                "\(use) subquery on \(s.table) selects \(names.count) columns (\(names.joined(separator: ", "))); "
                    + "it must select exactly one")
        }
    }
}
