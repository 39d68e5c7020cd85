// Sample: one timed run of one side: how long it took and a digest of what it read or wrote.

/// The outcome of one timed run.
struct Sample {
    /// Wall-clock time of the measured section only (inputs are built before it starts, the digest after).
    var duration: Duration
    /// A digest of what was read or written, compared between the two sides.
    var checksum: Digest

    var milliseconds: Double {
        let c = duration.components
        return Double(c.seconds) * 1_000 + Double(c.attoseconds) / 1e15
    }
}

/// Times an async `body` with the continuous clock, then digests what it returned (outside the timed section).
@inline(never)
nonisolated(nonsending) func timed<T>(_ body: () async throws -> T, digest: (T) -> Digest) async rethrows -> Sample {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await body()
    let end = clock.now
    return Sample(duration: start.duration(to: end), checksum: digest(result))
}
