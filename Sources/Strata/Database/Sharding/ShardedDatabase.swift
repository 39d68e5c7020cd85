// ShardedDatabase: N databases, each holding the rows of the shard keys that map to it; routes by key.

/// A set of databases (shards) over which the rows of each ``ShardedModel`` are spread by their shard key: every
/// save, delete, find and query goes to the one shard the key maps to (see ``ShardRouter``), the way Rails'
/// `connects_to shards:` routes by a key the app chooses, with no distributed engine underneath.
///
/// ```swift
/// let sharded = try ShardedDatabase(shards: [
///     try Database.open("postgres://db1/app"), try Database.open("postgres://db2/app"),
/// ], globalShard: 0)
/// try await sharded.migrate(Order.self, Country.self)              // every shard
/// var order = Order(customerID: 42, total: 10)
/// try await order.save(on: sharded)                                 // the shard of customer 42
/// let mine = try await Order.query(on: sharded).where(\.customerID == 42).all()          // that shard only
/// let top = try await Order.query(on: sharded).fanOut().order(\.total, .descending).limit(10).all()  // all
/// ```
///
/// - Queries: one whose WHERE pins the shard key to one value (`==`, or an IN list whose values all map to one
///   shard), ANDed with anything else, runs on that shard; any other throws ``StrataError/crossShard(model:reason:)``
///   unless it asks ``QueryBuilder/fanOut()``: then it runs on every shard and the rows are merged in the
///   query's ORDER BY order (NULLs first ascending, text by code point: the order every driver sorts in), with
///   LIMIT and OFFSET applied after the merge.
/// - Models that are not ``ShardedModel`` (reference data, settings) live on the `globalShard`; with none, their
///   writes and queries throw ``StrataError/crossShard(model:reason:)``.
/// - Transactions are on one shard (``transaction(shard:_:)``); there is no two-phase commit, so a write spanning
///   shards cannot be all-or-nothing and is refused.
/// - The shards can be any drivers: memory or SQLite files in an app's tests, PostgreSQL servers in production.
public final class ShardedDatabase: Sendable {
    /// The shards, in routing order: the shard a key maps to is an index into this array, so its order is part of
    /// the data's layout (append new shards at the end, and move the rows whose shard changed).
    public let shards: [Database]
    /// The shard that holds the models that are not ``ShardedModel``, or nil to refuse them.
    public let globalShard: Int?

    /// Makes a sharded database over `shards`.
    ///
    /// - Parameters:
    ///   - shards: the databases, at least one; their order decides where each key lives.
    ///   - globalShard: the index of the shard for unsharded models, or nil to refuse them.
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` naming `shards` (none given) or `globalShard` (out of
    ///   range).
    public init(shards: [Database], globalShard: Int? = nil) throws(StrataError) {
        guard !shards.isEmpty else { throw .invalidArgument("shards", reason: "a sharded database needs a shard") }
        if let globalShard, !shards.indices.contains(globalShard) {
            throw .invalidArgument("globalShard", reason: "\(globalShard) is not a shard index (0..<\(shards.count))")
        }
        self.shards = shards
        self.globalShard = globalShard
    }

    /// The number of shards.
    public var count: Int { shards.count }

    /// The shard that holds rows whose shard key is `key`.
    ///
    /// - Parameter key: a shard key's value.
    /// - Returns: its shard's index.
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` for a value that cannot be a key (see
    ///   ``ShardRouter``).
    public func shard(for key: some DatabaseValueConvertible) throws(StrataError) -> Int {
        try ShardRouter.shard(for: key.databaseValue, count: shards.count)
    }

    /// The database of shard `index`: the escape hatch for work the router cannot place (a report over one shard,
    /// a backfill). What runs on it is not checked against the shard keys.
    ///
    /// - Parameter index: a shard's index.
    /// - Returns: that shard's database.
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` naming `shard` when out of range.
    public func on(shard index: Int) throws(StrataError) -> Database {
        guard shards.indices.contains(index) else {
            throw .invalidArgument("shard", reason: "\(index) is not a shard index (0..<\(shards.count))")
        }
        return shards[index]
    }

    /// The shard that holds `model`'s row: its shard key's, or the global shard for an unsharded model.
    ///
    /// - Parameter model: a model.
    /// - Returns: its shard's index.
    /// - Throws: ``StrataError/crossShard(model:reason:)`` for an unsharded model with no global shard, or a shard
    ///   key that is not a stored column; ``StrataError/invalidValue(table:column:reason:)`` for a key value that
    ///   cannot be routed.
    public func shard<M: Model>(of model: M) throws(StrataError) -> Int {
        guard let sharded = model as? any ShardedModel else { return try globalShard(for: M.self) }
        return try route(sharded)
    }

    private func route<S: ShardedModel>(_ model: S) throws(StrataError) -> Int {
        guard let column = S.shardKeyColumn else {
            throw .crossShard(model: S.modelName, reason: "its shardKey is not a stored column")
        }
        do throws(StrataError) {
            return try ShardRouter.shard(for: model.shardKeyValue, count: shards.count)
        } catch {
            guard case .invalidValue(_, _, let reason) = error else { throw error }
            throw .invalidValue(table: S.schema.name, column: column, reason: reason)
        }
    }

    /// The global shard, for a model that is not sharded.
    func globalShard(for model: any Model.Type) throws(StrataError) -> Int {
        guard let globalShard else {
            throw .crossShard(
                model: model.modelName,
                reason: "it is not a ShardedModel and the sharded database has no globalShard for unsharded models")
        }
        return globalShard
    }

    /// Closes every shard.
    public func close() { for shard in shards { shard.close() } }
}
