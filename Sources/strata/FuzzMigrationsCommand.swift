// FuzzMigrationsCommand: `strata fuzz-migrations --url A --url B …` runs seeded migration programs on every backend and
// reports the first disagreement, shrunk.
import ArgumentParser
import Foundation
import Strata
import StrataDifferential

struct FuzzMigrationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz-migrations",
        abstract: "Run generated migration programs on several databases and compare them after every step.",
        discussion: """
            Each program creates, drops and renames tables; adds, drops, renames and retypes columns (values \
            converted, NULLs filled); sets defaults; adds and drops indexes (unique ones too) and foreign keys; \
            reverts steps; runs data transforms inside steps (UPDATEs, writes through a model, an error of the \
            app's own); and writes rows between the steps, as raw rows and through a model (MPItem, on mp_item) \
            whose table the steps change under it. About one change in six is made to fail. After each step every \
            database must report the same outcome (for a model write, the same models after it) and hold the same \
            tables, columns, defaults, indexes, foreign keys, rows and migration log as the first. Exits non-zero \
            on the first disagreement, printing the shortest failing program. The tables are named mp_* and \
            strata_migrations (dropped at each program).
            """
    )

    @Option(name: .customLong("url"), help: "A database: memory:, sqlite::memory:, sqlite:PATH, postgres://…")
    var urls: [String] = []

    @Option(help: "How many programs to run.")
    var programs = 100

    @Option(help: "The seed (default: a new one, printed first).")
    var seed: UInt64?

    @Option(help: "Steps per program: a range such as 5-25.")
    var steps = "5-25"

    func validate() throws {
        guard urls.count >= 2 else { throw ValidationError("give at least two --url to compare") }
        guard programs >= 0 else { throw ValidationError("--programs must not be negative") }
        guard stepRange != nil else { throw ValidationError("--steps takes a range such as 5-25") }
    }

    private var stepRange: ClosedRange<Int>? { StrataCommand.stepRange(steps) }

    func run() throws {
        let seed = self.seed ?? UInt64.random(in: 1...UInt64(Int64.max))
        let range = stepRange ?? 5...25
        let runner: MigrationRunner
        do {
            runner = try MigrationRunner(urls: urls, drivers: StrataCommand.drivers)
        } catch {
            print("cannot open the databases: \(error)")
            throw ExitCode(2)
        }
        defer { runner.close() }
        print(
            "strata fuzz-migrations: seed \(seed), \(programs) programs of \(steps) steps on "
                + runner.names.joined(separator: ", "))
        let started = Date()
        var rng = SplitMix64(seed: seed)
        let types = MigrationProgramGenerator.allTypes.filter { runner.typesReadBack.contains($0) }
        let left = MigrationProgramGenerator.allTypes.filter { !types.contains($0) }
        if !left.isEmpty {
            print(
                "column types: \(types.map(\.rawValue).joined(separator: ", ")) (not "
                    + left.map(\.rawValue).joined(separator: ", ")
                    + ": an introspection here reads it back as another type, which its migrations then check)")
        }
        var generator = MigrationProgramGenerator(types: types)
        for n in 0..<programs {
            var programRNG = rng.fork()
            let length = range.lowerBound + programRNG.below(range.count)
            let found: MigrationDivergence?
            do {
                found = try runner.run(length: length, generator: &generator, &programRNG)
            } catch {
                // Resetting or reading a database failed outside any step: the program so far, for a reproduction.
                print("program \(n) stopped the runner: \(error)")
                for (i, step) in runner.lastProgram.enumerated() { print("  \(i): \(step)") }
                throw ExitCode(2)
            }
            if let failure = found {
                print("program \(n) disagrees; shrinking…")
                print(try runner.shrink(failure))
                let urlArgs = urls.map { "--url '\($0)'" }.joined(separator: " ")
                print(
                    "reproduce: strata fuzz-migrations \(urlArgs) --seed \(seed) --programs \(n + 1) --steps \(steps)")
                throw ExitCode.failure
            }
        }
        let census = runner.census.sorted { $0.key < $1.key }.map {
            "\($0.key) \($0.value.ran) (\($0.value.refused) in refused steps)"
        }
        print(
            String(
                format: "%d programs, %d steps, 0 divergences in %.1f s", programs, runner.steps,
                Date().timeIntervalSince(started)))
        print("changes and steps run: " + census.joined(separator: ", "))
    }
}
