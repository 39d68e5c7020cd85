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
    package static func key(of select: Select) -> Select? {
        map(select, value: standIn, count: { _ in 0 })
    }

    /// `select` with each value the renderer only binds passed through `value`, and each LIMIT, OFFSET and recursion
    /// bound through `count`; nil for a statement that is not cached. The key is this with ``standIn(_:)``; tests
    /// make other statements of the same shape with it.
    package static func map(
        _ select: Select, value: (DatabaseValue) -> DatabaseValue, count: (Int) -> Int
    ) -> Select? {
        var s = select
        s.streamsRows = false  // not part of the SQL
        if let w = s.commonTable {
            guard let base = map(w.select, value: value, count: count) else { return nil }
            if let step = w.step, var r = w.recursion {
                guard let mappedStep = map(step, value: value, count: count) else { return nil }
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
            guard let first = map(c.first, value: value, count: count) else { return nil }
            c.first = first
            for i in c.rest.indices {
                guard let branch = map(c.rest[i].select, value: value, count: count) else { return nil }
                c.rest[i].select = branch
            }
            s.compound = c
        }
        for i in s.joins.indices {
            guard let on = node(s.joins[i].on.node, value, count) else { return nil }
            s.joins[i].on = SQLExpression(on)
        }
        if let f = s.filter {
            guard let mapped = node(f.node, value, count) else { return nil }
            s.filter = SQLExpression(mapped)
        }
        for i in s.order.indices {
            guard let e = s.order[i].expression else { continue }
            guard let mapped = node(e.node, value, count) else { return nil }
            s.order[i].expression = SQLExpression(mapped)
        }
        s.limit = s.limit.map(count)
        s.offset = s.offset.map(count)
        return s
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

    private static func node(_ n: Node, _ value: (DatabaseValue) -> DatabaseValue, _ count: (Int) -> Int) -> Node? {
        func each(_ items: [Node]) -> [Node]? {
            var out: [Node] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard let mapped = node(item, value, count) else { return nil }
                out.append(mapped)
            }
            return out
        }
        switch n {
        case .column, .joinedColumn, .constant, .unsafeRaw: return n
        case .value(let v): return .value(value(v))
        case .compare(let op, let l, let r):
            guard let l = node(l, value, count), let r = node(r, value, count) else { return nil }
            return .compare(op, l, r)
        case .and(let items): return each(items).map { .and($0) }
        case .or(let items): return each(items).map { .or($0) }
        case .not(let e): return node(e, value, count).map { .not($0) }
        case .isNull(let e, let negated): return node(e, value, count).map { .isNull($0, negated: negated) }
        case .inList(let e, let values, let negated):
            // A long list may be bound as one array, whose SQL follows its values' kinds: not cached.
            guard values.count < ArrayInList.minimumCount, let e = node(e, value, count) else { return nil }
            return .inList(e, values.map(value), negated: negated)
        case .like(let e, let pattern, let caseInsensitive, let negated):
            guard let e = node(e, value, count), case .text(let p) = value(.text(pattern)) else { return nil }
            return .like(e, pattern: p, caseInsensitive: caseInsensitive, negated: negated)
        case .between(let e, let low, let high, let negated):
            guard let e = node(e, value, count), let low = node(low, value, count), let high = node(high, value, count)
            else { return nil }
            return .between(e, low: low, high: high, negated: negated)
        case .arithmetic(let op, let l, let r):
            guard let l = node(l, value, count), let r = node(r, value, count) else { return nil }
            return .arithmetic(op, l, r)
        case .concat(let l, let r):
            guard let l = node(l, value, count), let r = node(r, value, count) else { return nil }
            return .concat(l, r)
        case .caseMapped(let e, let upper): return node(e, value, count).map { .caseMapped($0, upper: upper) }
        case .coalesce(let items): return each(items).map { .coalesce($0) }
        case .inSubquery(let e, let s, let negated):
            guard let e = node(e, value, count), let s = map(s, value: value, count: count) else { return nil }
            return .inSubquery(e, s, negated: negated)
        case .scalarSubquery(let s): return map(s, value: value, count: count).map { .scalarSubquery($0) }
        case .correlatedExists(let s, let correlation, let negated):
            return map(s, value: value, count: count).map { .correlatedExists($0, correlation, negated: negated) }
        case .typed(let e, let type): return node(e, value, count).map { .typed($0, type) }
        case .jsonPath(let e, let path): return node(e, value, count).map { .jsonPath($0, path) }
        case .search, .searchRank: return nil
        }
    }
}
