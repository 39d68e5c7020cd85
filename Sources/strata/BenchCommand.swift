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
            reachable (pg_virtualenv -v 15 swift run -c release strata bench), else it is skipped.
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

    func validate() throws {
        _ = try parsedBackends()
        _ = try parsedWorkloads()
        guard scale >= 1 else { throw ValidationError("--scale must be at least 1") }
        guard iterations >= 1 else { throw ValidationError("--iterations must be at least 1") }
    }

    mutating func run() async throws {
        let options = BenchOptions(
            backends: try parsedBackends(), workloads: try parsedWorkloads(), scale: scale, iterations: iterations,
            postgresURL: postgresURL, directory: dir, jsonPath: json, chartPath: chart,
            commandLine: (["strata"] + CommandLine.arguments.dropFirst()).joined(separator: " "))
        let report = try await StrataBench.run(options)
        if markdown {
            print("")
            print(StrataBench.markdown(report))
        }
        if let json { print("\nFigures written to \(json).") }
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
