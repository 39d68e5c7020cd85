// FullTextSearchArticleTests: the Full-text search article's example, run on SQLite and the memory driver.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Model struct Recipe {
    var id: Int64?
    var title: String
    var body: String?
    var searchDocument = ""  // written by Strata from title and body; read it, never set it
    static var searchable: SearchableColumns<Recipe>? { .init(\.title, \.body, document: \.searchDocument) }
}

@Suite("Full-text search article example")
struct FullTextSearchArticleTests {
    @Test("match, OR, prefixes, composition and rank", arguments: ["sqlite", "memory"])
    func example(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fts-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }

        // Full-text search article
        try await db.migrate(Recipe.self)
        var a = Recipe(title: "Crème brûlée", body: "A Swift ORM's migrations")
        try await a.save(on: db)  // search_document = "creme brulee a swift orm s migrations"

        let hits = try await Recipe.query(on: db).match("swift migr*").all()  // both words; a prefix
        let either = try await Recipe.query(on: db).match("rust OR swift").all()  // either word
        let mixed = try await Recipe.query(on: db).where(.match("creme") && \.id > 0).all()  // with other conditions
        let best = try await Recipe.query(on: db).match("swift OR orm OR rust").orderByRank().order(\.id).all()

        var b = Recipe(title: "Rust", body: "an ORM")
        try await b.save(on: db)
        let ranked = try await Recipe.query(on: db).match("swift OR orm OR rust").orderByRank().order(\.id).all()
        let stored = try await Recipe.query(on: db).where(\.id == a.id).all()

        #expect(hits.map(\.title) == ["Crème brûlée"])
        #expect(either.count == 1 && mixed.count == 1 && best.count == 1)
        #expect(ranked.map(\.title) == ["Crème brûlée", "Rust"])  // 2 terms each: the id breaks the tie
        #expect(stored.map(\.searchDocument) == ["creme brulee a swift orm s migrations"])
        #expect(a.searchDocument == "", "the write leaves the model's property alone")
    }
}
