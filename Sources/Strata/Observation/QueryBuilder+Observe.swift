// QueryBuilder+Observe: a query's results as an async sequence, fetched again after each commit that touches them.

extension QueryBuilder where Executor == Database {
    /// The query's results now, then again after every committed write, made through this database, to a
    /// table the query reads (GRDB's `ValueObservation`, on every driver).
    ///
    /// ```swift
    /// for try await active in User.query(on: db).where(\.active == true).observe() {
    ///     show(active)  // the current list first, then a fresh one after each commit that changes users
    /// }
    /// ```
    ///
    /// - A write in autocommit mode is announced when it returns; writes inside a transaction when it
    ///   commits. A rolled-back transaction announces nothing.
    /// - Commits that land while the results are being fetched fold into one more fetch, so a slow consumer
    ///   sees the latest state, not every intermediate one.
    /// - The tables read are the model's and its joins'. A query with `including(…)` or a raw condition is
    ///   fetched again after any commit.
    /// - Commits made through this ``Database`` value are seen on every driver. On PostgreSQL, commits by
    ///   other processes (or other `Database` values) to the tables of models with
    ///   ``Model/notifiesOtherProcesses`` are seen too, through `LISTEN`/`NOTIFY` on a connection of its own
    ///   held while anything is observed. On SQLite with the URL's `observe_interval`, other processes'
    ///   commits are heard through `PRAGMA data_version`, read at that interval while anything is observed; SQLite
    ///   does not say which tables changed, so every observed query is fetched again. On the memory driver they are not.
    /// - Each fetch leases a connection only while it runs; ending the loop (or cancelling its task)
    ///   stops the observation.
    ///
    /// - Throws (through the sequence): what the query throws; the sequence ends after the first error.
    public func observe() -> AsyncThrowingStream<[M], any Error> {
        let hub = executor.changes
        // On the primary, where the commits it is told of are already visible (a replica may lag behind them).
        let query = ObservedQuery(query: rebound(to: executor.primary))
        return AsyncThrowingStream { continuation in
            // Registered before the first fetch, so no commit between the two is missed.
            let (id, signals) = hub.register(tables: observedTables)
            let task = Task {
                do {
                    await hub.listening()
                    continuation.yield(try await query.query.all())
                    for await _ in signals {
                        try Task.checkCancellation()
                        continuation.yield(try await query.query.all())
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in
                task.cancel()
                hub.unregister(id)
            }
        }
    }

    /// The tables the query reads, or nil when it may read tables Strata cannot name.
    var observedTables: Set<String>? {
        guard includes.isEmpty, filters.allSatisfy({ $0.node.readsNamedTablesOnly }) else { return nil }
        return Set([M.schema.name] + joins.map(\.table))
    }
}

/// A query handed to the observing task.
///
/// `@unchecked Sendable`: the query is a value whose stored parts are all Sendable (expressions, strings,
/// `@Sendable` closures, the `Sendable` ``Database``); only `QueryBuilder`'s generic `Executor` keeps the
/// compiler from seeing that, and here it is `Database`.
private struct ObservedQuery<M: Model>: @unchecked Sendable {
    let query: QueryBuilder<M, Database>
}

extension SQLExpression.Node {
    /// Whether the expression reads only columns of the query's own and joined tables (no raw SQL, no
    /// subquery).
    var readsNamedTablesOnly: Bool {
        switch self {
        case .column, .joinedColumn, .value, .constant: return true
        case .compare(_, let l, let r): return l.readsNamedTablesOnly && r.readsNamedTablesOnly
        case .and(let items), .or(let items): return items.allSatisfy(\.readsNamedTablesOnly)
        case .not(let e), .isNull(let e, _), .inList(let e, _, _), .like(let e, _, _, _), .jsonPath(let e, _),
            .search(let e, _), .searchRank(let e, _):
            return e.readsNamedTablesOnly
        case .between(let e, let low, let high, _):
            return e.readsNamedTablesOnly && low.readsNamedTablesOnly && high.readsNamedTablesOnly
        default: return false
        }
    }
}
