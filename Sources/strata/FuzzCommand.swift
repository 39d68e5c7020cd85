// FuzzCommand: `strata fuzz --url A --url B [--url C]` runs generated queries on every backend and compares them.
import ArgumentParser
import Foundation
import Strata
import StrataDifferential

struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Run generated queries on two or more databases and report every divergence.",
        discussion: """
            Each generated schema is built on every database, then its queries run on each and are compared
            row for row; TLP and NoREC check each database alone. Exits non-zero on any new divergence, after
            a line `reproduce with: swift run strata fuzz …` that runs the same queries again; otherwise the
            last line is `N queries, D divergences`. The tables are named fz_parent and fz_child.
            """
    )

    @Option(
        name: .customLong("url"), help: "A database: memory:, sqlite::memory:, sqlite:PATH, postgres://… (two or more)."
    )
    var urls: [String] = []

    @Option(help: "How many generated queries to run.")
    var queries = 2_000

    @Option(help: "The seed; the same seed and databases give the same queries.")
    var seed: UInt64 = 1

    @Option(help: "Generated queries per schema.")
    var perSchema = 100

    @Flag(help: "Leave U+FFFE and U+FFFF out of generated text.")
    var noNoncharacters = false

    @Flag(help: "Skip the single-backend oracles (TLP, NoREC).")
    var noOracles = false

    func validate() throws {
        guard urls.count >= 2 else { throw ValidationError("give at least two --url") }
        guard queries >= 0, perSchema > 0 else { throw ValidationError("--queries and --per-schema must be positive") }
    }

    func run() throws {
        let options = FuzzOptions(
            seed: seed, queries: queries, queriesPerSchema: perSchema, noncharacters: !noNoncharacters,
            oracles: !noOracles)
        let engine: DifferentialEngine
        do {
            engine = try DifferentialEngine(urls: urls, drivers: StrataCommand.drivers, options: options)
        } catch {
            print("cannot open the databases: \(error)")
            throw ExitCode(2)
        }
        engine.log = { print($0 + "\n") }
        print("strata fuzz: seed \(seed), \(queries) queries on " + engine.backends.map(\.name).joined(separator: ", "))
        let started = Date()
        let report = engine.run()
        print(String(format: "%d statements in %.1f s", report.statements, Date().timeIntervalSince(started)))
        if let known = report.knownSummary { print(known) }
        print(report.shares)
        print(report.summary)
        if !report.divergences.isEmpty {
            print("reproduce with: " + reproduction)
            throw ExitCode.failure
        }
    }

    /// The command line that runs these queries again (the same seed, counts and databases).
    var reproduction: String {
        var parts = ["swift run strata fuzz"] + urls.map { "--url '\($0)'" }
        parts += ["--queries \(queries)", "--seed \(seed)"]
        if perSchema != 100 { parts.append("--per-schema \(perSchema)") }
        if noNoncharacters { parts.append("--no-noncharacters") }
        if noOracles { parts.append("--no-oracles") }
        return parts.joined(separator: " ")
    }
}
