// Fixtures+Search: articles whose title and body the search. cases match, through the document Strata writes.
import Foundation
import Strata

/// An article searched by title and body; `searchDocument` is written by Strata only.
@Model(table: "conf_search_article")
struct ConfSearchArticle {
    var id: Int64?
    var slug: String
    var title: String
    var body: String?
    var searchDocument: String = ""
    static var searchable: SearchableColumns<ConfSearchArticle>? { .init(\.title, \.body, document: \.searchDocument) }
    static var indexes: [Index] { [Index(columns: ["slug"], unique: true)] }
}

/// A model with no searchable columns, which `match` refuses.
@Model(table: "conf_plain_note")
struct ConfPlainNote {
    var id: Int64?
    var text: String
}

extension ConformanceSuite {
    /// Saves one article per (slug, title, body), in order, and returns them.
    @discardableResult
    static func seedArticles(_ db: Database, _ rows: [(String, String, String?)]) async throws -> [ConfSearchArticle] {
        try await db.migrate(ConfSearchArticle.self)
        var out: [ConfSearchArticle] = []
        for (slug, title, body) in rows {
            var a = ConfSearchArticle(slug: slug, title: title, body: body)
            try await a.save(on: db)
            out.append(a)
        }
        return out
    }

    /// The slugs of the articles matching `text`, by id.
    static func slugs(_ db: Database, _ text: String) async throws -> [String] {
        try await ConfSearchArticle.query(on: db).match(text).order(\.id).all().map(\.slug)
    }

    static func isInvalidSearch(_ e: StrataError, part: String) -> Bool {
        if case .invalidSearch(model: _, part: part, _) = e { return true }
        return false
    }
}
