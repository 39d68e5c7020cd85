// FuzzWritesCommand: `strata fuzz-writes --url A --url B …` runs seeded write programs on every backend beside a
// reference model and reports the first disagreement, shrunk and printed as Swift.
import ArgumentParser
import Foundation
import Strata
import StrataDifferential

struct FuzzWritesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz-writes",
        abstract: "Run generated write programs on one or more databases beside a reference model.",
        discussion: """
            Each program (saves of new, fetched and decoded models, deletes, bulk updates and deletes, insertAll,
            upsert, transactions with nested savepoints that commit, roll back or fail, callbacks that throw before
            and after the write, a foreign key, writes and upserts of a history-tracked model with encrypted
            columns, in aborting transactions too, key rotations, reads and prunes of its change history) runs on
            every database; after each step every table, every model the program holds and the key that sealed
            each stored envelope must equal what the reference model in plain Swift says, and each step must end
            with the same outcome (the history's pages and the rows an encrypted equality filter finds included).
            Exits non-zero on the first disagreement, printing the shortest failing program. The tables are named
            wp_account, wp_entry, wp_note, strata_history and strata_history_clock (dropped at each program).
            """
    )

    @Option(name: .customLong("url"), help: "A database: memory:, sqlite::memory:, sqlite:PATH, postgres://…")
    var urls: [String] = []

    @Option(help: "How many programs to run.")
    var programs = 200

    @Option(help: "The seed (default: a new one, printed first).")
    var seed: UInt64?

    @Option(help: "Top-level steps per program: a range such as 20-60.")
    var steps = "20-60"

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("give at least one --url") }
        guard programs >= 0 else { throw ValidationError("--programs must not be negative") }
        guard stepRange != nil else { throw ValidationError("--steps takes a range such as 20-60") }
    }

    private var stepRange: ClosedRange<Int>? { StrataCommand.stepRange(steps) }

    func run() throws {
        let seed = self.seed ?? UInt64.random(in: 1...UInt64(Int64.max))
        let range = stepRange ?? 20...60
        let runner: WriteRunner
        do {
            runner = try WriteRunner(urls: urls, drivers: StrataCommand.drivers)
        } catch {
            print("cannot open the databases: \(error)")
            throw ExitCode(2)
        }
        print(
            "strata fuzz-writes: seed \(seed), \(programs) programs of \(steps) steps on "
                + runner.names.joined(separator: ", "))
        let started = Date()
        var rng = SplitMix64(seed: seed)
        var generator = WriteProgramGenerator()
        var census = (steps: 0, history: 0)
        for n in 0..<programs {
            var programRNG = rng.fork()
            let length = range.lowerBound + programRNG.below(range.count)
            let program = generator.program(length: length, &programRNG)
            let counted = WriteStep.census(program)
            census = (census.steps + counted.steps, census.history + counted.history)
            if let failure = try runner.check(program) {
                print("program \(n) disagrees; shrinking…")
                let shrunk = try runner.shrink(failure)
                print(shrunk)
                let urlArgs = urls.map { "--url '\($0)'" }.joined(separator: " ")
                print("reproduce: strata fuzz-writes \(urlArgs) --seed \(seed) --programs \(n + 1) --steps \(steps)")
                print("\(n + 1) programs, \(runner.steps) steps, 1 divergence")
                throw ExitCode.failure
            }
        }
        print(
            String(
                format: "%d programs, %d steps, 0 divergences in %.1f s; %.1f%% of the steps generated (nested ones "
                    + "included) write or read the history-tracked, encrypted note or the history",
                programs, runner.steps, Date().timeIntervalSince(started),
                census.steps == 0 ? 0 : 100 * Double(census.history) / Double(census.steps)))
    }
}
