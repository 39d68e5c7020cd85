// BenchCommand: `strata bench` times each workload through Strata and through the raw C API, and prints the ratios.
import ArgumentParser
import Foundation
import StrataBench

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Compare Strata with raw libsqlite3 / libpq (and the memory driver with SQLite in memory).",
        discussion: """
            Build in release mode first: swift run -c release strata bench. Workloads: \
            \(Workload.allCases.map(\.rawValue).joined(separator: ", ")). PostgreSQL runs when a server is \
            reachable (pg_virtualenv -v 15 swift run -c release strata bench), else it is skipped; its \
            pg-sleep and pg-select workloads run beside pgbench on the same server (skipped without pgbench). \
            A checksum mismatch between the two sides fails the run. --instructions also counts each side's \
            instructions under valgrind's callgrind (slow; try --instructions-scale 10).
            """
    )

    @Option(help: "Comma-separated backends: sqlite, memory, postgres.")
    var backends = "sqlite,memory,postgres"

    @Option(help: "Comma-separated workloads to run (default: all).")
    var only: String?

    @Option(help: "Divide every count by this, for a quick smoke run (e.g. 100).")
    var scale = 1

    @Option(help: "Timed runs per side; bulk and stream run about half as many.")
    var iterations = 5

    @Option(name: .customLong("postgres-url"), help: "PostgreSQL URL; PG* variables fill in what it leaves out.")
    var postgresURL = "postgres://"

    @Option(help: "Directory for the SQLite file (default: a fresh temporary directory).")
    var dir: String?

    @Option(help: "Write the figures as JSON to this path.")
    var json: String?

    @Option(help: "Write an SVG bar chart of the ratios to this path.")
    var chart: String?

    @Flag(help: "Also print the tables in Markdown, ready for the README.")
    var markdown = false

    @Flag(help: "Also count each side's instructions in each timed section with valgrind --tool=callgrind.")
    var instructions = false

    @Option(
        name: .customLong("instructions-scale"),
        help: "Divide the counts of the callgrind runs by this (default: --scale).")
    var instructionsScale: Int?

    @Option(
        name: .customLong("check-instructions"),
        help: ArgumentHelp(
            "Fail when an instruction ratio grew by more than --tolerance over the one committed in this report.",
            discussion: "Implies --instructions; what CI runs against docs/benchmark.json at a tenth of the counts."))
    var checkInstructions: String?

    @Option(
        name: .customLong("update-instructions"),
        help: "Write this run's instruction ratios into this report (docs/benchmark.json), keeping the rest of it.")
    var updateInstructions: String?

    @Option(help: "With --check-instructions: the relative growth of a ratio that fails the check (0.10: 10 %).")
    var tolerance = 0.10

    @Option(name: .customLong("throughput-seconds"), help: "Seconds per run of pg-sleep and pg-select (pgbench -T).")
    var throughputSeconds = 5

    @Flag(
        help: ArgumentHelp(
            "Run Strata's side observed: a swift-metrics backend and a slow-statement threshold (1 s) set.",
            discussion: "What a server app with metrics on pays; compare with a run without it."))
    var observed = false

    @Flag(help: "Run one side of one workload once, instrumented for callgrind (what --instructions runs).")
    var once = false

    @Option(help: "With --once: strata, raw or floor.")
    var side: String?

    func validate() throws {
        _ = try parsedBackends()
        _ = try parsedWorkloads()
        guard scale >= 1 else { throw ValidationError("--scale must be at least 1") }
        guard iterations >= 1 else { throw ValidationError("--iterations must be at least 1") }
        guard throughputSeconds >= 1 else { throw ValidationError("--throughput-seconds must be at least 1") }
        guard tolerance > 0, tolerance < 1 else { throw ValidationError("--tolerance must be between 0 and 1") }
        if let instructionsScale, instructionsScale < 1 {
            throw ValidationError("--instructions-scale must be at least 1")
        }
        if once {
            guard let side, Side(rawValue: side) != nil else {
                throw ValidationError("--once needs --side strata, raw or floor")
            }
            guard try parsedBackends().count == 1, try parsedWorkloads().count == 1 else {
                throw ValidationError("--once needs one backend (--backends) and one workload (--only)")
            }
        }
    }

    mutating func run() async throws {
        var options = BenchOptions(
            backends: try parsedBackends(), workloads: try parsedWorkloads(), scale: scale, iterations: iterations,
            postgresURL: postgresURL, directory: dir, jsonPath: json, chartPath: chart,
            commandLine: (["strata"] + CommandLine.arguments.dropFirst()).joined(separator: " "))
        options.instructions = instructions || checkInstructions != nil || updateInstructions != nil
        options.instructionScale = instructionsScale
        options.throughputSeconds = Double(throughputSeconds)
        options.observed = observed
        options.once = once ? side.flatMap(Side.init(rawValue:)) : nil
        options.selfCommand = [Bundle.main.executablePath ?? CommandLine.arguments[0], "bench"]
        let report = try await StrataBench.run(options)
        if once { return }
        if markdown {
            print("")
            print(StrataBench.markdown(report))
        }
        if let json { print("\nFigures written to \(json).") }
        // Checked before any update, so that both given the same file compare with what it held.
        var regressions = 0
        if let path = checkInstructions {
            print("")
            regressions = try StrataBench.checkInstructions(report, against: path, tolerance: tolerance) {
                print($0)
            }.regressions.count
        }
        if let path = updateInstructions {
            try StrataBench.updateInstructions(report, in: path)
            print("Instruction ratios written to \(path).")
        }
        guard regressions == 0 else {
            print("\(regressions) instruction ratio(s) regressed past the tolerance.")
            throw ExitCode.failure
        }
        if let chart { print("Chart written to \(chart).") }
    }

    private func parsedBackends() throws -> [Backend] {
        try names(backends).map { name in
            guard let b = Backend(rawValue: name) else {
                throw ValidationError("unknown backend '\(name)' (expected sqlite, memory or postgres)")
            }
            return b
        }
    }

    private func parsedWorkloads() throws -> [Workload] {
        guard let only else { return Workload.allCases }
        return try names(only).map { name in
            guard let w = Workload(rawValue: name) else {
                let known = Workload.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("unknown workload '\(name)' (expected one of \(known))")
            }
            return w
        }
    }

    private func names(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
