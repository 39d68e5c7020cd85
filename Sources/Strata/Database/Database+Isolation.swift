// Database+Isolation: transactions at a chosen isolation level, run again from scratch when they lose a race.

extension Database {
    /// Runs `body` in a transaction at `isolation` (or a stronger level), running it again from scratch when
    /// it loses a race with another transaction, as `retry` allows.
    ///
    /// ```swift
    /// try await db.transaction(isolation: .serializable, retry: .attempts(5)) { tx in
    ///     let pending = try Job.query(on: tx).where(\.status == "pending").count()
    ///     var report = Report(pending: pending)
    ///     try report.save(tx)
    /// }
    /// ```
    ///
    /// Renders `BEGIN ISOLATION LEVEL SERIALIZABLE` on PostgreSQL; SQLite and the memory driver run every
    /// transaction serializable (see ``IsolationLevel``). Each attempt is a whole transaction on a freshly
    /// leased connection: a retried body must not carry state from a failed attempt (anything it appended to an
    /// outer array, say) into the next one.
    ///
    /// - Parameters:
    ///   - isolation: the level asked for; ``Transaction/isolation`` tells the level granted.
    ///   - retry: how often to run `body` again after ``StrataError/serializationFailure`` or
    ///     ``StrataError/busy`` (nil: the driver's ``Driver/defaultRetry``, ``RetryPolicy/never`` but on
    ///     CockroachDB).
    ///   - body: the transaction's work, run synchronously on one connection.
    /// - Returns: what `body` returns.
    /// - Throws: what the last attempt threw, unchanged (after rolling back);
    ///   ``StrataError/unsupported(feature:driver:)`` when the driver cannot run a transaction at least as
    ///   strong as `isolation`, and the errors of ``transaction(_:)``.
    nonisolated(nonsending)
        public func transaction<T>(
            isolation: IsolationLevel, retry: RetryPolicy? = nil, _ body: (Transaction) throws -> T
        ) async throws -> T
    {
        try await (retry ?? driver.defaultRetry).run { _ in
            try await withConnection { tx in try tx.transaction(isolation: isolation, body) }
        }
    }

    /// Runs `body` in a transaction at the driver's default isolation, running it again from scratch after
    /// ``StrataError/serializationFailure`` (a deadlock victim, say) or ``StrataError/busy`` as `retry` allows.
    ///
    /// ```swift
    /// try await db.transaction(retry: .attempts(3)) { tx in try transfer(from: a, to: b, tx) }
    /// ```
    ///
    /// - Parameters:
    ///   - retry: how often to run `body` again.
    ///   - body: the transaction's work, run synchronously on one connection.
    /// - Returns: what `body` returns.
    /// - Throws: what the last attempt threw, unchanged (after rolling back), and the errors of
    ///   ``transaction(_:)``.
    nonisolated(nonsending)
        public func transaction<T>(retry: RetryPolicy, _ body: (Transaction) throws -> T) async throws -> T
    {
        try await retry.run { _ in try await withConnection { tx in try tx.savepoint(body) } }
    }

