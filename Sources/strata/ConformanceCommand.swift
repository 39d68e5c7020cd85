// ConformanceCommand: `strata conformance --url URL` runs the shared suite and prints one line per case.
import ArgumentParser
import Foundation
import Strata
import StrataConformance

struct ConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Run the conformance suite against a database URL; exits non-zero when a case fails."
    )

    @Option(help: "The database to test: sqlite:PATH, sqlite::memory:, memory:, postgres://… (default: DATABASE_URL).")
    var url: String?

    @Option(help: "Run only the cases whose name contains this text.")
    var filter: String?

    mutating func run() async throws {
        let target = url ?? ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "memory:"
        let db: Database
        do {
            db = try Database.open(target, drivers: StrataCommand.drivers)
        } catch {
            print("cannot open \(DatabaseURL.redacting(target)): \(error)")
            throw ExitCode(2)
        }
        defer { db.close() }
        let cases = ConformanceSuite.cases.filter { filter == nil || $0.name.contains(filter ?? "") }
        let width = (cases.map(\.name.count).max() ?? 10) + 2
        print("Strata conformance on \(db.driverName) (\(cases.count) cases)")
        var passed = 0
        var failed = 0
        var unsupported = 0
        for c in cases {
            let outcome = await ConformanceSuite.run(c, on: db)
            switch outcome {
            case .passed: passed += 1
            case .failed: failed += 1
            case .unsupported: unsupported += 1
            }
            print(c.name.padding(toLength: width, withPad: " ", startingAt: 0) + outcome.description)
        }
        print("\(db.driverName): \(passed) passed, \(failed) failed, \(unsupported) unsupported")
        if failed > 0 { throw ExitCode.failure }
    }
}
