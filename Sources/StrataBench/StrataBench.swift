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
        var report = BenchReport(
            command: options.commandLine, date: ISO8601DateFormatter().string(from: Date()), host: host(),
            scale: options.scale, iterations: options.iterations, sizes: sizes,
            memoryMethod: PeakMemory.resetHighWater()
                ? "in process: free heap returned (malloc_trim), VmHWM reset (/proc/self/clear_refs) before each"
                    + " stream run; growth = VmHWM after it - VmRSS before it"
                : "VmHWM could not be reset: growth over VmRSS before the stream, which runs first (approximate)",
            backends: [])
        log(
            "Strata benchmark · \(report.host) · scale 1/\(options.scale) · \(options.iterations) timed runs per side (half for bulk and stream)"
        )
        log("Peak memory: \(report.memoryMethod).")
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
            let results: [WorkloadResult]
            do {
                results = try await runner.run()
            } catch {
                await pair.tearDown()
                throw error
            }
            await pair.tearDown()
            let backendReport = BackendReport(
                backend: backend, title: pair.title, baselineName: backend.baselineName, skipped: nil,
                results: results, notes: pair.notes)
            report.backends.append(backendReport)
            log("")
            log(TextTable.render(backendReport))
            if results.contains(where: { !$0.checksumsMatch }) {
                log("(!) Strata and the baseline read different data in some run: the figures are suspect.")
            }
        }
        try write(report, options)
        return report
    }

    /// The README-ready Markdown tables of a report.
    public static func markdown(_ report: BenchReport) -> String {
        report.backends.filter { $0.skipped == nil }.map { b in
            "**\(b.title)** vs \(b.baselineName)\n\n" + TextTable.markdown(b)
        }.joined(separator: "\n\n")
    }

    private static func write(_ report: BenchReport, _ options: BenchOptions) throws {
        if let path = options.jsonPath {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: path))
        }
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
