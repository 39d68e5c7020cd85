// Model+Sharding: save, delete and find on a ShardedDatabase, each on the one shard of the model's key.

extension Model {
    /// Saves the model on its shard: the shard of its shard key (see ``ShardedModel``), or the global shard for an
    /// unsharded model.
    ///
    /// ```swift
    /// var order = Order(customerID: 42, total: 10)
    /// try await order.save(on: sharded)          // INSERT on the shard of customer 42; order.id is set
    /// ```
    ///
    /// It is ``save(on:insertIfMissing:)`` on that shard's database: validation, callbacks and the write run
    /// in one transaction there, and callbacks that write other models write them on the same shard. A save that
    /// throws leaves the model as it was and every shard as it was.
    ///
    /// A saved model whose shard key was assigned is refused, since its row is on the old key's shard: delete it
    /// and save a copy with a nil id to move it.
    ///
    /// - Parameters:
    ///   - db: the sharded database.
    ///   - insertIfMissing: as in ``save(_:insertIfMissing:)``.
    /// - Throws: ``StrataError/crossShard(model:reason:)`` (an assigned shard key of a saved model, an unsharded
    ///   model with no global shard), ``StrataError/invalidValue(table:column:reason:)`` (a key that cannot be
    ///   routed), and what ``save(on:insertIfMissing:)`` throws.
    nonisolated(nonsending)
        public mutating func save(on db: ShardedDatabase, insertIfMissing: Bool = false) async throws
    {
        try checkShardKeyNotMoved()
        try await save(on: db.shards[db.shard(of: self)], insertIfMissing: insertIfMissing)
    }

    /// Deletes the model's row on its shard (see ``delete(on:)-(Database)``).
    ///
    /// - Parameter db: the sharded database.
    /// - Returns: whether a row was deleted.
    /// - Throws: ``StrataError/crossShard(model:reason:)`` and what ``delete(_:)`` throws.
    @discardableResult
    nonisolated(nonsending)
        public func delete(on db: ShardedDatabase) async throws -> Bool
    {
        try checkShardKeyNotMoved()
        return try await delete(on: db.shards[db.shard(of: self)])
    }

    /// Fetches an unsharded model by id from the global shard.
    ///
    /// A ``ShardedModel`` is refused: its id alone does not say which shard holds it; use
    /// ``ShardedModel/find(_:shardKey:on:)``.
    ///
    /// - Parameters:
    ///   - id: the primary key.
    ///   - db: the sharded database.
    /// - Returns: the model, or nil.
    /// - Throws: ``StrataError/crossShard(model:reason:)`` for a sharded model, or an unsharded one with no global
    ///   shard.
    nonisolated(nonsending)
        public static func find(_ id: ID, on db: ShardedDatabase) async throws -> Self?
    {
        if Self.self is any ShardedModel.Type {
            throw StrataError.crossShard(
                model: modelName, reason: "find by id alone would search every shard; pass its shardKey:")
        }
        return try await find(id, on: db.shards[db.globalShard(for: Self.self)])
    }

    /// Refuses a saved model whose shard key was assigned since it was read or saved (its row is elsewhere).
    func checkShardKeyNotMoved() throws(StrataError) {
        guard let sharded = self as? any ShardedModel else { return }
        try Self.checkKeyNotMoved(sharded)
    }

    private static func checkKeyNotMoved<S: ShardedModel>(_ model: S) throws(StrataError) {
        guard model.id != nil, let state = model._persistence, state.isStored,
            let column = S.shardKeyColumn, let index = S.schema.index(of: column), state.isChanged(index)
        else { return }
        throw .crossShard(
            model: S.modelName,
            reason: "the shard key \(column) of a saved model was assigned; its row stays on its old shard "
                + "(delete it and save a copy with a nil id to move it)")
    }
}

extension ShardedModel {
    /// Fetches the model with this id from the shard of `shardKey`.
    ///
    /// ```swift
    /// let order = try await Order.find(7, shardKey: Int64(42), on: sharded)
    /// ```
    ///
    /// - Parameters:
    ///   - id: the primary key.
    ///   - shardKey: the row's shard key.
    ///   - db: the sharded database.
    /// - Returns: the model, or nil (also when the row with this id on that shard has another shard key).
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` for a key that cannot be routed, and what
    ///   ``Model/find(_:on:)-(_,Database)`` throws.
    nonisolated(nonsending)
        public static func find(_ id: ID, shardKey: ShardKey, on db: ShardedDatabase) async throws -> Self?
    {
        let found = try await find(id, on: db.shards[db.shard(for: shardKey)])
        guard let found, ShardedDatabase.sameKey(found.shardKeyValue, shardKey.databaseValue) else { return nil }
        return found
    }
}

extension ShardedDatabase {
    /// Whether two key values are the same key (the same canonical bytes).
    static func sameKey(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
        guard let x = try? ShardRouter.canonicalBytes(a), let y = try? ShardRouter.canonicalBytes(b) else {
            return false
        }
        return x == y
    }
}
