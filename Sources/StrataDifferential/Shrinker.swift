// Shrinker: reduces a failing world and query to a minimal one that still fails the same check.
import Strata

extension DifferentialEngine {
    /// Shrinks `d` greedily: fewer rows, columns, indexes, joins, conjuncts, columns selected, order terms,
    /// simpler literals; keeps each step that still fails `d.check`, within ``FuzzOptions/shrinkBudget`` tries.
    func shrink(_ d: inout Divergence) {
        guard var select = d.select else { return }
        var world = d.world
        var details = d.details
        var budget = options.shrinkBudget
        var progress = true
        // Each step must fail the same way (the same outcome kind on each backend), not in some other way.
        guard let (_, signature) = failure(d.check, of: select, in: world, rebuild: true) else { return }
        func attempt(_ w: FuzzWorld, _ s: Select, rebuild: Bool = false) -> Bool {
            guard budget > 0 else { return false }
            budget -= 1
            guard let (why, sig) = failure(d.check, of: s, in: w, rebuild: rebuild), sig == signature else {
                return false
            }
            world = w
            select = s
            details = why
            return true
        }
        while progress, budget > 0 {
            progress = false
            for s in Self.simpler(select) where attempt(world, s) {
                progress = true
                break
            }
            if progress { continue }
            for w in Self.smaller(world, keeping: Self.columns(of: select)) where attempt(w, select, rebuild: true) {
                progress = true
                break
            }
        }
        d.minimalWorld = world
        d.minimalSelect = select
        d.minimalDetails = details
    }

    /// Shrinks a write divergence: simpler filter, fewer assignments, simpler values, a smaller world.
    func shrinkWrite(_ d: inout Divergence) {
        guard var write = d.write else { return }
        var world = d.world
        var details = d.details
        var budget = options.shrinkBudget
        var progress = true
        guard let (_, signature) = writeFailure(write, in: world) else { return }
        func attempt(_ w: FuzzWorld, _ s: Statement) -> Bool {
            guard budget > 0 else { return false }
            budget -= 1
            guard let (why, sig) = writeFailure(s, in: w), sig == signature else { return false }
            world = w
            write = s
            details = why
            return true
        }
        while progress, budget > 0 {
            progress = false
            for s in Self.simpler(write) where attempt(world, s) {
                progress = true
                break
            }
            if progress { continue }
            for w in Self.smaller(world, keeping: Self.columns(of: write)) where attempt(w, write) {
                progress = true
                break
            }
        }
        d.minimalWorld = world
        d.minimalWrite = write
        d.minimalDetails = details
    }

    static func simpler(_ write: Statement) -> [Statement] {
        switch write {
        case .delete(let del):
            guard let f = del.filter else { return [] }
            return [.delete(Delete(table: del.table, filter: nil))]
                + simpler(f.node).map { .delete(Delete(table: del.table, filter: SQLExpression($0))) }
        case .update(let up):
            var out: [Statement] = []
            if let f = up.filter {
                out.append(.update(Update(table: up.table, assignments: up.assignments, filter: nil)))
                out += simpler(f.node).map {
                    .update(Update(table: up.table, assignments: up.assignments, filter: SQLExpression($0)))
                }
            }
            if up.assignments.count > 1 {
                for i in up.assignments.indices {
                    var a = up.assignments
                    a.remove(at: i)
                    out.append(.update(Update(table: up.table, assignments: a, filter: up.filter)))
                }
            }
            for i in up.assignments.indices {
                for v in simpler(up.assignments[i].value) {
                    var a = up.assignments
                    a[i].value = v
                    out.append(.update(Update(table: up.table, assignments: a, filter: up.filter)))
                }
            }
            return out
        default: return []
        }
    }

    /// The columns a write names, by table.
    static func columns(of write: Statement) -> Set<String> {
        switch write {
        case .delete(let del):
            return columns(of: Select(table: del.table, selection: .count, filter: del.filter))
        case .update(let up):
            return columns(
                of: Select(table: up.table, selection: .columns(up.assignments.map(\.column)), filter: up.filter))
        default: return []
        }
    }

    // MARK: Queries

