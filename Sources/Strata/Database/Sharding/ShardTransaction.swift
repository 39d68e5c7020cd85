// ShardTransaction: a transaction on one shard, which refuses writes and queries that belong to another.

/// A transaction on one shard of a ``ShardedDatabase`` (see ``ShardedDatabase/transaction(shard:_:)``): all of
/// it commits on that shard, or none of it.
///
/// ```swift
/// try await sharded.transaction(routedBy: Int64(42)) { stx in
///     var order = Order(customerID: 42, total: 10)
///     try stx.save(&order)                                          // customer 42's shard: fine
///     let mine = try stx.query(Order.self, key: Int64(42)).all()
///     var other = Order(customerID: 7, total: 1)
///     try stx.save(&other)     // another shard: throws StrataError.crossShard, and the transaction rolls back
/// }
/// ```
///
/// There is no two-phase commit: a transaction never spans shards. Through ``transaction`` (the plain
/// ``Transaction`` of the shard) anything runs on this shard unchecked.
public struct ShardTransaction {
    /// The shard this transaction runs on.
    public let shard: Int
    /// The shard's own transaction: what runs through it is not checked against the shard keys.
    public let transaction: Transaction
    let database: ShardedDatabase

    /// Saves a model of this shard (see ``Model/save(_:insertIfMissing:)``).
    ///
    /// - Parameters:
    ///   - model: the model; its shard key must map to this shard.
    ///   - insertIfMissing: as in ``Model/save(_:insertIfMissing:)``.
    /// - Throws: ``StrataError/crossShard(model:reason:)`` for a model of another shard (nothing written, the model
    ///   unchanged), and what ``Model/save(_:insertIfMissing:)`` throws.
    public func save<M: Model>(_ model: inout M, insertIfMissing: Bool = false) throws {
        try check(model)
        try model.save(transaction, insertIfMissing: insertIfMissing)
    }

    /// Deletes a model of this shard (see ``Model/delete(_:)``).
    ///
    /// - Parameter model: the model; its shard key must map to this shard.
    /// - Returns: whether a row was deleted.
    /// - Throws: ``StrataError/crossShard(model:reason:)`` for a model of another shard, and what
    ///   ``Model/delete(_:)`` throws.
    @discardableResult
    public func delete<M: Model>(_ model: M) throws -> Bool {
        try check(model)
        return try model.delete(transaction)
    }

    /// A query over the rows of `key` (`WHERE shardKey = key`), which must be on this shard.
    ///
    /// - Parameters:
    ///   - type: the sharded model.
    ///   - key: a shard key of this shard.
    /// - Returns: the query, pinned to `key`.
    /// - Throws: ``StrataError/crossShard(model:reason:)`` for a key of another shard.
    public func query<M: ShardedModel>(_ type: M.Type, key: M.ShardKey) throws -> QueryBuilder<M, Transaction> {
        let target = try database.shard(for: key)
        guard target == shard else { throw misplaced(M.self, on: target) }
        return M.query(on: transaction).where(M.shardKey == key)
    }

    /// A query over an unsharded model, which this shard must hold (it is the global shard).
    ///
    /// - Parameter type: the unsharded model.
    /// - Returns: the query.
    /// - Throws: ``StrataError/crossShard(model:reason:)`` for a sharded model (use ``query(_:key:)``) or when
    ///   this is not the global shard.
    public func query<M: Model>(_ type: M.Type) throws -> QueryBuilder<M, Transaction> {
        if M.self is any ShardedModel.Type {
            throw StrataError.crossShard(model: M.modelName, reason: "a query in a shard transaction names its key")
        }
        let target = try database.globalShard(for: M.self)
        guard target == shard else { throw misplaced(M.self, on: target) }
        return M.query(on: transaction)
    }

    private func check<M: Model>(_ model: M) throws {
        try model.checkShardKeyNotMoved()
        let target = try database.shard(of: model)
        guard target == shard else { throw misplaced(M.self, on: target) }
    }

    private func misplaced(_ model: any Model.Type, on target: Int) -> StrataError {
        .crossShard(
            model: model.modelName,
            reason: "the transaction is on shard \(shard) and the row belongs to shard \(target) "
                + "(no two-phase commit: a transaction stays on one shard)")
    }
}

extension ShardedDatabase {
    /// Runs `body` in a transaction on shard `shard`: all of it commits there, or none of it (see
    /// ``Database/transaction(_:)``).
    ///
    /// - Parameters:
    ///   - shard: the shard's index.
    ///   - body: the work; writes to another shard's models throw ``StrataError/crossShard(model:reason:)``.
    /// - Returns: what `body` returns.
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` for a shard out of range, and what `body` throws (the
    ///   transaction is rolled back).
    nonisolated(nonsending)
        public func transaction<T>(shard: Int, _ body: (ShardTransaction) throws -> T) async throws -> T
    {
        let db = try on(shard: shard)
        return try await db.transaction { tx in
            try body(ShardTransaction(shard: shard, transaction: tx, database: self))
        }
    }

    /// Runs `body` in a transaction on the shard of `key` (see ``transaction(shard:_:)``).
    ///
    /// - Parameters:
    ///   - key: a shard key's value.
    ///   - body: the work.
    /// - Returns: what `body` returns.
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` for a key that cannot be routed, and what
    ///   `body` throws.
    nonisolated(nonsending)
        public func transaction<T>(routedBy key: some DatabaseValueConvertible, _ body: (ShardTransaction) throws -> T)
        async throws -> T
    {
        try await transaction(shard: shard(for: key), body)
    }

    /// Migrates the models' tables on every shard, one shard after the other, each in one transaction (see
    /// `Database.migrate(_:)`). Every shard holds every table, the unsharded models' too (empty but on the
    /// global shard), so a shard can become the global one and the conformance suite runs on each.
    ///
    /// - Parameter models: the models.
    /// - Throws: ``StrataError/shardMigrationIncomplete(failedShard:migrated:reason:)`` when a shard fails: it
    ///   names that shard and those migrated before it; the later ones were not touched.
    nonisolated(nonsending)
        public func migrate(_ models: any Model.Type...) async throws
    {
        for (index, shard) in shards.enumerated() {
            do {
                try await shard.transaction { tx in try tx.migrate(models) }
            } catch {
                throw StrataError.shardMigrationIncomplete(
                    failedShard: index, migrated: Array(0..<index), reason: "\(error)")
            }
        }
    }
}
