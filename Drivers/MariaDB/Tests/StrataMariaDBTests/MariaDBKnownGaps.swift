// MariaDBKnownGaps: the conformance cases MariaDB does not pass yet, each with its reason; the lists only shrink.
/// The cases `MariaDBConformanceTests` expects not to pass. Taking a case off a list is how a fix is proven; adding
/// one needs a reason.
enum MariaDBKnownGaps {
    /// Cases that fail today, by name, with why.
    static let failing: [String: String] = [:]

    /// Cases the driver refuses with `unsupported`, with the reason (at most 5% of the suite).
    static let unsupported: [String: String] = [:]
}
