// RowLock: a lock on the rows a SELECT reads, held until its transaction ends (FOR UPDATE, FOR SHARE).

/// A lock a query takes on the rows it reads, held until the transaction ends: ``QueryBuilder/forUpdate(_:)``
/// and ``QueryBuilder/forShare(_:)`` set it.
///
/// PostgreSQL renders it `FOR UPDATE` / `FOR SHARE`, then ` OF "table"` when the query joins (only the main
/// table's rows are locked), then ` NOWAIT` or ` SKIP LOCKED`. SQLite and the memory driver run one
/// transaction at a time (SQLite's `BEGIN IMMEDIATE` takes the database's write lock), so the transaction
/// already holds every row: the lock is granted at once, ``Wait/skipLocked`` skips nothing and ``Wait/noWait``
/// never fails (a second transaction waits at its BEGIN instead, as any transaction does there).
///
/// On every driver a locking query outside a transaction throws ``StrataError/transactionMisuse(_:)`` (the
/// lock would end with the statement), and one that counts, groups, aggregates, selects DISTINCT or locks the
/// nullable side of a RIGHT or FULL join throws ``StrataError/invalidQuery(_:)``.
public struct RowLock: Sendable, Hashable, CustomStringConvertible {
    /// How strong the lock is.
    public enum Strength: Sendable, Hashable {
        /// `FOR UPDATE`: other transactions can neither lock nor change the rows until this one ends.
        case update
        /// `FOR SHARE`: other transactions can share-lock the rows but not change them.
        case share
    }

    /// What happens when another transaction holds a conflicting lock on a row.
    public enum Wait: Sendable, Hashable {
        /// Wait for it to end (the default).
        case wait
        /// Fail at once with ``StrataError/lockNotAvailable(table:)`` (`NOWAIT`).
        case noWait
        /// Leave that row out of the result (`SKIP LOCKED`): a job queue's way to hand each row to one worker.
        case skipLocked
    }

    /// How strong the lock is.
    public var strength: Strength
    /// What a conflicting lock does to the query.
    public var wait: Wait

    /// A lock of `strength` that reacts to a conflicting lock as `wait` says.
    public init(_ strength: Strength, _ wait: Wait = .wait) {
        self.strength = strength
        self.wait = wait
    }

    /// The lock as PostgreSQL spells it, without `OF`: `FOR UPDATE SKIP LOCKED`.
    public var description: String {
        let base = strength == .update ? "FOR UPDATE" : "FOR SHARE"
        switch wait {
        case .wait: return base
        case .noWait: return base + " NOWAIT"
        case .skipLocked: return base + " SKIP LOCKED"
        }
    }
}

/// How a SQL dialect provides ``RowLock`` (``Dialect/rowLocks``).
public enum RowLockSyntax: Sendable, Hashable {
    /// It cannot: a locking query throws ``StrataError/unsupported(feature:driver:)``. The default.
    case none
    /// Every transaction already holds the whole database's write lock (SQLite's `BEGIN IMMEDIATE`): no clause
    /// is written, and the lock is granted at once.
    case heldByTransaction
    /// `FOR UPDATE [OF "t"] [NOWAIT | SKIP LOCKED]` after the query (PostgreSQL).
    case forClause
}

/// How a ``RowLockSyntax/forClause`` dialect spells a row lock (see ``Dialect/rowLockClause``).
public enum RowLockClauseSyntax: Sendable, Hashable {
    /// `FOR UPDATE` / `FOR SHARE`, then ` OF "t"` when the query joins (PostgreSQL, MySQL 8).
    case forShareOf
    /// `FOR UPDATE` / `LOCK IN SHARE MODE`, never `OF` (MariaDB): a query that joins locks the joined tables'
    /// rows too.
    case lockInShareMode
}
