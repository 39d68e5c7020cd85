// FuzzShardsCommand: `strata fuzz-shards --shard A --shard B --whole C` compares random queries on a sharded
// database with the same queries on one database holding every row.
import ArgumentParser
import Foundation
import Strata
import StrataDifferential

struct FuzzShardsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz-shards",
        abstract: "Compare random queries on a sharded database with one database holding every row.",
        discussion: """
            The shards (two or more --shard URLs, any drivers) and the --whole database get the same random rows
            of the table sf_row (dropped first), spread over the shards by their tenant key. Each random query
            (pinned to one tenant or fanned out, ordered by up to four columns over NULLs, code-point text,
            doubles and dates, with LIMIT and OFFSET; all, first, count, exists, sum, min or max) must answer the
            same on both sides. Exits non-zero when one does not, printing each query that disagrees.
            """
    )

    @Option(name: .customLong("shard"), help: "A shard: memory:, sqlite:PATH, postgres://… (twice or more).")
    var shards: [String] = []

    @Option(help: "The database that gets every row.")
    var whole: String = "memory:"

    @Option(help: "How many queries to compare.")
    var queries = 2000

    @Option(help: "How many rows to insert.")
    var rows = 200

    @Option(help: "The seed (default: a new one, printed first).")
    var seed: UInt64?

    func validate() throws {
        guard shards.count >= 2 else { throw ValidationError("give two --shard URLs or more") }
        guard queries >= 0, rows >= 0 else { throw ValidationError("--queries and --rows must not be negative") }
    }

    mutating func run() async throws {
        let seed = self.seed ?? UInt64.random(in: 1...UInt64(Int64.max))
        var opened: [Database] = []
        defer { for db in opened { db.close() } }
        for url in shards + [whole] {
            do {
                opened.append(try Database.open(url, drivers: StrataCommand.drivers))
            } catch {
                print("cannot open \(DatabaseURL.redacting(url)): \(error)")
                throw ExitCode(2)
            }
        }
        print("strata fuzz-shards: seed \(seed), \(queries) queries on \(shards.count) shards")
        let report = try await ShardFuzz.run(
            shards: Array(opened.dropLast()), whole: opened[opened.count - 1], rows: rows, queries: queries,
            seed: seed)
        for line in report.mismatches { print(line) }
        print(
            "\(report.queries) queries (\(report.fannedOut) fanned out, \(report.pinned) pinned), "
                + "\(report.mismatches.count) disagreements")
        if !report.mismatches.isEmpty { throw ExitCode.failure }
    }
}
