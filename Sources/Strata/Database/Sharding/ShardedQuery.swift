// ShardedQuery: where a query over a ShardedDatabase runs: the one shard its WHERE pins, or every shard on request.

/// The executor of a query over a ``ShardedDatabase`` (`Order.query(on: sharded)`): the sharded database, and
/// whether the query may read every shard (``QueryBuilder/fanOut()``).
public struct ShardedQuery: Sendable {
    /// The sharded database the query runs on.
    public let database: ShardedDatabase
    /// Whether the query runs on every shard when its WHERE does not pin one.
    public internal(set) var fansOut = false
}

extension Model {
    /// A query over this model on a sharded database: on the shard its WHERE pins (see ``ShardedDatabase``),
    /// or on every shard after ``QueryBuilder/fanOut()``.
    ///
    /// - Parameter db: the sharded database.
    /// - Returns: the query.
    public static func query(on db: ShardedDatabase) -> QueryBuilder<Self, ShardedQuery> {
        QueryBuilder(executor: ShardedQuery(database: db))
    }
}

/// Where a sharded query runs.
enum ShardTarget: Equatable {
    case one(Int)
    case every
}

extension QueryBuilder where Executor == ShardedQuery {
    /// Runs the query on every shard when its WHERE does not pin the shard key to one, merging the rows in the
    /// query's ORDER BY order.
    ///
    /// ```swift
    /// let top = try await Order.query(on: sharded).fanOut()
    ///     .where(\.total > 100).order(\.total, .descending).order(\.reference).limit(10).all()
    /// ```
    ///
    /// Each shard runs the query with `LIMIT offset + limit` and no OFFSET; the sorted lists are merged (a k-way
    /// merge, NULLs first ascending and last descending, text by code point, numbers by value: the order every
    /// driver sorts in), and OFFSET and LIMIT are applied to the merged list. Rows that tie on every ORDER BY term
    /// come in shard order, so order by a unique column last for a stable page. Without ORDER BY the rows come
    /// shard by shard. `count`, `exists`, `sum`, `min` and `max` combine the shards' answers; `avg`, distinct
    /// counts, GROUP BY, DISTINCT, set operations, named queries, row locks and bulk `update`/`delete` are refused
    /// with ``StrataError/crossShard(model:reason:)`` (no two-phase commit makes a write on every shard atomic).
    /// The shards are read one after the other, each in its own autocommit read: the merged rows are not one
    /// snapshot.
    ///
    /// - Returns: the query, allowed to read every shard.
    public func fanOut() -> Self {
        var executor = self.executor
        executor.fansOut = true
        return rebound(to: executor)
    }

    /// The shard the query runs on, or every shard; `write` names a write, which must pin one shard.
    func target(write: String? = nil) throws -> ShardTarget {
        if let error { throw error }
        let db = executor.database
        guard let sharded = M.self as? any ShardedModel.Type else { return .one(try db.globalShard(for: M.self)) }
        if let pinned = try pinnedShard(sharded) { return .one(pinned) }
        if let write {
            throw StrataError.crossShard(
                model: M.modelName,
                reason: "\(write) must pin the shard key \(Self.keyName(sharded)) to one shard: a write on every "
                    + "shard cannot be all-or-nothing without two-phase commit (run it per shard on on(shard:))")
        }
        guard executor.fansOut else {
            throw StrataError.crossShard(
                model: M.modelName,
                reason: "the query does not pin the shard key \(Self.keyName(sharded)) to one shard: "
                    + "add where(\\.key == value) (or an IN list of one shard), or ask fanOut() to read every shard")
        }
        return .every
    }

    private static func keyName<S: ShardedModel>(_: S.Type) -> String { S.shardKeyColumn ?? "?" }

    /// The one shard the WHERE's top-level AND terms pin the key to, or nil when they pin none (or several).
    private func pinnedShard<S: ShardedModel>(_: S.Type) throws -> Int? {
        guard let column = S.shardKeyColumn else {
            throw StrataError.crossShard(model: S.modelName, reason: "its shardKey is not a stored column")
        }
        let count = executor.database.count
        var shards: Set<Int>?
        for term in filters.flatMap({ Self.conjuncts($0.node) }) {
            guard let values = Self.pinnedValues(term, column: column) else { continue }
            var here: Set<Int> = []
            for value in values { here.insert(try ShardRouter.shard(for: value, count: count)) }
            shards = shards.map { $0.intersection(here) } ?? here
        }
        guard let shards else { return nil }
        // No shard can hold a row (an empty IN list, two keys ANDed): any one answers, with no rows.
        if shards.isEmpty { return 0 }
        return shards.count == 1 ? shards.first : nil
    }

    private static func conjuncts(_ node: SQLExpression.Node) -> [SQLExpression.Node] {
        if case .and(let items) = node { return items.flatMap(conjuncts) }
        return [node]
    }

    /// The key values a term allows, when it is `key = value` or `key IN (values)`.
    private static func pinnedValues(_ term: SQLExpression.Node, column: String) -> [DatabaseValue]? {
        switch term {
        case .compare(.equal, .column(column), .value(let v)), .compare(.equal, .value(let v), .column(column)):
            return [v]
        case .inList(.column(column), let values, negated: false):
            return values
        default:
            return nil
        }
    }

    /// Refuses what cannot run on every shard and be combined.
    func checkFanOut(_ what: String) throws {
        var refused: String?
        if grouping.isGrouped { refused = "group(by:) and having" }
        if grouping.distinct { refused = "distinct()" }
        if compound != nil { refused = "a set operation" }
        if commonTable != nil { refused = "a named query" }
        if lock != nil { refused = "a row lock" }
        if let refused {
            throw StrataError.crossShard(model: M.modelName, reason: "\(what) with \(refused) does not fan out")
        }
    }

    /// The query on shard `index`'s database.
    func onShard(_ index: Int) -> QueryBuilder<M, Database> { rebound(to: executor.database.shards[index]) }
}
