// StrataBench: the entry point `strata bench` calls: runs every backend, prints tables, writes JSON and SVG.
import Foundation

/// Compares Strata with the raw C API of each backend (libsqlite3, libpq) in one process and run.
///
/// ```swift
/// let report = try await StrataBench.run(BenchOptions(backends: [.sqlite, .memory], jsonPath: "bench.json"))
/// ```
public enum StrataBench {
    /// Runs the benchmark, printing progress and one table per backend through `log`.
    ///
    /// A backend that cannot be opened (no PostgreSQL server) is reported as skipped, not failed.
    ///
    /// - Returns: the figures, also written to `options.jsonPath` and charted to `options.chartPath`.
    /// - Throws: ``BenchError`` when a run fails midway, or a file cannot be written.
    public static func run(_ options: BenchOptions, log: @escaping (String) -> Void = { print($0) }) async throws
        -> BenchReport
    {
        let sizes = WorkloadSizes(scale: options.scale)
        if let side = options.once { return try await once(side, options, sizes: sizes, log: log) }
        var report = BenchReport(
            command: options.commandLine, date: ISO8601DateFormatter().string(from: Date()), host: host(),
            scale: options.scale, iterations: options.iterations, sizes: sizes,
            memoryMethod: PeakMemory.resetHighWater()
                ? "in process: free heap returned (malloc_trim), VmHWM reset (/proc/self/clear_refs) before each"
                    + " stream run; growth = VmHWM after it - VmRSS before it"
                : "VmHWM could not be reset: growth over VmRSS before the stream, which runs first (approximate)",
            backends: [])
        if options.instructions { report.instructionScale = options.instructionScale ?? options.scale }
        log(
            "Strata benchmark · \(report.host) · scale 1/\(options.scale) · \(options.iterations) timed runs per side (half for bulk and stream)"
        )
        log("Peak memory: \(report.memoryMethod).")
        if options.observed {
            log("Observed: Strata's side runs with a metrics backend and a 1 s slow-statement threshold (--observed).")
        }
        log("Workloads (counts at full scale):")
        for w in options.workloads { log("  \(w.rawValue): \(w.summary)") }
        for backend in options.backends {
            log("")
            let pair: ContenderPair
            do {
                pair = try await BackendSetup.open(backend, options: options)
            } catch {
                log("\(backend.rawValue): skipped: \(error)")
                report.backends.append(
                    BackendReport(
                        backend: backend, title: backend.rawValue, baselineName: backend.baselineName,
                        skipped: "\(error)", results: [], notes: []))
                continue
            }
            log("\(pair.title): Strata vs \(backend.baselineName)")
            for note in pair.notes { log("  \(note)") }
            let runner = BackendRunner(backend: backend, pair: pair, options: options, sizes: sizes, log: log)
            var results: [WorkloadResult]
            do {
                results = try await runner.run()
            } catch {
                await pair.tearDown()
                throw error
            }
            await pair.tearDown()
            if options.instructions { results = try countInstructions(backend, results, options, log: log) }
            var backendReport = BackendReport(
                backend: backend, title: pair.title, baselineName: backend.baselineName, skipped: nil,
                results: results, notes: pair.notes)
            let throughput = options.workloads.filter(\.isThroughput)
            if backend == .postgres, !throughput.isEmpty {
                if let path = Pgbench.find() {
                    log("  throughput against \(path), same server:")
                    let runner = ThroughputRunner(
                        options: options, pgbench: Pgbench(path: path, url: options.postgresURL), log: log)
                    backendReport.throughput = try await runner.run(throughput)
                    if throughput.contains(.serverMix) { backendReport.serverMix = try await runner.serverMix() }
                } else {
                    backendReport.throughputSkipped = "pgbench not found (install postgresql-15)"
                    log("  \(throughput.map(\.rawValue).joined(separator: ", ")): skipped: pgbench not found")
                }
            }
            report.backends.append(backendReport)
            if !backendReport.results.isEmpty {  // none when only the throughput workloads ran
                log("")
                log(TextTable.render(backendReport))
            }
            if let t = backendReport.throughput, !t.isEmpty {
                log("")
                log(TextTable.renderThroughput(t))
            }
            if let mix = backendReport.serverMix {
                log("")
                log(TextTable.renderServerMix(mix))
            }
        }
        if options.observed {
            log("Metrics samples recorded: \(BenchOptions.metrics.samples.load(ordering: .relaxed)).")
        }
        try write(report, options)
        return report
    }