    /// Runs `body` in a transaction where a statement that fails does what `onFailedStatement` says, the same on
    /// every driver (see ``FailedStatementPolicy``), at `isolation` (nil: the driver's default), run again from
    /// scratch as `retry` allows.
    ///
    /// ```swift
    /// // Many writes, all or none: the first failure ends the transaction, with no savepoint per write.
    /// try await db.transaction(onFailedStatement: .abortTransaction) { tx in
    ///     for i in posts.indices { try posts[i].save(tx) }
    /// }
    /// ```
    ///
    /// With ``FailedStatementPolicy/abortTransaction``, a failure the body catches still rolls the transaction
    /// back: the call then throws ``StrataError/transactionMisuse(_:)`` instead of returning.
    ///
    /// - Parameters:
    ///   - isolation: the level asked for, or nil for the driver's default.
    ///   - retry: how often to run `body` again (nil: the driver's ``Driver/defaultRetry``, ``RetryPolicy/never``
    ///     but on CockroachDB).
    ///   - onFailedStatement: what a failed statement does to the transaction.
    ///   - body: the transaction's work, run synchronously on one connection.
    /// - Returns: what `body` returns.
    /// - Throws: what the last attempt threw, unchanged (after rolling back);
    ///   ``StrataError/transactionMisuse(_:)`` when a failure aborted the transaction and the body returned; the
    ///   errors of ``transaction(isolation:retry:_:)``.
    nonisolated(nonsending)
        public func transaction<T>(
            isolation: IsolationLevel? = nil, retry: RetryPolicy? = nil,
            onFailedStatement: FailedStatementPolicy, _ body: (Transaction) throws -> T
        ) async throws -> T
    {
        try await (retry ?? driver.defaultRetry).run { _ in
            try await withConnection { tx in
                try tx.transaction(isolation: isolation, onFailedStatement: onFailedStatement, body)
            }
        }
    }

    /// The synchronous twin of ``transaction(isolation:retry:onFailedStatement:_:)`` (see ``writeSync(_:)`` for
    /// where not to call it).
    ///
    /// - Parameters:
    ///   - isolation: the level asked for, or nil for the driver's default.
    ///   - retry: how often to run `body` again (nil: the driver's ``Driver/defaultRetry``, ``RetryPolicy/never``
    ///     but on CockroachDB).
    ///   - onFailedStatement: what a failed statement does to the transaction.
    ///   - body: the transaction's work.
    /// - Returns: what `body` returns.
    /// - Throws: as ``transaction(isolation:retry:onFailedStatement:_:)`` does.
    public func writeSync<T>(
        isolation: IsolationLevel? = nil, retry: RetryPolicy? = nil,
        onFailedStatement: FailedStatementPolicy, _ body: (Transaction) throws -> T
    ) throws -> T {
        try (retry ?? driver.defaultRetry).runBlocking { _ in
            try readSync { tx in try tx.transaction(isolation: isolation, onFailedStatement: onFailedStatement, body) }
        }
    }

    /// The synchronous twin of `transaction(isolation:retry:_:)`: blocks the calling thread (see
    /// ``writeSync(_:)`` for where not to call it), and sleeps it between attempts.
    ///
    /// - Parameters:
    ///   - isolation: the level asked for; ``Transaction/isolation`` tells the level granted.
    ///   - retry: how often to run `body` again after ``StrataError/serializationFailure`` or
    ///     ``StrataError/busy`` (nil: the driver's ``Driver/defaultRetry``, ``RetryPolicy/never`` but on
    ///     CockroachDB).
    ///   - body: the transaction's work.
    /// - Returns: what `body` returns.
    /// - Throws: what the last attempt threw, unchanged (after rolling back);
    ///   ``StrataError/unsupported(feature:driver:)`` when the driver cannot honour `isolation`, and the errors
    ///   of ``writeSync(_:)``.
    public func writeSync<T>(
        isolation: IsolationLevel, retry: RetryPolicy? = nil, _ body: (Transaction) throws -> T
    ) throws -> T {
        try (retry ?? driver.defaultRetry).runBlocking { _ in
            try readSync { tx in try tx.transaction(isolation: isolation, body) }
        }
    }

    /// The synchronous twin of `transaction(retry:_:)`.
    ///
    /// - Parameters:
    ///   - retry: how often to run `body` again.
    ///   - body: the transaction's work.
    /// - Returns: what `body` returns.
    /// - Throws: what the last attempt threw, unchanged (after rolling back), and the errors of ``writeSync(_:)``.
    public func writeSync<T>(retry: RetryPolicy, _ body: (Transaction) throws -> T) throws -> T {
        try retry.runBlocking { _ in try readSync { tx in try tx.savepoint(body) } }
    }
}
