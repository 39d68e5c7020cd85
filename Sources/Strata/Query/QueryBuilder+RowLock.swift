// QueryBuilder+RowLock: forUpdate() and forShare(), row locks held until the transaction ends.

extension QueryBuilder {
    /// Locks the rows the query reads until the transaction ends, so no other transaction changes or locks them
    /// meanwhile: `SELECT … FOR UPDATE` (see ``RowLock``).
    ///
    /// ```swift
    /// try await db.transaction { tx in
    ///     // a job queue: each worker takes the oldest pending job no other worker holds
    ///     guard var job = try Job.query(on: tx).where(\.status == "pending").order(\.id).limit(1)
    ///         .forUpdate(.skipLocked).first() else { return }
    ///     job.status = "done"
    ///     try job.save(tx)
    /// }
    /// ```
    ///
    /// PostgreSQL renders `… LIMIT $2 FOR UPDATE SKIP LOCKED` (`FOR UPDATE OF "job"` when the query joins);
    /// SQLite and the memory driver need no clause, their transaction holding the database's write lock.
    ///
    /// - Parameter wait: what a row another transaction holds does: ``RowLock/Wait/wait`` (default),
    ///   ``RowLock/Wait/noWait`` (throw ``StrataError/lockNotAvailable(table:)``) or ``RowLock/Wait/skipLocked``
    ///   (leave the row out).
    /// - Returns: the query with the lock; running it outside a transaction throws
    ///   ``StrataError/transactionMisuse(_:)``, and with a count, aggregate, grouping or DISTINCT
    ///   ``StrataError/invalidQuery(_:)``.
    public func forUpdate(_ wait: RowLock.Wait = .wait) -> Self {
        var copy = self
        copy.lock = RowLock(.update, wait)
        return copy
    }

    /// Share-locks the rows the query reads until the transaction ends: others may read and share-lock them, but
    /// not change them: `SELECT … FOR SHARE` (see ``forUpdate(_:)`` and ``RowLock``).
    ///
    /// - Parameter wait: what a row another transaction holds does (see ``RowLock/Wait``).
    /// - Returns: the query with the lock.
    public func forShare(_ wait: RowLock.Wait = .wait) -> Self {
        var copy = self
        copy.lock = RowLock(.share, wait)
        return copy
    }
}
