// IsolationLevel: how much of other transactions' concurrent work a transaction may see, weakest to strongest.

/// The isolation a transaction asks for, ordered weakest to strongest (the SQL standard's levels).
///
/// A driver runs a transaction at the level asked for or at a stronger one, never a weaker one (the SQL
/// standard allows a stronger level to serve a weaker request, as PostgreSQL does for READ UNCOMMITTED):
/// - PostgreSQL runs each level as asked: `BEGIN ISOLATION LEVEL READ COMMITTED` (its default),
///   `REPEATABLE READ` or `SERIALIZABLE`;
/// - SQLite and the memory driver run every transaction alone (one writer at a time, `BEGIN IMMEDIATE` on
///   SQLite), so every level is served by ``serializable``.
///
/// A driver that can honour no level at least as strong throws ``StrataError/unsupported(feature:driver:)``.
/// ``Transaction/isolation`` tells the level a transaction runs at.
public enum IsolationLevel: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Each statement sees what was committed before it began.
    case readCommitted = 1
    /// Every statement sees what was committed before the transaction's first statement.
    case repeatableRead = 2
    /// The transactions that commit behave as if they ran one after another; one that cannot fails with
    /// ``StrataError/serializationFailure`` (retry it: see ``RetryPolicy``).
    case serializable = 3

    public static func < (lhs: IsolationLevel, rhs: IsolationLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The level's SQL name: `READ COMMITTED`, `REPEATABLE READ`, `SERIALIZABLE`.
    public var sqlName: String {
        switch self {
        case .readCommitted: return "READ COMMITTED"
        case .repeatableRead: return "REPEATABLE READ"
        case .serializable: return "SERIALIZABLE"
        }
    }

    public var description: String { sqlName.lowercased() }
}

/// Which isolation levels a SQL dialect can begin a transaction at (``Dialect/isolationLevels``).
public enum IsolationSupport: Sendable, Hashable {
    /// None can be asked for: a transaction with an isolation level throws
    /// ``StrataError/unsupported(feature:driver:)``. The default.
    case none
    /// Every transaction is serializable (one writer at a time, as SQLite): each level is served by
    /// ``IsolationLevel/serializable`` and begins with ``Dialect/beginTransaction``.
    case serializableOnly
    /// Each level as asked: `BEGIN ISOLATION LEVEL …` (PostgreSQL).
    case perTransaction

    /// The level a transaction asking for `requested` runs at, or nil when none at least as strong is available.
    public func serving(_ requested: IsolationLevel) -> IsolationLevel? {
        switch self {
        case .none: return nil
        case .serializableOnly: return .serializable
        case .perTransaction: return requested
        }
    }
}
