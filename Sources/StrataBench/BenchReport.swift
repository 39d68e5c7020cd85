// BenchReport: the figures of one run (per backend and workload), as printed, written to JSON and charted.

/// One workload on one backend: Strata's and the baseline's medians, their ratio and the target.
public struct WorkloadResult: Sendable, Codable {
    public var workload: Workload
    public var label: String
    /// Timed runs per side.
    public var runs: Int
    /// Median milliseconds.
    public var strataMs: Double
    public var baselineMs: Double
    /// Strata's median over the baseline's: below 1 is faster.
    public var ratio: Double
    /// Every run, in milliseconds, in the order run.
    public var strataRunsMs: [Double]
    public var baselineRunsMs: [Double]
    /// Stream only: the largest growth of the resident high-water mark over the runs, in MB.
    public var strataPeakMB: Double?
    public var baselinePeakMB: Double?
    /// Stream only: the process's resident high-water mark at the end of the worst run, in MB.
    public var strataPeakResidentMB: Double?
    public var target: Target?
    /// Whether the target was met; nil when there is none.
    public var met: Bool?
    /// Whether both sides read (or wrote) the same data in every run.
    public var checksumsMatch: Bool
}

/// The results on one backend, or why it was skipped.
public struct BackendReport: Sendable, Codable {
    public var backend: Backend
    /// What the Strata side ran on (`sqlite (file, WAL)`, …).
    public var title: String
    public var baselineName: String
    public var skipped: String?
    public var results: [WorkloadResult]
    /// Versions and other facts about this backend.
    public var notes: [String]
}

/// A whole benchmark run.
public struct BenchReport: Sendable, Codable {
    public var command: String
    /// ISO 8601, UTC.
    public var date: String
    public var host: String
    public var scale: Int
    public var iterations: Int
    public var sizes: WorkloadSizes
    /// How peak memory was measured.
    public var memoryMethod: String
    public var backends: [BackendReport]
}
