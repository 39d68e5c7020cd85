// TransactionSyntax: how a dialect opens a transaction at an isolation level, in one statement or several.

/// How a transaction begins at an isolation level where ``Dialect/isolationLevels`` is
/// ``IsolationSupport/perTransaction`` (see ``Dialect/isolationBegin``).
public enum IsolationBeginSyntax: Sendable, Hashable {
    /// One statement, `BEGIN ISOLATION LEVEL SERIALIZABLE` (PostgreSQL).
    case beginIsolationLevel
    /// Two statements, `SET TRANSACTION ISOLATION LEVEL SERIALIZABLE` (which sets the next transaction's level
    /// only) then `START TRANSACTION` (MySQL, MariaDB). ``SQLRenderer/render(_:dialect:)`` cannot write them as one
    /// statement and throws ``StrataError/unsupported(feature:driver:)``; ``SQLRenderer/beginStatements(_:dialect:)``
    /// returns both, and ``SQLConnection/renderAndRun(_:onRow:)`` (a SQL connection's `execute`) runs them in order.
    case setTransactionThenStart
}
