// Divergence: one disagreement the engine found, with the case that shows it and its minimal form.
import Strata

/// A check that failed: backends disagreeing, or one backend failing an oracle on its own.
public enum Check: Sendable, Hashable, CustomStringConvertible {
    /// Two backends answered the same statement differently.
    case backends
    /// Ternary logic partitioning on one backend: rows(p) ∪ rows(NOT p) ∪ rows(p IS NULL) ≠ rows(all).
    case tlp(backend: String)
    /// Non-optimizing reference engine on one backend: count(WHERE p) ≠ rows of WHERE (p) = TRUE.
    case norec(backend: String)
    /// The backends disagreed while building the world (creating tables, inserting rows, their ids).
    case setup
    /// The backends disagreed on an UPDATE or DELETE: its changed rows, its error, or the tables after it.
    case write
    /// A prepared query (the SELECT with its values made parameters) read otherwise than the SELECT on one backend:
    /// run with the values substituted, or bound into the SQL it rendered (see ``PreparedPlan``).
    case prepared(backend: String)

    public var description: String {
        switch self {
        case .backends: return "backends disagree"
        case .tlp(let b): return "TLP on \(b)"
        case .norec(let b): return "NoREC on \(b)"
        case .setup: return "setup"
        case .write: return "backends disagree on a write"
        case .prepared(let b): return "prepared query on \(b)"
        }
    }
}

/// A divergence: where it was found (seed, batch, query), the check, the case, and its shrunk form.
public struct Divergence: Sendable {
    /// The check that failed.
    public var check: Check
    /// The run's seed.
    public var seed: UInt64
    /// The generated world (schema batch) it was found in, counted from 0.
    public var batch: Int
    /// The statement's position in its batch (-1 for setup).
    public var query: Int
    /// The world as generated.
    public var world: FuzzWorld
    /// The query, for every check but ``Check/write`` and ``Check/setup``.
    public var select: Select?
    /// The UPDATE or DELETE, for a ``Check/write`` divergence.
    public var write: Statement?
    /// What each backend answered.
    public var details: String
    /// The smallest world and query that still fail the same check, when shrinking ran.
    public var minimalWorld: FuzzWorld?
    /// The smallest query that still fails.
    public var minimalSelect: Select?
    /// The smallest write that still fails.
    public var minimalWrite: Statement?
    /// What each backend answered to the minimal case.
    public var minimalDetails: String?
    /// The known divergence this one is, if any.
    public var known: KnownDivergence?

    /// The case to show: the minimal one when there is one.
    public var shownWorld: FuzzWorld { minimalWorld ?? world }
    /// The query to show: the minimal one when there is one.
    public var shownSelect: Select? { minimalSelect ?? select }
    /// The write to show: the minimal one when there is one.
    public var shownWrite: Statement? { minimalWrite ?? write }

    /// The query shown, or the write's table, filter and assigned columns as a query (to recognize it).
    var shownShape: Select? {
        if let s = shownSelect { return s }
        switch shownWrite {
        case .delete(let d)?: return Select(table: d.table, selection: .count, filter: d.filter)
        case .update(let u)?:
            return Select(table: u.table, selection: .columns(u.assignments.map(\.column)), filter: u.filter)
        default: return nil
        }
    }
}
