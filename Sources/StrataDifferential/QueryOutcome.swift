// QueryOutcome: what one backend answered to one statement: its rows, or the typed error it threw.
import Strata

/// The result of a statement on one backend, ready to compare with another backend's.
public enum QueryOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The rows, decoded by column type, and the number of rows changed.
    case rows([[CanonicalValue]], changes: Int)
    /// The statement failed: the ``StrataError`` case's name (what must match) and its description.
    case failed(kind: String, message: String)

    /// The name of an error's case: `uniqueViolation`, `typeMismatch`, … (the payload is not compared).
    public static func kind(of error: any Error) -> String {
        guard let strata = error as? StrataError else { return "untyped \(type(of: error))" }
        if let label = Mirror(reflecting: strata).children.first?.label { return label }
        return "\(strata)"
    }

    /// The rows, when there are any.
    public var rows: [[CanonicalValue]]? {
        if case .rows(let r, _) = self { return r }
        return nil
    }

    /// Whether two outcomes agree: the same rows (in order when `ordered`, else as multisets) and the same
    /// change count, or errors of the same case.
    public func agrees(with other: QueryOutcome, ordered: Bool) -> Bool {
        switch (self, other) {
        case (.failed(let a, _), .failed(let b, _)): return a == b
        case (.rows(let a, let ca), .rows(let b, let cb)):
            guard ca == cb, a.count == b.count else { return false }
            return ordered ? a == b : Self.multiset(a) == Self.multiset(b)
        default: return false
        }
    }

    static func multiset(_ rows: [[CanonicalValue]]) -> [[CanonicalValue]: Int] {
        var counts: [[CanonicalValue]: Int] = [:]
        for r in rows { counts[r, default: 0] += 1 }
        return counts
    }

    public var description: String {
        switch self {
        case .failed(let kind, let message): return "error \(kind): \(message)"
        case .rows(let rows, let changes):
            let shown = rows.prefix(12).map { "(" + $0.map(\.description).joined(separator: ", ") + ")" }
            let more = rows.count > 12 ? " … (\(rows.count) rows)" : ""
            let change = changes > 0 ? ", \(changes) changed" : ""
            return "\(rows.count) row(s)\(change): " + shown.joined(separator: " ") + more
        }
    }
}
