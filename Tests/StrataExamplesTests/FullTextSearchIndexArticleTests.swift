// FullTextSearchIndexArticleTests: the Full-text search article's FTS5 section: the index migration creates on
// SQLite is the one the article shows, and the example's match reads it.
import Foundation
import Strata
import StrataSQLite
import Testing

@Suite("Full-text search article: FTS5 on SQLite")
struct FullTextSearchIndexArticleTests {
    /// The article's `CREATE VIRTUAL TABLE` statement, from its text, on one line.
    static func articleStatement() throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Strata/Strata.docc/FullTextSearch.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        let start = try #require(text.range(of: "CREATE VIRTUAL TABLE"))
        let end = try #require(text[start.lowerBound...].range(of: "columnsize=0)"))
        return text[start.lowerBound..<end.upperBound].split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test("migrate runs the article's CREATE VIRTUAL TABLE, and the example's match reads the index")
    func index() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fts5-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open("sqlite:\(path)", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(Recipe.self)
        let ddl = try SQLRenderer.searchIndexSQL(table: "recipe", column: "search_document", dialect: SQLiteDialect())
        #expect(ddl.first == (try Self.articleStatement()))
        var a = Recipe(title: "Crème brûlée", body: "A Swift ORM's migrations")
        try await a.save(on: db)
        let stored = try await db.unsafeRawExecute(
            "SELECT sql FROM sqlite_schema WHERE name = 'recipe_search_document_fts'")
        #expect(stored.first?.first == .text(ddl[0].replacingOccurrences(of: " IF NOT EXISTS", with: "")))
        let rows = try await db.unsafeRawExecute(
            #"SELECT rowid FROM "recipe_search_document_fts" WHERE "recipe_search_document_fts" MATCH ?"#,
            [#""swift" AND "migr"*"#])
        #expect(rows.count == 1, "the index holds the saved document")
        #expect(try await Recipe.query(on: db).match("swift migr*").all().map(\.title) == ["Crème brûlée"])
    }
}
