// StatementKind: the coarse kind of a statement, the one dimension logs and metrics group statements by.

/// What a statement does, as logs and metrics name it.
public enum StatementKind: String, Sendable, CaseIterable {
    case select, insert, update, delete
    /// Creating or changing tables and indexes.
    case schema
    /// BEGIN, COMMIT, ROLLBACK and savepoints.
    case transaction
    /// SQL passed by the application (`unsafeRawExecute`).
    case raw

    /// The kind's place in ``allCases``, for per-kind tables indexed without hashing.
    var ordinal: Int {
        switch self {
        case .select: return 0
        case .insert: return 1
        case .update: return 2
        case .delete: return 3
        case .schema: return 4
        case .transaction: return 5
        case .raw: return 6
        }
    }

    init(_ statement: Statement) {
        switch statement {
        case .select: self = .select
        case .insert: self = .insert
        case .update: self = .update
        case .delete: self = .delete
        case .begin, .commit, .rollback, .savepoint, .releaseSavepoint, .rollbackToSavepoint: self = .transaction
        case .beginIsolated: self = .transaction
        default: self = .schema
        }
    }
}
