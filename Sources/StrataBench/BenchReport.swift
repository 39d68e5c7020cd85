// BenchReport: the figures of one run (per backend and workload), as printed, written to JSON and charted.

/// One workload on one backend: Strata's and the baseline's medians, their ratio and the target.
public struct WorkloadResult: Sendable, Codable {
    /// Which workload.
    public var workload: Workload
    /// Its label with the counts actually run (`insert 20k one by one`).
    public var label: String
    /// Timed runs per side.
    public var runs: Int
    /// Strata's median, in milliseconds.
    public var strataMs: Double
    /// The baseline's median, in milliseconds.
    public var baselineMs: Double
    /// Strata's median over the baseline's: below 1 is faster.
    public var ratio: Double
    /// Every Strata run, in milliseconds, in the order run.
    public var strataRunsMs: [Double]
    /// Every baseline run, in milliseconds, in the order run.
    public var baselineRunsMs: [Double]
    /// Stream only: Strata's largest growth of the resident high-water mark over the runs, in MB.
    public var strataPeakMB: Double?
    /// Stream only: the baseline's largest growth, in MB.
    public var baselinePeakMB: Double?
    /// Stream only: the process's resident high-water mark at the end of Strata's worst run, in MB.
    public var strataPeakResidentMB: Double?
    /// The goal the issue sets, if any.
    public var target: Target?
    /// Whether the target was met; nil when there is none.
    public var met: Bool?
    /// Whether both sides read (or wrote) the same data in every run (a mismatch stops the run, so a
    /// written report always says true).
    public var checksumsMatch: Bool
    /// The digest every run of every side produced (hex, and the rows it covers).
    public var digest: String?
    /// Bulk only: the raw side's second floor (`binary COPY`, `single-row INSERT`).
    public var floorName: String? = nil
    /// Its median, in milliseconds.
    public var floorMs: Double? = nil
    /// Strata's median over the floor's.
    public var floorRatio: Double? = nil
    /// Every floor run, in milliseconds.
    public var floorRunsMs: [Double]? = nil
    /// Instructions Strata's timed section ran (callgrind, this process only), with `--instructions`.
    public var strataInstructions: Int? = nil
    /// Instructions the baseline's timed section ran.
    public var baselineInstructions: Int? = nil
    /// Instructions the floor's timed section ran.
    public var floorInstructions: Int? = nil
    /// Calls into the C allocator in Strata's timed section (callgrind, this process only), with `--instructions`.
    public var strataAllocations: Int? = nil
    /// Calls into the C allocator in the baseline's timed section.
    public var baselineAllocations: Int? = nil
    /// What the section does many times (`insert`, `row`, `lookup`, …), and how many of them the counted run did:
    /// the allocations per operation are the counts over it.
    public var operationUnit: String? = nil
    /// How many operations the counted (callgrind) run did.
    public var countedOperations: Int? = nil
    /// Strata's instructions over the baseline's.
    public var instructionRatio: Double? = nil
    /// Strata's instructions over the floor's.
    public var floorInstructionRatio: Double? = nil
}

/// A throughput workload on PostgreSQL: statements per second through Strata and through pgbench.
public struct ThroughputResult: Sendable, Codable {
    /// Which workload.
    public var workload: Workload
    /// Its label.
    public var label: String
    /// The pgbench command line it is compared with.
    public var pgbench: String
    /// Seconds per timed run.
    public var seconds: Double
    /// Strata's median rate, statements per second.
    public var strataPerSecond: Double
    /// pgbench's median rate (its `tps` without the initial connection time).
    public var pgbenchPerSecond: Double
    /// Strata's rate over pgbench's: higher is better.
    public var ratio: Double
    /// The least ratio the issue asks for.
    public var minRatio: Double
    /// Every Strata run's rate.
    public var strataRuns: [Double]
    /// Every pgbench run's rate.
    public var pgbenchRuns: [Double]
    /// A second pgbench that does the work the way Strata does it under load (point lookups: pipelined in groups,
    /// one Sync per group), when there is one: its command line, median rate, and Strata's rate over it.
    public var floorPgbench: String? = nil
    public var floorPerSecond: Double? = nil
    public var floorRatio: Double? = nil
}

/// The results on one backend, or why it was skipped.
public struct BackendReport: Sendable, Codable {
    /// Which backend.
    public var backend: Backend
    /// What the Strata side ran on (`SQLite (file, WAL)`, …).
    public var title: String
    /// What the baseline column holds.
    public var baselineName: String
    /// Why the backend was not measured (no server, …); nil when it was.
    public var skipped: String?
    /// One result per workload, in the order run.
    public var results: [WorkloadResult]
    /// Versions and other facts about this backend.
    public var notes: [String]
    /// PostgreSQL only: the throughput workloads against pgbench.
    public var throughput: [ThroughputResult]? = nil
    /// Why the throughput workloads did not run (no pgbench), when they were asked for.
    public var throughputSkipped: String? = nil
    /// PostgreSQL only: the server mix against libpq from 8 threads (``Workload/serverMix``).
    public var serverMix: ServerMixResult? = nil
}

/// A whole benchmark run.
public struct BenchReport: Sendable, Codable {
    /// The command line that produced it.
    public var command: String
    /// When it started, ISO 8601, UTC.
    public var date: String
    /// The machine: OS, cores, memory.
    public var host: String
    /// The divisor applied to every count.
    public var scale: Int
    /// Timed runs per side (half, rounded up, for bulk and stream).
    public var iterations: Int
    /// The counts actually run.
    public var sizes: WorkloadSizes
    /// How peak memory was measured.
    public var memoryMethod: String
    /// One report per backend asked for, skipped ones included.
    public var backends: [BackendReport]
    /// With `--instructions`: the divisor applied to the counts of the callgrind runs (``scale`` unless
    /// `--instructions-scale` set another).
    public var instructionScale: Int? = nil
    /// The instruction ratios committed with these figures (docs/benchmark.json), which CI's tenth-scale pass is
    /// checked against (`--check-instructions`) and `--update-instructions` rewrites; counted by another run than
    /// the times, at its own scale.
    public var instructions: InstructionBaseline? = nil
}