    /// The `--once` child: one instrumented run of one side of one workload on the first backend.
    private static func once(
        _ side: Side, _ options: BenchOptions, sizes: WorkloadSizes, log: @escaping (String) -> Void
    ) async throws -> BenchReport {
        guard let backend = options.backends.first, let w = options.workloads.first, !w.isThroughput else {
            throw BenchError("--once needs one backend and one of the timed workloads")
        }
        let pair = try await BackendSetup.open(backend, options: options)
        let runner = BackendRunner(backend: backend, pair: pair, options: options, sizes: sizes, log: { _ in })
        let sample: Sample
        do {
            sample = try await runner.once(w, side: side)
        } catch {
            await pair.tearDown()
            throw error
        }
        await pair.tearDown()
        log(
            "once \(backend.rawValue) \(w.rawValue) \(side.rawValue): \(Format.ms(sample.milliseconds)) ms, digest "
                + (sample.checksum?.description ?? "none") + (Instrumentation.onValgrind ? " (under valgrind)" : ""))
        return BenchReport(
            command: options.commandLine, date: ISO8601DateFormatter().string(from: Date()), host: host(),
            scale: options.scale, iterations: 1, sizes: sizes, memoryMethod: "", backends: [])
    }

    /// Fills in each result's instruction counts (one callgrind child per side and workload).
    private static func countInstructions(
        _ backend: Backend, _ results: [WorkloadResult], _ options: BenchOptions, log: (String) -> Void
    ) throws -> [WorkloadResult] {
        let valgrind: String
        switch InstructionCounter.find() {
        case .success(let path): valgrind = path
        case .failure(let reason):
            log("  instruction counts skipped: \(reason)")
            return results
        }
        let counter = InstructionCounter(options: options, valgrind: valgrind)
        defer { counter.cleanUp() }
        var out = results
        for i in out.indices {
            let w = out[i].workload
            log("  \(w.rawValue): counting instructions under callgrind…")
            let strata = try counter.count(backend, w, .strata)
            let raw = try counter.count(backend, w, .raw)
            out[i].strataInstructions = strata.instructions
            out[i].baselineInstructions = raw.instructions
            out[i].strataAllocations = strata.allocations
            out[i].baselineAllocations = raw.allocations
            if let ops = w.operations(WorkloadSizes(scale: options.instructionScale ?? options.scale)) {
                out[i].operationUnit = ops.unit
                out[i].countedOperations = ops.count
            }
            out[i].instructionRatio =
                raw.instructions > 0
                ? Summary.rounded(Double(strata.instructions) / Double(raw.instructions), 1_000) : nil
            if out[i].floorName != nil {
                let floor = try counter.count(backend, w, .floor).instructions
                out[i].floorInstructions = floor
                out[i].floorInstructionRatio =
                    floor > 0 ? Summary.rounded(Double(strata.instructions) / Double(floor), 1_000) : nil
            }
        }
        return out
    }

    /// The README-ready Markdown tables of a report.
    public static func markdown(_ report: BenchReport) -> String {
        report.backends.filter { $0.skipped == nil }.map { b in
            var tables = b.results.isEmpty ? [] : [TextTable.markdown(b)]
            if let t = b.throughput, !t.isEmpty { tables.append(TextTable.markdownThroughput(t)) }
            if let mix = b.serverMix { tables.append(TextTable.markdownServerMix(mix)) }
            return "**\(b.title)** vs \(b.baselineName)\n\n" + tables.joined(separator: "\n\n")
        }.joined(separator: "\n\n")
    }

    private static func write(_ report: BenchReport, _ options: BenchOptions) throws {
        if let path = options.jsonPath { try encoded(report).write(to: URL(fileURLWithPath: path)) }
        if let path = options.chartPath {
            try SVGChart.render(report).write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    private static func host() -> String {
        let info = ProcessInfo.processInfo
        #if os(Linux)
            let os = "Linux"
        #else
            let os = info.operatingSystemVersionString
        #endif
        let gb = Double(info.physicalMemory) / 1_073_741_824
        return "\(os), \(info.activeProcessorCount) cores, \(Format.fixed(gb, 0)) GB"
    }
}
