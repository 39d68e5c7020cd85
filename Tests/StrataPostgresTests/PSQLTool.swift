// PSQLTool: the real `psql` command-line tool, for tests that build a database the way another tool would.
import Foundation
import Testing

/// Runs `psql` with the server's libpq environment (the PG* variables).
enum PSQLTool {
    /// Runs the real `psql` tool with the server's libpq environment on `database`; returns what it prints.
    @discardableResult
    static func run(_ database: String?, _ sql: String) throws -> String {
        let tool = "/usr/bin/psql"
        try #require(
            FileManager.default.isExecutableFile(atPath: tool), "the psql tool is needed (postgresql-client)")
        let arguments =
            ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"] + (database.map { ["-d", $0] } ?? []) + ["-c", sql]
        // Not Foundation's Process: on Linux its run() can crash reading /proc/self/fd (see ToolRun in the SQLite
        // tests). Its stderr (psql's notices) stays out of what it printed.
        let outcome = try SpawnedCommand.run(
            [tool] + arguments, environment: ProcessInfo.processInfo.environment, timeout: 120, stderr: false)
        try #require(outcome.status == 0)
        return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
