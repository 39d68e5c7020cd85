// InspectHostileSchemaTests: `strata inspect` over a schema whose names and declared types hold newlines and
// quotes emits no code of the schema's choosing: every name is escaped in comments and string literals.
import Foundation
import Strata
import StrataSQLite
import Testing

/// The real `sqlite3` tool, for tables Strata did not write.
enum SQLiteTool {
    /// Runs `sql` on the file at `path` and returns what `sqlite3` prints.
    @discardableResult
    static func run(_ path: String, _ sql: String) throws -> String {
        let tool = "/usr/bin/sqlite3"
        try #require(FileManager.default.isExecutableFile(atPath: tool), "the sqlite3 tool is needed")
        let outcome = try ToolRun.run(tool, ["-bail", path, sql], errors: .separate)
        try #require(outcome.status == 0, "sqlite3 failed: \(outcome.errors)")
        return outcome.output.trimmingCharacters(in: .newlines)
    }
}

@Suite("strata inspect over a hostile schema")
struct InspectHostileSchemaTests {
    static let schema = """
        CREATE TABLE hostile (id INTEGER PRIMARY KEY, t 'TIME
        struct PwnedType {}
        //', u "JSON""
        let pwnedJSON = 1", v 'GEOMETRY\u{2028}let pwnedSeparator = 1');
        CREATE TABLE "skip
        struct PwnedSkip {}
        //" (a TEXT);
        CREATE TABLE "evil
        let pwnedTable = 1 //" (id INTEGER PRIMARY KEY, "col
        let pwnedColumn = 1 //\\" TEXT);
        INSERT INTO hostile (t, u, v) VALUES ('10:30', '{}', 'x');
        """

    @Test("declared types, skipped tables and names are escaped: no line of the output is the schema's code")
    func hostileNamesEscaped() async throws {
        let file = TemporarySQLiteFile()
        try SQLiteTool.run(file.path, Self.schema)
        let db = try Database.open("sqlite:\(file.path)?migrate=off", drivers: [.sqlite])
        defer { db.close() }
        let source = try await db.withConnection { tx in try ModelSource.inspect(tx) }
        for line in source.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let code = line.trimmingCharacters(in: .whitespaces)
            #expect(!code.hasPrefix("struct Pwned"), "injected declaration: \(line)")
            #expect(!code.hasPrefix("let pwned"), "injected declaration: \(line)")
            if code.contains("pwned") || code.contains("Pwned") {
                let identifierStruct =
                    code.hasPrefix("struct ") && code.hasSuffix(" {")
                    && code.dropFirst(7).dropLast(2).allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
                #expect(
                    code.hasPrefix("//") || code.hasPrefix("@Model(table: \"") || code.hasPrefix("@Column(\"")
                        || identifierStruct,
                    "a hostile name only in a comment or a string literal: \(line)")
            }
        }
        let bad = source.unicodeScalars.filter {
            ($0.properties.generalCategory == .control && $0 != "\n") || $0 == "\u{2028}" || $0 == "\u{2029}"
                || $0.properties.generalCategory == .format
        }
        #expect(bad.isEmpty, "no control, format or separator character but newlines: \(bad.map(\.value))")
        #expect(source.contains("PwnedSkip"), "the skipped table is still listed, escaped")
        // Every string literal closes on its line: an even number of unescaped quotes outside comments.
        for line in source.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
            var quotes = 0
            var escape = false
            for ch in line {
                if escape {
                    escape = false
                } else if ch == "\\" {
                    escape = true
                } else if ch == "\"" {
                    quotes += 1
                }
            }
            #expect(quotes % 2 == 0, "an unterminated string literal: \(line)")
        }
    }
}
