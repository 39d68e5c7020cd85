// ShardMerge: combines the shards' answers to a fanned-out query: a k-way merge in ORDER BY order, summed sums.
import Foundation

/// The merge of the sorted lists that the shards return for one fanned-out query, and the combination of their
/// aggregates.
enum ShardMerge {
    /// One ORDER BY term, read from a model's ``Model/databaseValues``.
    struct SortKey {
        let index: Int
        let descending: Bool
    }

    /// The sort keys of `order`, each a selected column of the model's table.
    ///
    /// - Throws: ``StrataError/crossShard(model:reason:)`` for a term the merge cannot read from the models: an
    ///   expression, an aggregate, a joined table's column, or a column the query does not select.
    static func sortKeys<M: Model>(_: M.Type, order: [Ordering], selected: [String]?) throws -> [SortKey] {
        try order.map { term in
            let refuse = { (why: String) in
                StrataError.crossShard(model: M.modelName, reason: "a fanned-out query cannot merge by \(why)")
            }
            if term.expression != nil { throw refuse("an expression") }
            if term.aggregate != nil { throw refuse("an aggregate") }
            if let table = term.table { throw refuse("a column of the joined \(table)") }
            guard let index = M.schema.index(of: term.column), selected?.contains(term.column) ?? true else {
                throw refuse("\(term.column), which it does not select")
            }
            return SortKey(index: index, descending: term.direction == .descending)
        }
    }

    /// The shards' lists, each sorted by `keys`, merged into one sorted list; ties keep shard order. With no keys,
    /// the lists one after the other. Each step takes the least head of the lists: at most `lists.count`
    /// comparisons per row.
    static func merge<M: Model>(_ lists: [[M]], keys: [SortKey]) -> [M] {
        guard !keys.isEmpty, lists.count > 1 else { return lists.flatMap { $0 } }
        let values = lists.map { list in list.map { model in keys.map { model.databaseValues[$0.index] } } }
        var heads = Array(repeating: 0, count: lists.count)
        var out: [M] = []
        let total = lists.reduce(0) { $0 + $1.count }
        out.reserveCapacity(total)
        for _ in 0..<total {
            var best: Int?
            for list in lists.indices where heads[list] < lists[list].count {
                guard let b = best else {
                    best = list
                    continue
                }
                if precedes(values[list][heads[list]], values[b][heads[b]], keys) { best = list }
            }
            guard let best else { break }
            out.append(lists[best][heads[best]])
            heads[best] += 1
        }
        return out
    }

    /// Whether row `a` sorts strictly before row `b`.
    private static func precedes(_ a: [DatabaseValue], _ b: [DatabaseValue], _ keys: [SortKey]) -> Bool {
        for (i, key) in keys.enumerated() {
            let order = compare(a[i], b[i])
            if order != 0 { return key.descending ? order > 0 : order < 0 }
        }
        return false
    }

    /// -1, 0 or 1 as `a` sorts before, with, or after `b` ascending, in the order every driver sorts in (the memory
    /// driver's `ValueOrder`, SQLite's BINARY, PostgreSQL's `COLLATE "C"`): NULL first; numbers (booleans as 0 and
    /// 1) by value, NaN last; text and JSON by code point (UTF-8 bytes); dates by time; UUIDs and bytes bytewise.
    static func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.text(let x), .text(let y)), (.json(let x), .json(let y)): return bytes(Array(x.utf8), Array(y.utf8))
        case (.date(let x), .date(let y)): return sign(x.timeIntervalSince1970, y.timeIntervalSince1970)
        case (.uuid(let x), .uuid(let y)):
            return withUnsafeBytes(of: x.uuid) { p in withUnsafeBytes(of: y.uuid) { q in bytes(Array(p), Array(q)) } }
        case (.blob(let x), .blob(let y)): return bytes(Array(x), Array(y))
        case (.integer(let x), .integer(let y)): return sign(x, y)
        case (.decimal(let x), .decimal(let y)): return sign(x, y)
        default:
            guard let x = number(a), let y = number(b) else { return 0 }
            if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? 0 : (x.isNaN ? 1 : -1) }
            return sign(x, y)
        }
    }

    private static func number(_ v: DatabaseValue) -> Double? {
        switch v {
        case .integer(let i): Double(i)
        case .double(let d): d
        case .bool(let b): b ? 1 : 0
        case .decimal(let d): Double("\(d)")
        default: nil
        }
    }

    private static func bytes(_ x: [UInt8], _ y: [UInt8]) -> Int {
        x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
    }

    private static func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }

    /// The least (or greatest) of the shards' `min` (or `max`) answers, in the order of ``compare(_:_:)``.
    static func extreme<V: DatabaseValueConvertible>(_ answers: [V], smallest: Bool) -> V? {
        answers.reduce(nil) { best, value in
            guard let best else { return value }
            let order = compare(value.databaseValue, best.databaseValue)
            return (smallest ? order < 0 : order > 0) ? value : best
        }
    }

    /// Two shards' sums added, as the single-database sum would be: `Int64` checked for overflow.
    ///
    /// - Throws: ``StrataError/arithmeticError(expression:reason:)`` when the total overflows.
    static func add(_ a: DatabaseValue, _ b: DatabaseValue, model: String) throws -> DatabaseValue {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            let (total, overflow) = x.addingReportingOverflow(y)
            guard !overflow else {
                throw StrataError.arithmeticError(expression: "sum over \(model)", reason: "integer overflow")
            }
            return .integer(total)
        case (.double(let x), .double(let y)): return .double(x + y)
        case (.decimal(let x), .decimal(let y)): return .decimal(x + y)
        default:
            throw StrataError.invalidAggregate(
                model: model, column: "sum", reason: "the shards' sums are not of one numeric type")
        }
    }
}
