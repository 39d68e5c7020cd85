// FailedStatementPolicy: what a statement that fails inside a transaction does to it, the same on every driver.

/// What a statement that fails inside a transaction does to the transaction, chosen when it begins (see
/// ``Database/transaction(isolation:retry:onFailedStatement:_:)``).
///
/// SQLite undoes a failed statement alone; PostgreSQL aborts the whole transaction. Strata holds one rule on
/// every driver, and lets the caller pick which:
///
/// ```swift
/// // The default: catch the failure and carry on.
/// try await db.transaction { tx in
///     do { try duplicate.save(tx) } catch StrataError.uniqueViolation { /* the row exists: fine */ }
///     try other.save(tx)  // runs, and commits
/// }
///
/// // The first failure ends the transaction: no savepoint per write on PostgreSQL.
/// try await db.transaction(onFailedStatement: .abortTransaction) { tx in
///     for i in posts.indices { try posts[i].save(tx) }
/// }
/// ```
public enum FailedStatementPolicy: Sendable, Hashable {
    /// The failed statement is undone alone and the transaction goes on (the default). A write fails without
    /// touching what the transaction did before it, and the transaction may still commit. PostgreSQL pays for
    /// this with a savepoint around each write (`SAVEPOINT`, the write and `RELEASE` in one round trip).
    case undoStatement

    /// The first statement that fails aborts the transaction, as PostgreSQL does by itself (and as Django's
    /// `atomic` does on every backend), with no savepoint per write.
    ///
    /// After the failure, every statement but the rollback throws ``StrataError/transactionMisuse(_:)``; the
    /// innermost ``Transaction/savepoint(_:)`` around the failure (or the transaction, when there is none) rolls
    /// back when its closure ends, and throws ``StrataError/transactionMisuse(_:)`` if the closure returned
    /// normally, so a swallowed error never looks like a commit. A savepoint rolled back that way leaves the
    /// transaction around it usable. A write call that runs several statements (a save with callbacks, `upsert`,
    /// `insertAll`, `load`, a delete with association rules) is atomic in the transaction itself: when it throws
    /// after one of its statements changed a row (a `didCreate` that throws), the transaction is aborted; a stale
    /// save, whose UPDATE matched no row, aborts nothing. Nor does a value or statement Strata refuses before any
    /// driver sees it (``StrataError/invalidValue(table:column:reason:)``, a validation error).
    case abortTransaction
}
