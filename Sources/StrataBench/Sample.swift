// Sample: one timed run of one side: how long it took, what it read or wrote, and how much memory it grew.

/// The outcome of one timed run.
struct Sample {
    /// Wall-clock time of the measured section only (inputs are built before it starts, the digest after).
    var duration: Duration
    /// A digest of what was read or written, compared between Strata and its baseline; nil when the side
    /// cannot say what it wrote (binary COPY returns no ids): the runner then reads the table back.
    var checksum: Digest?
    /// Growth of the resident set's high-water mark during the run, in bytes (stream only).
    var peakGrowth: Int?
    /// The process's resident high-water mark at the end of the run, in bytes (stream only).
    var peakResident: Int?

    var milliseconds: Double {
        let c = duration.components
        return Double(c.seconds) * 1_000 + Double(c.attoseconds) / 1e15
    }
}

/// Times `body` with the continuous clock, then digests what it returned (outside the timed section, so a
/// heavier digest does not dilute the ratio). Under callgrind, only the timed section is instrumented.
@inline(never)
func timed<T>(_ body: () throws -> T, digest: (T) -> Digest?) rethrows -> Sample {
    let clock = ContinuousClock()
    Instrumentation.begin()
    let start = clock.now
    let result = try body()
    let end = clock.now
    Instrumentation.end()
    return Sample(duration: start.duration(to: end), checksum: digest(result))
}

/// Times an async `body` (the one-shot workloads, whose suspensions are part of what is measured).
@inline(never)
nonisolated(nonsending) func timedAsync<T>(_ body: () async throws -> T, digest: (T) -> Digest?) async rethrows
    -> Sample
{
    let clock = ContinuousClock()
    Instrumentation.begin()
    let start = clock.now
    let result = try await body()
    let end = clock.now
    Instrumentation.end()
    return Sample(duration: start.duration(to: end), checksum: digest(result))
}
