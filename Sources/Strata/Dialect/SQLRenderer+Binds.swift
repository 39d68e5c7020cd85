// SQLRenderer+Binds: the values a statement binds, in the order the renderer places them, without SQL.

extension SQLRenderer {
    /// The values `render(statement)` would bind, in the same order, without building SQL text.
    ///
    /// Used with a cached rendering of the same statement shape (see ``StatementTemplate``).
    public static func binds(of statement: Statement) -> [DatabaseValue] {
        var out: [DatabaseValue] = []
        switch statement {
        case .select(let s):
            selectBinds(s, into: &out)
        case .insert(let i):
            if i.rows.count == 1 { return i.rows[0] }  // shares the row's storage: no copy
            out.reserveCapacity(i.rows.count * i.columns.count)
            for row in i.rows { out.append(contentsOf: row) }
        case .update(let u):
            for a in u.assignments {
                if let e = a.expression { collect(e.node, into: &out) } else { out.append(a.value) }
            }
            if let f = u.filter { collect(f.node, into: &out) }
        case .delete(let d):
            if let f = d.filter { collect(f.node, into: &out) }
        case .createTable, .addColumn, .createIndex, .dropTable, .begin, .commit, .rollback, .savepoint,
            .releaseSavepoint, .rollbackToSavepoint:
            break
        }
        return out
    }

    static func selectBinds(_ s: Select, into out: inout [DatabaseValue]) {
        for join in s.joins { collect(join.on.node, into: &out) }
        if let f = s.filter { collect(f.node, into: &out) }
        if case .count = s.selection, s.limit == nil, s.offset == nil { return }
        for o in s.order { if let e = o.expression { collect(e.node, into: &out) } }
        if let l = s.limit { out.append(.integer(Int64(l))) }
        if let o = s.offset { out.append(.integer(Int64(o))) }
    }

    static func collect(_ node: SQLExpression.Node, into out: inout [DatabaseValue]) {
        switch node {
        case .column, .joinedColumn, .constant: break
        case .value(let v): out.append(v)
        case .compare(_, let l, let r):
            collect(l, into: &out)
            collect(r, into: &out)
        case .and(let items), .or(let items): for item in items { collect(item, into: &out) }
        case .not(let e), .isNull(let e, _): collect(e, into: &out)
        case .inList(let e, let values, _):
            if values.isEmpty { return }
            collect(e, into: &out)
            out.append(contentsOf: values)
        case .like(let e, let pattern, _, _):
            collect(e, into: &out)
            out.append(.text(pattern))
        case .between(let e, let low, let high, _):
            collect(e, into: &out)
            collect(low, into: &out)
            collect(high, into: &out)
        case .unsafeRaw(_, let values): out.append(contentsOf: values)
        case .arithmetic(_, let l, let r), .concat(let l, let r):
            collect(l, into: &out)
            collect(r, into: &out)
        case .caseMapped(let e, _): collect(e, into: &out)
        case .coalesce(let items): for item in items { collect(item, into: &out) }
        case .inSubquery(let e, let s, _):
            collect(e, into: &out)
            selectBinds(s, into: &out)
        case .scalarSubquery(let s): selectBinds(firstRow(of: s), into: &out)
        }
    }
}
