// Rollback: the error a transaction or savepoint body throws to undo its own work and carry on.

/// Throw this from a `transaction` or `savepoint` body to roll that scope back quietly.
///
/// A Void-returning scope swallows it and returns normally; a scope that returns a value rethrows it,
/// since it has no value to return.
///
/// ```swift
/// try tx.savepoint { _ in throw Rollback() }   // undone alone; the transaction goes on
/// ```
public struct Rollback: Error, Sendable, Hashable {
    /// The error that rolls back the scope it is thrown from.
    public init() {}
}
