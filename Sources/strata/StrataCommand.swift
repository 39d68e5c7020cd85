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

    /// Every driver this tool can open by URL.
    static let drivers: [DriverFactory] = [.sqlite, .memory, .postgres]
}
