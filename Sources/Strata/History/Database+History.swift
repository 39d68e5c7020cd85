// Database+History: reading the change history in commit order, and trimming it.
import Foundation

extension Transaction {
    /// The changes committed after `since`, oldest first, at most `limit` transactions' worth (a transaction's
    /// changes are never split across pages), and the token to ask from next.
    ///
    /// ```swift
    /// var token: HistoryToken? = nil                 // nil: from the beginning
    /// let page = try tx.changes(since: token)
    /// for change in page.changes { print(change.table, change.key, change.operation) }
    /// token = page.next
    /// ```
    ///
    /// A change is listed once its transaction committed, and no transaction commits later with a lower token
    /// (see ``Model/tracksHistory``), so asking again from ``HistoryPage/next`` never skips one.
    ///
    /// - Parameters:
    ///   - since: the token a previous call returned, or nil for the whole history kept.
    ///   - limit: the most transactions to return (more when one transaction alone is larger); at least 1.
    /// - Returns: the changes and the next token.
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` naming `since` for a token from another database or
    ///   one past the last committed transaction (from the future), or when the database keeps no history;
    ///   naming `limit` when it is below 1.
    public func changes(since: HistoryToken?, limit: Int = 1000) throws -> HistoryPage {
        guard limit >= 1 else { throw StrataError.invalidArgument("limit", reason: "must be at least 1, not \(limit)") }
        let clock = try HistoryLog.readClock(self)
        let from = try checked(since, clock: clock)
        // Whole transactions: the tokens first, then their rows.
        var tokens: [Int64] = []
        let filter = SQLExpression.and([
            .compare(.greater, .column("token"), .value(.integer(from))),
            .compare(.lessOrEqual, .column("token"), .value(.integer(clock.token))),
        ])
        var select = Select(table: HistoryLog.table, selection: .columns(["token"]), filter: filter)
        select.distinct = true
        select.order = [.key("token")]
        select.limit = limit + 1
        _ = try execute(.select(select)) { if let t = $0.int64(at: 0) { tokens.append(t) } }
        let hasMore = tokens.count > limit
        if hasMore { tokens.removeLast() }
        guard let last = tokens.last else {
            return HistoryPage(changes: [], next: HistoryToken(database: clock.database, value: from), hasMore: false)
        }
        let rows = Select(
            table: HistoryLog.table,
            selection: .columns(["token", "table_name", "row_key", "operation", "columns", "changed_at"]),
            filter: .and([
                .compare(.greater, .column("token"), .value(.integer(from))),
                .compare(.lessOrEqual, .column("token"), .value(.integer(last))),
            ]),
            order: [.key("token"), .key("id")])
        var changes: [HistoryChange] = []
        _ = try execute(.select(rows)) { r in
            var time = Date(timeIntervalSince1970: 0)
            if case .date(let d) = ValueConversion.normalize(r.value(at: 5), as: .date) { time = d }
            let columns = r.string(at: 4) ?? ""
            changes.append(
                HistoryChange(
                    token: r.int64(at: 0) ?? 0, table: r.string(at: 1) ?? "", key: r.string(at: 2) ?? "",
                    operation: HistoryChange.Operation(rawValue: r.string(at: 3) ?? "") ?? .update,
                    columns: columns.isEmpty ? [] : columns.split(separator: ",").map(String.init), time: time))
        }
        return HistoryPage(
            changes: changes, next: HistoryToken(database: clock.database, value: last), hasMore: hasMore)
    }

    /// The position after the last committed transaction: ``changes(since:limit:)`` from it returns only what
    /// commits later (a new replica's starting point, once it has copied everything).
    ///
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` when the database keeps no history.
    public func historyToken() throws -> HistoryToken {
        let clock = try HistoryLog.readClock(self)
        return HistoryToken(database: clock.database, value: clock.token)
    }

    /// Deletes the history of the transactions before `token`; returns how many changes went.
    ///
    /// A consumer that later asks from a token before the trimmed part gets what is left: prune only below
    /// the oldest token every consumer has read past.
    ///
    /// - Parameter token: the first transaction to keep.
    /// - Returns: the number of changes deleted.
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` naming `before` for a token from another database or
    ///   from the future, or when the database keeps no history.
    @discardableResult
    public func pruneHistory(before token: HistoryToken) throws -> Int {
        let clock = try HistoryLog.readClock(self)
        let value = try checked(token, clock: clock, parameter: "before")
        let filter = SQLExpression.compare(.less, .column("token"), .value(.integer(value)))
        return try execute(.delete(Delete(table: HistoryLog.table, filter: filter)))
    }

    /// The value of a caller's token, refused when it names another database or a transaction not yet committed.
    private func checked(
        _ token: HistoryToken?, clock: (token: Int64, database: String), parameter: String = "since"
    ) throws -> Int64 {
        guard let token else { return 0 }
        guard token.database == clock.database else {
            throw StrataError.invalidArgument(
                parameter, reason: "the token is from another database (its history id is not this database's)")
        }
        guard token.value >= 0, token.value <= clock.token else {
            throw StrataError.invalidArgument(
                parameter,
                reason: "the token \(token.value) is past the last committed transaction (\(clock.token)): from the "
                    + "future, or from a database restored from an older backup")
        }
        return token.value
    }
}

extension Database {
    /// The changes committed after `since`, in commit order, and the next token (see
    /// ``Transaction/changes(since:limit:)``).
    nonisolated(nonsending)
        public func changes(since: HistoryToken?, limit: Int = 1000) async throws -> HistoryPage
    {
        try await withConnection { tx in try tx.changes(since: since, limit: limit) }
    }

    /// The position after the last committed transaction (see ``Transaction/historyToken()``).
    nonisolated(nonsending)
        public func historyToken() async throws -> HistoryToken
    {
        try await withConnection { tx in try tx.historyToken() }
    }

    /// Deletes the history before `token` (see ``Transaction/pruneHistory(before:)``).
    @discardableResult
    nonisolated(nonsending)
        public func pruneHistory(before token: HistoryToken) async throws -> Int
    {
        try await withConnection { tx in try tx.pruneHistory(before: token) }
    }
}
