// StrataCommand: the `strata` command-line tool: demo, conformance, bench, fuzz, inspect.
import ArgumentParser
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite

@main
struct StrataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Strata, an ActiveRecord-style ORM for Swift: demo and conformance tools.",
        subcommands: [
            DemoCommand.self, ConformanceCommand.self, BenchCommand.self, FuzzCommand.self, InspectCommand.self,
            MigrateCommand.self, FuzzWritesCommand.self, FuzzShardsCommand.self, FuzzMigrationsCommand.self,
            SharedWriterCommand.self,
        ]
    )

    /// A `--steps` range such as `20-60` (both ends at least 1, in order), or nil.
    static func stepRange(_ text: String) -> ClosedRange<Int>? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[0] <= parts[1] else { return nil }
        return parts[0]...parts[1]
    }

    /// Every driver this tool can open by URL.
    static let drivers: [DriverFactory] = [.sqlite, .memory, .postgres]
}
