// RenderShape: a SELECT with its bound values replaced by stand-ins, the key of a cached rendering (RenderCache).
import Foundation

/// The shape of a SELECT: the statement with every value the renderer only binds replaced by a stand-in, so two
/// SELECTs of one shape render the same SQL, binding their own values in the same places.
///
/// A stand-in keeps what the SQL text depends on: the value's kind (a text value adds a collation, a decimal one a
/// decimal collation, NULL is not a value), whether a double is 2^53 or wider (compared as a double; see
/// `SQLRenderer.isWideDouble`), the length of an `IN` list, whether a LIMIT or OFFSET is there. What it does not
/// know stays as it is in the key (a HAVING bound, a window's default, a raw fragment's values): such a key is still
/// exact, it just matches fewer statements. A statement whose text depends on more is not cached at all (nil): a
/// full-text match (its SQL follows the query's terms and the database's FTS5 tables) and an `IN` list long enough to
/// be bound as one array (``ArrayInList``, whose form follows its values' kinds).
package enum RenderShape {
    /// The key of `select` (see ``RenderShape``), or nil when it is not cached.
    ///
    /// The key also keeps what ``StatementCheck`` reads of the values it stands in for: whether a LIMIT, OFFSET or
    /// recursion bound is negative (-1 for one that is, else 0) and whether a LIKE pattern ends in a lone escape (a
    /// single backslash for one that does, else empty); a value's kind is kept anyway. So two SELECTs of one key pass
    /// or fail the check alike, given the same known tables, and a connection may skip the check for a SELECT of the
    /// key that passed last (`RenderCache/passedCheck(_:generation:)`).
    package static func key(of select: Select) -> Select? {
        map(select, value: standIn, count: { $0 < 0 ? -1 : 0 }, pattern: { LikePattern.isValid($0) ? "" : "\\" })
    }

    /// `select` with each value the renderer only binds passed through `value`, and each LIMIT, OFFSET and recursion
    /// bound through `count`; nil for a statement that is not cached. The key is this with ``standIn(_:)``; tests
    /// make other statements of the same shape with it.
    package static func map(
        _ select: Select, value: (DatabaseValue) -> DatabaseValue, count: (Int) -> Int,
        pattern: ((String) -> String)? = nil
    ) -> Select? {
        var s = select
        s.streamsRows = false  // not part of the SQL
        if let w = s.commonTable {
            guard let base = map(w.select, value: value, count: count, pattern: pattern) else { return nil }
            if let step = w.step, var r = w.recursion {
                guard let mappedStep = map(step, value: value, count: count, pattern: pattern) else { return nil }
                r.maxDepth = count(r.maxDepth)
                var mapped = CommonTable(w.name, base: base, step: mappedStep, recursion: r)
                mapped.windowColumn = w.windowColumn
                s.commonTable = mapped
            } else {
                var mapped = w
                mapped.select = base
                s.commonTable = mapped
            }
        }
        if var c = s.compound {
            guard let first = map(c.first, value: value, count: count, pattern: pattern) else { return nil }
            c.first = first
            for i in c.rest.indices {
                guard let branch = map(c.rest[i].select, value: value, count: count, pattern: pattern) else {
                    return nil
                }
                c.rest[i].select = branch
            }
            s.compound = c
        }
        for i in s.joins.indices {
            guard let on = node(s.joins[i].on.node, value, count, pattern) else { return nil }
            s.joins[i].on = SQLExpression(on)
        }
        if let f = s.filter {
            guard let mapped = node(f.node, value, count, pattern) else { return nil }
            s.filter = SQLExpression(mapped)
        }
        for i in s.order.indices {
            guard let e = s.order[i].expression else { continue }
            guard let mapped = node(e.node, value, count, pattern) else { return nil }
            s.order[i].expression = SQLExpression(mapped)
        }
        s.limit = s.limit.map(count)
        s.offset = s.offset.map(count)
        return s
    }

    /// Whether `a` and `b` have one key (`key(of:)`: both are cached and their keys are equal), worked out by
    /// reading the two statements side by side instead of building either key: what the key replaces is compared
    /// by its stand-in (a value's kind, a count's sign, a LIKE pattern's validity), everything else as it is.
    ///
    /// A connection's ``RenderCache`` compares a SELECT with the last one it rendered this way: a recursive walk's
    /// key cost about 7,000 instructions to build and 5,000 to compare. `RenderShapeTests` checks this against
    /// `key(of:)` on generated statements.
    package static func sameKey(_ a: Select, _ b: Select) -> Bool {
        // The parts the key keeps as they are (`streamsRows` is not part of it).
        guard a.table == b.table, a.selection == b.selection, a.joins.count == b.joins.count,
            a.order.count == b.order.count, sameCount(a.limit, b.limit), sameCount(a.offset, b.offset),
            a.groupBy == b.groupBy, a.having == b.having, a.distinct == b.distinct, a.lock == b.lock, a.tag == b.tag
        else { return false }
        switch (a.commonTable, b.commonTable) {
        case (nil, nil): break
        case (let x?, let y?): guard sameKey(x, y) else { return false }
        default: return false
        }
        switch (a.compound, b.compound) {
        case (nil, nil): break
        case (let x?, let y?):
            guard x.rest.count == y.rest.count, sameKey(x.first, y.first) else { return false }
            for (l, r) in zip(x.rest, y.rest) where l.kind != r.kind || !sameKey(l.select, r.select) { return false }
        default: return false
        }
        for (l, r) in zip(a.joins, b.joins) {
            guard l.kind == r.kind, l.table == r.table, l.alias == r.alias, same(l.on.node, r.on.node) else {
                return false
            }
        }
        switch (a.filter, b.filter) {
        case (nil, nil): break
        case (let x?, let y?): guard same(x.node, y.node) else { return false }
        default: return false
        }
        for (l, r) in zip(a.order, b.order) {
            guard l.column == r.column, l.direction == r.direction, l.table == r.table, l.aggregate == r.aggregate,
                l.isText == r.isText, l.isNeverNull == r.isNeverNull
            else { return false }
            switch (l.expression, r.expression) {
            case (nil, nil): continue
            case (let x?, let y?): guard same(x.node, y.node) else { return false }
            default: return false
            }
        }
        return true
    }

    /// Two named SELECTs of one key: a recursive one's base, step and the sign of its bound by their stand-ins, any
    /// other's base so and its other parts as they are (as `map(_:value:count:pattern:)` maps them).
    private static func sameKey(_ x: CommonTable, _ y: CommonTable) -> Bool {
        guard x.name == y.name, x.windowColumn == y.windowColumn, sameKey(x.select, y.select) else { return false }
        if let xs = x.step, let xr = x.recursion, let ys = y.step, let yr = y.recursion {
            return xr.depthColumn == yr.depthColumn && xr.distinct == yr.distinct
                && (xr.maxDepth < 0) == (yr.maxDepth < 0) && sameKey(xs, ys)
        }
        return x.step == y.step && x.recursion == y.recursion
    }

    /// Two LIMITs, OFFSETs or bounds of one stand-in: both absent, or both present and of one sign.
    private static func sameCount(_ a: Int?, _ b: Int?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let x?, let y?): (x < 0) == (y < 0)
        default: false
        }
    }

    /// Two conditions of one key (see `sameKey(_:_:)`).
    private static func same(_ a: Node, _ b: Node) -> Bool {
        func each(_ x: [Node], _ y: [Node]) -> Bool {
            guard x.count == y.count else { return false }
            for (l, r) in zip(x, y) where !same(l, r) { return false }
            return true
        }
        switch (a, b) {
        case (.column, .column), (.joinedColumn, .joinedColumn), (.constant, .constant), (.unsafeRaw, .unsafeRaw):
            return a == b
        case (.value(let x), .value(let y)): return standIn(x) == standIn(y)
        case (.compare(let o, let l, let r), .compare(let o2, let l2, let r2)):
            return o == o2 && same(l, l2) && same(r, r2)
        case (.and(let x), .and(let y)), (.or(let x), .or(let y)), (.coalesce(let x), .coalesce(let y)):
            return each(x, y)
        case (.not(let x), .not(let y)): return same(x, y)
        case (.isNull(let x, let n), .isNull(let y, let n2)): return n == n2 && same(x, y)
        case (.inList(let x, let xs, let n), .inList(let y, let ys, let n2)):
            guard n == n2, xs.count == ys.count, xs.count < ArrayInList.minimumCount, same(x, y) else { return false }
            for (l, r) in zip(xs, ys) where standIn(l) != standIn(r) { return false }
            return true
        case (.like(let x, let p, let c, let n), .like(let y, let p2, let c2, let n2)):
            return c == c2 && n == n2 && LikePattern.isValid(p) == LikePattern.isValid(p2) && same(x, y)
        case (.between(let x, let lo, let hi, let n), .between(let y, let lo2, let hi2, let n2)):
            return n == n2 && same(x, y) && same(lo, lo2) && same(hi, hi2)
        case (.arithmetic(let o, let l, let r), .arithmetic(let o2, let l2, let r2)):
            return o == o2 && same(l, l2) && same(r, r2)
        case (.concat(let l, let r), .concat(let l2, let r2)): return same(l, l2) && same(r, r2)
        case (.caseMapped(let x, let u), .caseMapped(let y, let u2)): return u == u2 && same(x, y)
        case (.inSubquery(let x, let s, let n), .inSubquery(let y, let s2, let n2)):
            return n == n2 && same(x, y) && sameKey(s, s2)
        case (.scalarSubquery(let s), .scalarSubquery(let s2)): return sameKey(s, s2)
        case (.correlatedExists(let s, let c, let n), .correlatedExists(let s2, let c2, let n2)):
            return n == n2 && c == c2 && sameKey(s, s2)
        case (.typed(let x, let t), .typed(let y, let t2)): return t == t2 && same(x, y)
        case (.jsonPath(let x, let p), .jsonPath(let y, let p2)): return p == p2 && same(x, y)
        default:
            // Different cases, or a full-text term (never cached).
            return false
        }
    }

    /// What the SQL of a value depends on, as one number: its kind, and for a double whether it is 2^53 or wider.
    /// Two values of one number render alike, as their stand-ins (``standIn(_:)``) are equal.
    package static func renderKind(_ value: DatabaseValue) -> UInt8 {
        switch value {
        case .null: return 0
        case .bool: return 1
        case .integer: return 2
        case .double: return SQLRenderer.isWideDouble(value) ? 4 : 3
        case .text: return 5
        case .blob: return 6
        case .date: return 7
        case .decimal: return 8
        case .uuid: return 9
        case .json: return 10
        }
    }

    /// A value of the same kind that renders alike: zero, empty, the epoch; 2^53 for a double that wide.
    package static func standIn(_ value: DatabaseValue) -> DatabaseValue {
        switch value {
        case .null: return .null
        case .bool: return .bool(false)
        case .integer: return .integer(0)
        case .double: return .double(SQLRenderer.isWideDouble(.value(value)) ? 9_007_199_254_740_992 : 0)
        case .text: return .text("")
        case .blob: return .blob(Data())
        case .date: return .date(Date(timeIntervalSince1970: 0))
        case .decimal: return .decimal(0)
        case .uuid: return .uuid(nilUUID)
        case .json: return .json("")
        }
    }

    private static let nilUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    private typealias Node = SQLExpression.Node

    private static func node(
        _ n: Node, _ value: (DatabaseValue) -> DatabaseValue, _ count: (Int) -> Int,
        _ pattern: ((String) -> String)?
    ) -> Node? {
        func each(_ items: [Node]) -> [Node]? {
            var out: [Node] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard let mapped = node(item, value, count, pattern) else { return nil }
                out.append(mapped)
            }
            return out
        }
        switch n {
        case .column, .joinedColumn, .constant, .unsafeRaw, .parameter: return n
        case .value(let v): return .value(value(v))
        case .compare(let op, let l, let r):
            guard let l = node(l, value, count, pattern), let r = node(r, value, count, pattern) else { return nil }
            return .compare(op, l, r)
        case .and(let items): return each(items).map { .and($0) }
        case .or(let items): return each(items).map { .or($0) }
        case .not(let e): return node(e, value, count, pattern).map { .not($0) }
        case .isNull(let e, let negated): return node(e, value, count, pattern).map { .isNull($0, negated: negated) }
        case .inList(let e, let values, let negated):
            // A long list may be bound as one array, whose SQL follows its values' kinds: not cached.
            guard values.count < ArrayInList.minimumCount, let e = node(e, value, count, pattern) else { return nil }
            return .inList(e, values.map(value), negated: negated)
        case .like(let e, let p, let caseInsensitive, let negated):
            guard let e = node(e, value, count, pattern) else { return nil }
            let mapped: String
            if let pattern {
                mapped = pattern(p)
            } else if case .text(let t) = value(.text(p)) {
                mapped = t
            } else {
                return nil
            }
            return .like(e, pattern: mapped, caseInsensitive: caseInsensitive, negated: negated)
        case .between(let e, let low, let high, let negated):
            guard let e = node(e, value, count, pattern), let low = node(low, value, count, pattern),
                let high = node(high, value, count, pattern)
            else { return nil }
            return .between(e, low: low, high: high, negated: negated)
        case .arithmetic(let op, let l, let r):
            guard let l = node(l, value, count, pattern), let r = node(r, value, count, pattern) else { return nil }
            return .arithmetic(op, l, r)
        case .concat(let l, let r):
            guard let l = node(l, value, count, pattern), let r = node(r, value, count, pattern) else { return nil }
            return .concat(l, r)
        case .caseMapped(let e, let upper): return node(e, value, count, pattern).map { .caseMapped($0, upper: upper) }
        case .coalesce(let items): return each(items).map { .coalesce($0) }
        case .inSubquery(let e, let s, let negated):
            guard let e = node(e, value, count, pattern), let s = map(s, value: value, count: count, pattern: pattern)
            else { return nil }
            return .inSubquery(e, s, negated: negated)
        case .scalarSubquery(let s):
            return map(s, value: value, count: count, pattern: pattern).map { .scalarSubquery($0) }
        case .correlatedExists(let s, let correlation, let negated):
            return map(s, value: value, count: count, pattern: pattern).map {
                .correlatedExists($0, correlation, negated: negated)
            }
        case .typed(let e, let type): return node(e, value, count, pattern).map { .typed($0, type) }
        case .jsonPath(let e, let path): return node(e, value, count, pattern).map { .jsonPath($0, path) }
        case .search, .searchRank: return nil
        }
    }
}