    /// Simpler variants of a query, most aggressive first.
    static func simpler(_ s: Select) -> [Select] {
        var out: [Select] = []
        func with(_ change: (inout Select) -> Void) {
            var c = s
            change(&c)
            out.append(c)
        }
        if s.filter != nil { with { $0.filter = nil } }
        if s.limit != nil { with { $0.limit = nil } }
        if s.offset != nil { with { $0.offset = nil } }
        if !s.joins.isEmpty, s.filter.map({ !names(alias: $0.node) }) ?? true {
            // Without its join, nothing may still name the joined table.
            with { c in
                c.joins = []
                c.order.removeAll { $0.table != nil }
                if case .refs(let refs) = c.selection {
                    let main = refs.filter { $0.table == nil }
                    c.selection = main.isEmpty ? .count : .refs(main)
                }
            }
        }
        for j in s.joins.indices {
            for on in simpler(s.joins[j].on.node) { with { $0.joins[j].on = SQLExpression(on) } }
        }
        for i in s.order.indices { with { $0.order.remove(at: i) } }
        switch s.selection {
        case .count: break
        case .columns(let c):
            with { $0.selection = .count }
            if c.count > 1 {
                for i in c.indices {
                    with { $0.selection = .columns(c.enumerated().filter { $0.offset != i }.map(\.element)) }
                }
            }
        case .items: break
        case .refs(let r):
            with { $0.selection = .count }
            if r.count > 1 {
                for i in r.indices {
                    with { $0.selection = .refs(r.enumerated().filter { $0.offset != i }.map(\.element)) }
                }
            }
        }
        if let f = s.filter { for n in simpler(f.node) { with { $0.filter = SQLExpression(n) } } }
        return out
    }

    /// Whether an expression names a joined table's column.
    static func names(alias n: SQLExpression.Node) -> Bool {
        switch n {
        case .joinedColumn: return true
        case .column, .value, .constant, .unsafeRaw, .parameter: return false
        case .and(let items), .or(let items): return items.contains(where: names(alias:))
        case .not(let e), .isNull(let e, _), .inList(let e, _, _), .like(let e, _, _, _): return names(alias: e)
        case .compare(_, let l, let r): return names(alias: l) || names(alias: r)
        case .between(let e, let l, let h, _): return names(alias: e) || names(alias: l) || names(alias: h)
        case .arithmetic(_, let l, let r), .concat(let l, let r): return names(alias: l) || names(alias: r)
        case .caseMapped(let e, _), .inSubquery(let e, _, _), .typed(let e, _), .jsonPath(let e, _), .search(let e, _),
            .searchRank(let e, _):
            return names(alias: e)
        case .coalesce(let items): return items.contains(where: names(alias:))
        case .scalarSubquery, .correlatedExists: return false
        }
    }

