// ShardedModel: a model whose rows are spread over the shards of a ShardedDatabase by one of its columns.

/// A model whose rows live on the shard their shard key's value maps to (see ``ShardRouter``).
///
/// ```swift
/// @Model
/// struct Order {
///     var id: Int64?
///     var customerID: Int64
///     var total: Int
/// }
/// extension Order: ShardedModel {
///     static var shardKey: KeyPath<Order, Int64> { \.customerID }
/// }
/// ```
///
/// Every row of one customer is on one shard, so a query pinned to a customer runs on one server, and
/// the rows a customer's transaction writes commit together. Choose a key the queries name: a query that
/// does not pin it is refused unless it asks to read every shard (``QueryBuilder/fanOut()``). Ids are given by
/// each shard's own sequence, so two shards can hold the same id: a row is found by its id *and* its shard
/// key (``ShardedModel/find(_:shardKey:on:)``), or give the model a `UUID` key.
public protocol ShardedModel: Model {
    /// The type of the shard key: an integer type, `String`, `UUID` or `Data` (or a type stored as one of them).
    associatedtype ShardKey: DatabaseValueConvertible
    /// The property whose value picks the row's shard; it must be a stored column.
    static var shardKey: KeyPath<Self, ShardKey> { get }
}

extension ShardedModel {
    /// The shard key's column name, or nil when the key path is not a stored column.
    static var shardKeyColumn: String? { columnName(for: shardKey) }
    /// The model's shard key as stored.
    var shardKeyValue: DatabaseValue { self[keyPath: Self.shardKey].databaseValue }
}
