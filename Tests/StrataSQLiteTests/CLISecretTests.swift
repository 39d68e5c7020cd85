// CLISecretTests: `strata inspect` and `strata conformance` never print a password from `--url` when opening fails.
import Foundation
import Testing

@Suite("CLI secrets")
struct CLISecretTests {
    /// Runs the `strata` executable with `arguments`; returns its exit status and its output (stdout + stderr).
    static func run(_ arguments: [String]) throws -> (Int32, String) {
        let strata = try #require(
            SQLiteMigrationCLITests.strataExecutable(), "build the strata product (swift build --build-tests)")
        let outcome = try ToolRun.run(
            strata.path, arguments,
            environment: ProcessInfo.processInfo.environment.filter { $0.key != "DATABASE_URL" },
            errors: .merged)
        return (outcome.status, outcome.output)
    }

    @Test(
        "a URL that fails to open is printed with its passwords hidden",
        arguments: [
            ["inspect", "--url", "sqlite:/nonexistent-dir/x.sqlite?password=hunter2"],
            ["conformance", "--url", "sqlite:/nonexistent-dir/x.sqlite?password=hunter2"],
            ["inspect", "--url", "postgres://ann:hunter2@127.0.0.1:1/db?connect_timeout=2"],
            ["conformance", "--url", "postgres://ann@127.0.0.1:1/db?sslpassword=hunter2&connect_timeout=2"],
            ["inspect", "--url", "postgres://ann@127.0.0.1:1/db?connect_timeout=2&Password=hunter2"],
        ])
    func urlRedactedWhenOpeningFails(_ arguments: [String]) async throws {
        // The child is waited for on a thread of its own, not on a cooperative thread the rest of the run needs.
        let (status, output) = try await withCheckedThrowingContinuation { c in
            Thread { c.resume(with: Result { try Self.run(arguments) }) }.start()
        }
        #expect(status == 2, "opening fails: \(output)")
        #expect(output.contains("cannot open"), "\(output)")
        #expect(!output.contains("hunter2"), "the password is hidden: \(output)")
        #expect(output.contains("***"), "…and says so: \(output)")
    }
}
