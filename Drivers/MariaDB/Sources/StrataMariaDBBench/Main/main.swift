// strata-mariadb-bench: Strata over MariaDB against raw libmariadb, each workload in the same run.
import Foundation
import StrataMariaDBBenchKit

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(BenchOptions.usage)
    exit(0)
}
do {
    let options = try BenchOptions(arguments: arguments)
    let title =
        "strata-mariadb-bench: \(options.iterations) timed runs per side after a warm-up, scale 1/\(options.scale)"
    FileHandle.standardOutput.write(Data((title + "\n" + BenchReport.header + "\n").utf8))
    let results = try await BenchRunner(options: options).run { result in
        FileHandle.standardOutput.write(Data((BenchReport.row(result) + "\n").utf8))
    }
    let report = BenchReport(command: CommandLine.arguments, options: options, results: results)
    print("load average \(report.loadAverage), \(report.date); ! marks a ratio above 1.2")
    if let path = options.json { try report.json().write(to: URL(fileURLWithPath: path)) }
} catch {
    FileHandle.standardError.write(Data("strata-mariadb-bench: \(error)\n".utf8))
    exit(1)
}
