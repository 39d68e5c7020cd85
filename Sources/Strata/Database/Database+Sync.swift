// Database+Sync: synchronous entries for scripts, command-line tools and code written in the seeds' blocking style.

extension Database {
    /// Runs `body` in a transaction on a pooled connection, blocking the calling thread until it commits or rolls
    /// back: the synchronous twin of ``transaction(_:)``.
    ///
    /// ```swift
    /// let db = try Database.open("sqlite:app.sqlite")
    /// try db.writeSync { tx in
    ///     var group = Group(title: "Students")
    ///     try group.save(tx)
    /// }
    /// let count = try db.readSync { tx in try Group.query(on: tx).count() }
    /// ```
    ///
    /// The connection is leased without a task: no suspension, no hop to another thread, so a call made from
    /// inside Swift concurrency (a `Task`, an `async` function) cannot wait for a cooperative thread that it is
    /// itself holding. It does hold its own thread for the whole body, so:
    /// - do not call it on the main thread of an app (it blocks the UI), nor inside another body of the same
    ///   database (`transaction`, `withConnection`, `writeSync`): with every connection leased, that call waits for
    ///   itself and ends in ``StrataError/poolTimeout(seconds:)``;
    /// - in async code prefer ``transaction(_:)``: each blocked call takes one of the few cooperative threads,
    ///   and while async callers hold every connection of a pool it waits until they give one back (at worst
    ///   until the pool timeout).
    ///
    /// - Throws: what `body` throws (after rolling back), ``StrataError/poolTimeout(seconds:)`` when no connection
    ///   frees up within ``Configuration/poolTimeout``, and the driver's connection errors.
    public func writeSync<T>(_ body: (Transaction) throws -> T) throws -> T {
        let retry = driver.defaultRetry
        guard retry.maxAttempts > 1 else { return try readSync { tx in try tx.savepoint(body) } }
        return try retry.runBlocking { _ in try readSync { tx in try tx.savepoint(body) } }
    }

    /// Runs `body` on a pooled connection outside a transaction (each statement commits on its own), blocking the
    /// calling thread: the synchronous twin of ``withConnection(_:)``. Where not to call it: see ``writeSync(_:)``.
    public func readSync<T>(_ body: (Transaction) throws -> T) throws -> T {
        let observer = callerObserver
        let lease = try pool.acquireBlocking()
        defer { pool.release(lease) }
        return try run(body, on: lease, observer: observer)
    }
}
