// MariaDBKnownGaps: the conformance cases MariaDB does not pass yet, each with its reason; the lists only shrink.
import Foundation
import StrataDifferential

/// The cases `MariaDBConformanceTests` expects not to pass. Taking a case off a list is how a fix is proven; adding
/// one needs a reason. The groups behind them are in the package README (Known gaps).
enum MariaDBKnownGaps {
    /// Cases that fail today, by name, with the failure they show.
    static let failing: [String: String] = [:]

    /// Cases the driver refuses with `unsupported`, with the reason (at most 5% of the suite).
    static let unsupported: [String: String] = [
        "join.right-and-full": "FULL JOIN on mariadb",
        // A DOUBLE holds no ±infinity: writing one is refused (typeMismatch naming the column, checked by the cases).
        "numbers.nan-from-expressions-and-aggregates-is-null": "±infinity in a DOUBLE column on mariadb",
        "types.double-special-values": "±infinity in a DOUBLE column on mariadb",
    ]

}

extension MariaDBKnownGaps {
    /// The known gap a divergence of the differential engine shows, by MariaDB's SQL for the statement and what
    /// differed, or nil for a new one.
    static func divergence(check: Check, sql: String, details: String) -> String? {
        // FULL JOIN is refused before any SQL runs (join.right-and-full, unsupported).
        if details.contains("FULL JOIN is not supported") { return "full-join" }
        if constraintOrder(sql: sql, details: details) { return "constraint-order" }
        return nil
    }

    /// A write that breaks a unique key and a foreign key at once: the others check foreign keys at the statement's
    /// end and report the unique key, InnoDB checks them row by row, index by index, and may report the foreign
    /// key first. A decided difference, not a gap (Semantics, "Two constraints broken at once", pinned by
    /// `constraint.two-broken-at-once-fail-with-one-and-change-nothing`): it counts only where every other backend
    /// reports the unique key and MariaDB the foreign key, or the other way round, and the engine found every
    /// table holding the same rows after the write on every backend.
    static func constraintOrder(sql: String, details: String) -> Bool {
        guard sql.hasPrefix("UPDATE ") || sql.hasPrefix("INSERT "),
            details.hasPrefix(DifferentialEngine.constraintsDifferMarker)
        else { return false }
        let kinds = details.split(separator: "\n").compactMap { row -> (mariadb: Bool, kind: Substring?)? in
            let line = row.trimmingCharacters(in: .whitespaces)
            guard let colon = line.range(of: "): ") else { return nil }
            let answer = line[colon.upperBound...]
            let kind = answer.hasPrefix("error ") ? answer.dropFirst(6).prefix { $0 != ":" } : nil
            return (line.hasPrefix("mariadb"), kind)
        }
        let pair: Set<Substring> = ["uniqueViolation", "foreignKeyViolation"]
        guard let theirs = kinds.first(where: { $0.mariadb })?.kind, pair.contains(theirs),
            kinds.contains(where: { !$0.mariadb })
        else { return false }
        return kinds.allSatisfy { $0.mariadb || ($0.kind.map { pair.contains($0) && $0 != theirs } ?? false) }
    }
}
