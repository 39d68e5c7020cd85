// Truth: SQL's three-valued logic (TRUE, FALSE, UNKNOWN) with Kleene AND, OR and NOT.
import Strata

/// The outcome of a SQL condition; only ``yes`` selects a row.
enum Truth: Sendable, Hashable {
    case yes
    case no
    case unknown

    init(_ value: Bool) { self = value ? .yes : .no }

    /// NOT: unknown stays unknown.
    var negated: Truth {
        switch self {
        case .yes: .no
        case .no: .yes
        case .unknown: .unknown
        }
    }

    /// The truth as a value: `.bool`, or NULL for unknown.
    var databaseValue: DatabaseValue {
        switch self {
        case .yes: .bool(true)
        case .no: .bool(false)
        case .unknown: .null
        }
    }

    /// Negated when `flag` is set (for `NOT IN`, `NOT LIKE`, `NOT BETWEEN`, `IS NOT NULL`).
    func negated(if flag: Bool) -> Truth { flag ? negated : self }
}
