// Database+RawSelect: a raw SELECT through the driver's statement loop when other calls are in flight.

extension Database {
    /// ``unsafeRawExecute(_:_:)`` for a plain `SELECT` (``RawSelect/isPlain(_:)``) on a pool with a
    /// ``StatementLoop``: sent by the loop when other calls hold connections (no thread hop and no wake-up of a
    /// connection's thread per statement, the answers of many connections read in one `poll`), or run on a
    /// connection of its own when alone, exactly as ``withConnection(_:)`` runs it.
    ///
    /// The loop sends it in a group of its own, closed by its own Sync: it runs in an implicit transaction of its
    /// own, as it would alone (a function it calls may write). It goes to the primary, as every raw statement does.
    ///
    /// - Returns: the rows, or nil when the call must take the ordinary path: statements logged one by one, or
    ///   measured (their kind is `raw` there, which the loop's measurement does not report).
    /// - Throws: what ``Transaction/unsafeRawExecute(_:_:)`` throws.
    nonisolated(nonsending)
        func rawSelectOnLoop(_ sql: String, _ binds: [any DatabaseValueConvertible]) async throws
        -> [[DatabaseValue]]?
    {
        guard pool.statementLoop != nil, !observer.logsStatements, !Self.callerLogsStatements else { return nil }
        let caller = callerObserver  // read here, in the caller's task
        guard !(caller ?? observer).isActive else { return nil }
        let values = binds.map(\.databaseValue)
        var rows: [[DatabaseValue]] = []
        _ = try await readOne(
            from: pool, check: { try ValueCheck.checkParameters(values) },
            prepare: { loop in try loop.prepareRaw(sql, binds: values) },
            run: { tx in
                rows = try tx.unsafeRawExecute(sql, binds)
                return 0
            },
            caller: caller, measuredBy: nil, describe: { (sql, values) },
            onRow: { r in rows.append((0..<r.columnCount).map { r.value(at: $0) }) })
        return rows
    }
}

/// Which raw SQL the statement loop may send: a plain `SELECT`.
package enum RawSelect {
    /// Whether `sql` starts with the word `SELECT` (any case, after spaces, tabs and newlines). Read as bytes in place
    /// (a string without contiguous UTF-8, a bridged one, is made contiguous first): a raw statement pays no copy for
    /// it.
    package static func isPlain(_ sql: String) -> Bool {
        if let plain = sql.utf8.withContiguousStorageIfAvailable(isPlain) { return plain }
        var contiguous = sql
        contiguous.makeContiguousUTF8()
        return contiguous.utf8.withContiguousStorageIfAvailable(isPlain) ?? false
    }

    /// ``isPlain(_:)`` over contiguous bytes.
    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        let word: StaticString = "SELECT"
        let matched = word.withUTF8Buffer { expected in
            for b in expected {
                guard i < bytes.count, bytes[i] & 0xDF == b else { return false }
                i += 1
            }
            return true
        }
        guard matched else { return false }
        guard i < bytes.count else { return false }
        let next = bytes[i]
        return !(next == 0x5F || (next >= 0x30 && next <= 0x39) || (next | 0x20 >= 0x61 && next | 0x20 <= 0x7A))
    }
}