    /// Simpler variants of an expression: its parts, fewer items, simpler values.
    static func simpler(_ n: SQLExpression.Node) -> [SQLExpression.Node] {
        switch n {
        case .and(let items), .or(let items):
            let rebuild: ([SQLExpression.Node]) -> SQLExpression.Node = { parts in
                if case .and = n { return parts.count == 1 ? parts[0] : .and(parts) }
                return parts.count == 1 ? parts[0] : .or(parts)
            }
            var out = items
            for i in items.indices { out.append(rebuild(items.enumerated().filter { $0.offset != i }.map(\.element))) }
            for i in items.indices {
                for smaller in simpler(items[i]) {
                    var copy = items
                    copy[i] = smaller
                    out.append(rebuild(copy))
                }
            }
            return out
        case .not(let e): return [e] + simpler(e).map { .not($0) }
        case .isNull(let e, let negated):
            return (negated ? [.isNull(e, negated: false)] : []) + simpler(e).map { .isNull($0, negated: negated) }
        case .compare(let op, let l, let r):
            var out: [SQLExpression.Node] = []
            if op != .equal { out.append(.compare(.equal, l, r)) }
            out += simpler(l).map { .compare(op, $0, r) }
            out += simpler(r).map { .compare(op, l, $0) }
            return out
        case .inList(let e, let values, let negated):
            var out: [SQLExpression.Node] = []
            if negated { out.append(.inList(e, values, negated: false)) }
            for i in values.indices {
                out.append(.inList(e, values.enumerated().filter { $0.offset != i }.map(\.element), negated: negated))
            }
            for i in values.indices {
                for v in simpler(values[i]) {
                    var copy = values
                    copy[i] = v
                    out.append(.inList(e, copy, negated: negated))
                }
            }
            return out
        case .like(let e, let pattern, let ci, let negated):
            var out: [SQLExpression.Node] = []
            if negated { out.append(.like(e, pattern: pattern, caseInsensitive: ci, negated: false)) }
            if ci { out.append(.like(e, pattern: pattern, caseInsensitive: false, negated: negated)) }
            let scalars = Array(pattern.unicodeScalars)
            for i in scalars.indices {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars.enumerated().filter { $0.offset != i }.map(\.element))
                out.append(.like(e, pattern: String(view), caseInsensitive: ci, negated: negated))
            }
            return out
        case .between(let e, let low, let high, let negated):
            var out: [SQLExpression.Node] = [.compare(.greaterOrEqual, e, low), .compare(.lessOrEqual, e, high)]
            if negated { out.append(.between(e, low: low, high: high, negated: false)) }
            out += simpler(low).map { .between(e, low: $0, high: high, negated: negated) }
            out += simpler(high).map { .between(e, low: low, high: $0, negated: negated) }
            return out
        case .value(let v): return simpler(v).map { .value($0) }
        case .constant(true): return []
        case .constant(false): return [.constant(true)]
        case .column, .joinedColumn, .unsafeRaw, .parameter: return []
        case .arithmetic, .concat, .caseMapped, .coalesce, .inSubquery, .scalarSubquery, .correlatedExists, .typed:
            return simplerComputed(n)
        case .jsonPath: return []  // a shorter path reads another value of another type
        case .search, .searchRank: return []
        }
    }

    /// Simpler literals of the same kind.
    static func simpler(_ v: DatabaseValue) -> [DatabaseValue] {
        switch v {
        case .null, .bool(false): return []
        case .bool(true): return [.bool(false)]
        case .integer(let i):
            return [0, 1, -1, i / 2].filter { $0 != i && $0.magnitude < i.magnitude }.map { .integer($0) }
        case .double(let d):
            return [0.0, 1.0, -1.0].filter { $0.bitPattern != d.bitPattern }.map { .double($0) }
        case .text(let s):
            let scalars = Array(s.unicodeScalars)
            guard !scalars.isEmpty else { return [] }
            return [""].map(DatabaseValue.text)
                + scalars.indices.map { i in
                    var view = String.UnicodeScalarView()
                    view.append(contentsOf: scalars.enumerated().filter { $0.offset != i }.map(\.element))
                    return .text(String(view))
                }
        case .blob(let b): return b.isEmpty ? [] : [.blob(b.dropLast())]
        default: return []
        }
    }

    // MARK: Worlds

    /// The columns a query names, by table.
    static func columns(of s: Select) -> Set<String> {
        var out: Set<String> = []
        let aliasTable = Dictionary(s.joins.map { ($0.alias, $0.table) }, uniquingKeysWith: { a, _ in a })
        func name(_ c: String, _ alias: String?) -> String { (alias.flatMap { aliasTable[$0] } ?? s.table) + "." + c }
        func walk(_ n: SQLExpression.Node) {
            switch n {
            case .column(let c): out.insert(name(c, nil))
            case .joinedColumn(let t, let c): out.insert(name(c, t))
            case .and(let items), .or(let items): items.forEach(walk)
            case .not(let e), .isNull(let e, _), .inList(let e, _, _), .like(let e, _, _, _): walk(e)
            case .compare(_, let l, let r):
                walk(l)
                walk(r)
            case .between(let e, let l, let h, _):
                walk(e)
                walk(l)
                walk(h)
            case .value, .constant, .unsafeRaw, .parameter: break
            case .arithmetic(_, let l, let r), .concat(let l, let r):
                walk(l)
                walk(r)
            case .caseMapped(let e, _), .typed(let e, _), .jsonPath(let e, _), .search(let e, _), .searchRank(let e, _):
                walk(e)
            case .coalesce(let items): items.forEach(walk)
            case .inSubquery(let e, let inner, _):
                walk(e)
                out.formUnion(columns(of: inner))
            case .scalarSubquery(let inner): out.formUnion(columns(of: inner))
            case .correlatedExists(let inner, let c, _):
                c.outer.forEach { out.insert(name($0, nil)) }
                out.formUnion(columns(of: inner))
            }
        }
        s.filter.map { walk($0.node) }
        s.joins.forEach { walk($0.on.node) }
        s.order.forEach { o in
            if let e = o.expression { walk(e.node) } else { out.insert(name(o.column, o.table)) }
        }
        switch s.selection {
        case .count: break
        case .columns(let c): c.forEach { out.insert(name($0, nil)) }
        case .refs(let r): r.forEach { out.insert(name($0.name, $0.table)) }
        case .items(let items):
            for case .column(let c) in items { out.insert(name(c.name, c.table)) }
            for case .aggregate(let a) in items { if let c = a.column { out.insert(name(c.name, c.table)) } }
            for case .expression(let e) in items { walk(e.node) }
            for case .window(let w) in items {
                if let c = w.argument { out.insert(name(c.name, c.table)) }
                w.partition.forEach { out.insert(name($0.name, $0.table)) }
                w.order.forEach { out.insert(name($0.column, $0.table)) }
            }
        }
        s.groupBy.forEach { out.insert(name($0.name, $0.table)) }
        for case .aggregate(let a) in s.having?.items ?? [] {
            if let c = a.column { out.insert(name(c.name, c.table)) }
        }
        return out
    }

    /// Smaller worlds: fewer rows (halves, then one at a time), unused columns and indexes gone, simpler values.
    static func smaller(_ w: FuzzWorld, keeping used: Set<String>) -> [FuzzWorld] {
        var out: [FuzzWorld] = []
        for t in w.tables.indices {
            let n = w.tables[t].rows.count
            var chunk = n / 2
            while chunk >= 1 {
                for start in stride(from: 0, to: n, by: chunk) {
                    out.append(removingRows(w, table: t, Set(start..<min(n, start + chunk))))
                }
                chunk /= 2
            }
        }
        for t in w.tables.indices {
            for i in w.tables[t].indexes.indices {
                var c = w
                c.tables[t].indexes.remove(at: i)
                out.append(c)
            }
            let table = w.tables[t]
            for column in table.schema.columns where !column.isPrimaryKey && column.name != "parent_id" {
                guard !used.contains(table.name + "." + column.name) else { continue }
                out.append(removingColumn(w, table: t, column.name))
            }
        }
        for t in w.tables.indices {
            let table = w.tables[t]
            for r in table.rows.indices {
                for k in table.rows[r].indices {
                    let column = table.schema.columns.first { $0.name == table.schema.insertColumnNames[k] }
                    var candidates = simpler(table.rows[r][k])
                    if column?.isNullable == true, !table.rows[r][k].isNull { candidates.insert(.null, at: 0) }
                    for v in candidates {
                        var c = w
                        c.tables[t].rows[r][k] = v
                        out.append(c)
                    }
                }
            }
        }
        return out
    }

    /// The world without some rows of one table; children of a removed parent lose their parent, and the
    /// ids the database will hand out (1, 2, … in insert order) are followed.
    private static func removingRows(_ w: FuzzWorld, table t: Int, _ rows: Set<Int>) -> FuzzWorld {
        var c = w
        c.tables[t].rows = w.tables[t].rows.enumerated().filter { !rows.contains($0.offset) }.map(\.element)
        guard w.tables[t].name == FuzzWorld.parent else { return c }
        var newID: [Int64: Int64] = [:]
        var next: Int64 = 1
        for i in w.tables[t].rows.indices where !rows.contains(i) {
            newID[Int64(i + 1)] = next
            next += 1
        }
        for ct in c.tables.indices where c.tables[ct].name == FuzzWorld.child {
            guard let k = c.tables[ct].schema.insertColumnNames.firstIndex(of: "parent_id") else { continue }
            for r in c.tables[ct].rows.indices {
                if case .integer(let old) = c.tables[ct].rows[r][k] {
                    c.tables[ct].rows[r][k] = newID[old].map(DatabaseValue.integer) ?? .null
                }
            }
        }
        return c
    }

    private static func removingColumn(_ w: FuzzWorld, table t: Int, _ name: String) -> FuzzWorld {
        var c = w
        let schema = w.tables[t].schema
        guard let k = schema.insertColumnNames.firstIndex(of: name) else { return w }
        c.tables[t].schema.columns = schema.columns.filter { $0.name != name }
        c.tables[t].indexes = w.tables[t].indexes.filter { !$0.columns.contains(name) }
        c.tables[t].rows = w.tables[t].rows.map { row in row.enumerated().filter { $0.offset != k }.map(\.element) }
        return c
    }
}
