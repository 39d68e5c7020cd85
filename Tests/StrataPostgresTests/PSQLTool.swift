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
        let (status, output) = try ToolRun.run(tool, arguments)
        try #require(status == 0)
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
