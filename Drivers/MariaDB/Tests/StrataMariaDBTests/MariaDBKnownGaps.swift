// MariaDBKnownGaps: the conformance cases MariaDB does not pass yet, each with its reason; the lists only shrink.
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
        // A double quotient or product that underflows to zero is an error elsewhere (PostgreSQL's "value out of
        // range: underflow"); MariaDB answers 0 (found by seed 11). Division, overflow and sums are held now.
        if details.contains("(underflow)") { return "double-underflow" }
        // FULL JOIN is refused before any SQL runs (join.right-and-full, unsupported).
        if details.contains("FULL JOIN is not supported") { return "full-join" }
        return nil
    }
}
