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
        let p = Process()
        let out = Pipe()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments =
            ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"] + (database.map { ["-d", $0] } ?? []) + [
                "-c", sql,
            ]
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
