// BenchOptions: what `strata bench` was asked to run: backends, workloads, scale, repetitions, outputs.
import Strata

/// The options of one benchmark run.
public struct BenchOptions: Sendable {
    /// The backends to measure, in this order.
    public var backends: [Backend]
    /// The workloads to run; all by default.
    public var workloads: [Workload]
    /// Counts are divided by this (a quick smoke run uses 100).
    public var scale: Int
    /// Timed runs per side for each workload; the large ones (bulk, stream) run about half as often.
    public var iterations: Int
    /// The PostgreSQL URL (libpq's environment fills what it leaves out).
    public var postgresURL: String
    /// The directory for the SQLite file; a fresh temporary directory by default.
    public var directory: String?
    /// Where to write the figures as JSON.
    public var jsonPath: String?
    /// Where to write the SVG chart of the ratios.
    public var chartPath: String?
    /// The command line that produced the run, recorded in the JSON and the chart.
    public var commandLine: String
    /// Also count each side's instructions under callgrind (slow: one valgrind child per side and workload).
    public var instructions = false
    /// The divisor applied to the counts of the instruction-counting runs (default: ``scale``).
    public var instructionScale: Int?
    /// Runs one side of one workload once, instrumented, and prints its time (the child of ``instructions``).
    public var once: Side?
    /// How to start this program's `bench` subcommand (the executable and `bench`), for the valgrind children.
    public var selfCommand: [String] = []
    /// Seconds per timed run of the throughput workloads (pgbench's `-T`).
    public var throughputSeconds = 5.0
    /// Whether Strata's side runs observed: a metrics backend (``BenchMetrics``) and a slow-statement threshold set,
    /// as a server app with metrics on runs.
    public var observed = false

    /// Options for a run; by default every backend and workload at full scale, five runs per side.
    public init(
        backends: [Backend] = Backend.allCases, workloads: [Workload] = Workload.allCases, scale: Int = 1,
        iterations: Int = 5, postgresURL: String = "postgres://", directory: String? = nil,
        jsonPath: String? = nil, chartPath: String? = nil, commandLine: String = "strata bench"
    ) {
        self.backends = backends
        self.workloads = workloads
        self.scale = max(1, scale)
        self.iterations = max(1, iterations)
        self.postgresURL = postgresURL
        self.directory = directory
        self.jsonPath = jsonPath
        self.chartPath = chartPath
        self.commandLine = commandLine
    }

    /// The metrics backend of an observed run, shared by its databases.
    static let metrics = BenchMetrics()

    /// `base` with observability on when the run is ``observed``: every statement timed and counted, none slow
    /// enough (1 s) to be logged. Under callgrind (``once``), which runs 50 times slower, the threshold is an hour,
    /// so that the counts are of the same work as the timed run's.
    func configuration(_ base: Configuration = Configuration()) -> Configuration {
        guard observed else { return base }
        var configuration = base
        configuration.metricsFactory = Self.metrics
        configuration.slowStatementThreshold = once == nil ? 1 : 3_600
        return configuration
    }

    /// Timed runs per side for a workload.
    func runs(for workload: Workload) -> Int {
        workload.isLarge ? max(1, (iterations + 1) / 2) : iterations
    }
}
