// ChecksumCheck: fails the run when two sides of a comparison did not read or write the same values.

/// Compares digests; a benchmark whose sides handled different data measures nothing, so it stops.
enum ChecksumCheck {
    /// Throws when any digest differs from the first.
    ///
    /// - Parameters:
    ///   - what: the backend and workload, for the message.
    ///   - digests: each run's side and digest; the first is the reference.
    /// - Throws: ``BenchError`` naming the workload, both sides and both digests.
    static func verify(_ what: String, _ digests: [(side: String, digest: Digest)]) throws {
        guard let reference = digests.first else { return }
        for (side, digest) in digests.dropFirst() where digest != reference.digest {
            throw BenchError(
                "checksum mismatch in \(what): \(reference.side) gave \(reference.digest), \(side) gave \(digest);"
                    + " the two sides did not handle the same data, so the run is void")
        }
    }
}
