// ShardedQuery+Run: the terminal calls of a sharded query: on its pinned shard, or on every shard and combined.

extension QueryBuilder where Executor == ShardedQuery {
    /// All matching models: from the pinned shard, or merged from every shard (see ``fanOut()``).
    ///
    /// - Throws: ``StrataError/crossShard(model:reason:)`` for a query that pins no shard and does not fan out,
    ///   or that fans out with an order the merge cannot follow; what the shards' queries throw.
    nonisolated(nonsending) public func all() async throws -> [M] {
        switch try target() {
        case .one(let shard): return try await onShard(shard).all()
        case .every: return try await mergedAll(limit: limit)
        }
    }

    /// The first matching model, or nil (see `all()`).
    nonisolated(nonsending) public func first() async throws -> M? {
        switch try target() {
        case .one(let shard): return try await onShard(shard).first()
        case .every: return try await mergedAll(limit: Swift.min(limit ?? 1, 1)).first
        }
    }

    /// The values of one column of the matching rows: from the pinned shard, or read from the models merged from
    /// every shard, in the query's order (see `all()`).
    nonisolated(nonsending) public func values<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V> & Sendable) async throws
        -> [V]
    {
        switch try target() {
        case .one(let shard): return try await onShard(shard).values(kp)
        case .every: return try await mergedAll(limit: limit).map { $0[keyPath: kp] }
        }
    }

    /// The number of matching rows, as on one database (LIMIT and OFFSET count): over every shard when it fans out,
    /// the shards' counts without LIMIT and OFFSET, summed, then OFFSET and LIMIT applied to the total.
    nonisolated(nonsending) public func count() async throws -> Int {
        switch try target() {
        case .one(let shard): return try await onShard(shard).count()
        case .every:
            try checkFanOut("count()")
            let remaining = Swift.max(0, try await unpagedTotal() - (offset ?? 0))
            return limit.map { Swift.min($0, remaining) } ?? remaining
        }
    }

    /// Whether any row matches (past the OFFSET, as on one database), on the pinned shard or on any shard.
    nonisolated(nonsending) public func exists() async throws -> Bool {
        switch try target() {
        case .one(let shard): return try await onShard(shard).exists()
        case .every:
            try checkFanOut("exists()")
            return try await unpagedTotal() > (offset ?? 0)
        }
    }

    /// The rows matching on every shard, without LIMIT and OFFSET (which are checked first).
    nonisolated(nonsending) private func unpagedTotal() async throws -> Int {
        try StatementCheck.check(.select(selectStatement()))  // a negative LIMIT or OFFSET, say
        var total = 0
        for shard in executor.database.shards.indices {
            var q = onShard(shard)
            q.limit = nil
            q.offset = nil
            total += try await q.count()
        }
        return total
    }

    /// The sum of a column: the shards' sums added (in `Int64` with an overflow check, or `Double`, or
    /// `Decimal`), nil when no shard has a value.
    ///
    /// - Throws: ``StrataError/arithmeticError(expression:reason:)`` when the total overflows `Int64`.
    nonisolated(nonsending) public func sum<V: SummableColumn>(_ kp: KeyPath<M, V> & Sendable) async throws -> V.Sum? {
        switch try target() {
        case .one(let shard): return try await onShard(shard).sum(kp)
        case .every:
            try checkFanOut("sum(_:)")
            var total: DatabaseValue?
            for shard in executor.database.shards.indices {
                guard let part = try await onShard(shard).sum(kp)?.databaseValue else { continue }
                total = try total.map { try ShardMerge.add($0, part, model: M.modelName) } ?? part
            }
            return try total.map { try V.Sum(databaseValue: $0) }
        }
    }

    /// The average of a column on the pinned shard. Across shards it is refused: combine `sum(_:)` and
    /// `count()` instead, which weighs each shard by its rows.
    ///
    /// - Throws: ``StrataError/crossShard(model:reason:)`` when the query fans out.
    nonisolated(nonsending) public func avg<V: SummableColumn>(_ kp: KeyPath<M, V> & Sendable) async throws -> Double? {
        switch try target() {
        case .one(let shard): return try await onShard(shard).avg(kp)
        case .every:
            throw StrataError.crossShard(
                model: M.modelName, reason: "avg across shards is refused: compute it from sum(_:) and count()")
        }
    }

    /// What `read` answers on the pinned shard, or the smallest (or largest) of its answers on every shard when the
    /// query fans out (NULLs left out, as SQL's MIN and MAX do).
    nonisolated(nonsending) private func extreme<V: DatabaseValueConvertible>(
        _ name: String, smallest: Bool, _ read: nonisolated(nonsending) (QueryBuilder<M, Database>) async throws -> V?
    ) async throws -> V? {
        switch try target() {
        case .one(let shard): return try await read(onShard(shard))
        case .every:
            try checkFanOut(name)
            var answers: [V] = []
            for shard in executor.database.shards.indices {
                if let value = try await read(onShard(shard)) { answers.append(value) }
            }
            return ShardMerge.extreme(answers, smallest: smallest)
        }
    }

    /// The smallest value of a column, over every shard when it fans out.
    nonisolated(nonsending) public func min<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V> & Sendable) async throws
        -> V?
    {
        try await extreme("min(_:)", smallest: true) { try await $0.min(kp) }
    }

    /// The smallest value of an optional column, nil when all are NULL.
    nonisolated(nonsending) public func min<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?> & Sendable) async throws
        -> V?
    {
        try await extreme("min(_:)", smallest: true) { try await $0.min(kp) }
    }

    /// The largest value of a column, over every shard when it fans out.
    nonisolated(nonsending) public func max<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V> & Sendable) async throws
        -> V?
    {
        try await extreme("max(_:)", smallest: false) { try await $0.max(kp) }
    }

    /// The largest value of an optional column, nil when all are NULL.
    nonisolated(nonsending) public func max<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?> & Sendable) async throws
        -> V?
    {
        try await extreme("max(_:)", smallest: false) { try await $0.max(kp) }
    }

    /// Deletes the matching rows of the pinned shard; returns how many.
    ///
    /// - Throws: ``StrataError/crossShard(model:reason:)`` when the query pins no shard, fanned out or not: a
    ///   delete on every shard could not be all-or-nothing (no two-phase commit); run it per shard on
    ///   ``ShardedDatabase/on(shard:)``.
    @discardableResult
    nonisolated(nonsending) public func delete() async throws -> Int {
        try await onShard(pinnedForWrite("delete()")).delete()
    }

    /// Applies the ``set(_:to:)-(_,V)`` assignments to the matching rows of the pinned shard; returns how many.
    ///
    /// - Throws: ``StrataError/crossShard(model:reason:)`` when the query pins no shard (see `delete()`), or
    ///   when it assigns the shard key (the rows would belong elsewhere).
    @discardableResult
    nonisolated(nonsending) public func update() async throws -> Int {
        if let sharded = M.self as? any ShardedModel.Type, let key = Self.keyColumn(sharded),
            assignments.contains(where: { $0.column == key })
        {
            throw StrataError.crossShard(model: M.modelName, reason: "update() assigns the shard key \(key)")
        }
        return try await onShard(pinnedForWrite("update()")).update()
    }

    private static func keyColumn<S: ShardedModel>(_: S.Type) -> String? { S.shardKeyColumn }

    private func pinnedForWrite(_ what: String) throws -> Int {
        guard case .one(let shard) = try target(write: what) else { return 0 }  // target(write:) never says .every
        return shard
    }

    /// Every shard's rows, merged in ORDER BY order, with OFFSET and then `limit` applied.
    nonisolated(nonsending) private func mergedAll(limit: Int?) async throws -> [M] {
        try checkFanOut("all()")
        try StatementCheck.check(.select(selectStatement(limit: limit)))  // a negative LIMIT or OFFSET, say
        let keys = try ShardMerge.sortKeys(M.self, order: order, selected: selected)
        let skip = offset ?? 0
        var lists: [[M]] = []
        for shard in executor.database.shards.indices {
            var q = onShard(shard)
            q.offset = nil
            q.limit = limit.map { $0 > Int.max - skip ? Int.max : $0 + skip }
            lists.append(try await q.all())
        }
        let merged = ShardMerge.merge(lists, keys: keys)
        let page = merged.dropFirst(skip)
        return Array(limit.map { page.prefix($0) } ?? page)
    }
}
