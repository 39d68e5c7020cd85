// Sample: one timed run of one side: how long it took, what it read, and how much memory it grew.

/// The outcome of one timed run.
struct Sample {
    /// Wall-clock time of the measured section only (inputs are built before it starts).
    var duration: Duration
    /// A digest of what was read or written, compared between Strata and its baseline.
    var checksum: Int
    /// Growth of the resident set's high-water mark during the run, in bytes (stream only).
    var peakGrowth: Int?
    /// The process's resident high-water mark at the end of the run, in bytes (stream only).
    var peakResident: Int?

    var milliseconds: Double {
        let c = duration.components
        return Double(c.seconds) * 1_000 + Double(c.attoseconds) / 1e15
    }
}

/// Times `body` with the continuous clock.
@inline(never)
func timed(_ body: () throws -> Int) rethrows -> Sample {
    let clock = ContinuousClock()
    let start = clock.now
    let checksum = try body()
    return Sample(duration: start.duration(to: clock.now), checksum: checksum)
}

/// Times an async `body` (the one-shot workloads, whose suspensions are part of what is measured).
@inline(never)
nonisolated(nonsending) func timedAsync(_ body: () async throws -> Int) async rethrows -> Sample {
    let clock = ContinuousClock()
    let start = clock.now
    let checksum = try await body()
    return Sample(duration: start.duration(to: clock.now), checksum: checksum)
}
