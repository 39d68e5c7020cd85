// Fixtures+JSONPaths: profiles whose Codable settings the json-path cases filter, order and select by.
import Foundation
import Strata

/// Settings stored as one JSON document; `fontSize` is stored under the custom coding key `font_size`.
struct ConfSettings: Codable, Hashable, Sendable, DatabaseValueConvertible {
    var theme: String
    var fontSize: Int
    var scale: Double
    var beta: Bool
    var recent: [String]
    var owner: ConfOwner?

    enum CodingKeys: String, CodingKey {
        case theme, fontSize = "font_size", scale, beta, recent, owner
    }
}

/// A nested object of ``ConfSettings``.
struct ConfOwner: Codable, Hashable, Sendable {
    var name: String
    var level: Int
}

/// A JSON document stored as it is written (`{"v":1.0}` keeps its fraction), for the cases that pin how a
/// value of another JSON type, or a number's spelling, reads.
struct ConfDocument: DatabaseValueConvertible, Hashable, Sendable {
    var text: String
    init(_ text: String) { self.text = text }
    static var columnType: ColumnType { .json }
    var databaseValue: DatabaseValue { .json(text) }
    init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        switch databaseValue {
        case .json(let s), .text(let s): text = s
        default: throw ValueConversionError(databaseValue, expected: ConfDocument.self)
        }
    }
}

/// A profile: settings, and a free-form document.
@Model(table: "conf_profile")
struct ConfProfile {
    var id: Int64?
    var name: String
    var settings: ConfSettings
    var doc: ConfDocument?
}

extension ConformanceSuite {
    /// Five profiles, by id: ann (dark, 14), bo (light, 12), cy (dark, 16, no owner), dee (solarized, 12),
    /// émile (Dark, 10, no recent).
    static func seedProfiles(_ db: Database) async throws {
        try await db.migrate(ConfProfile.self)
        let rows: [(String, ConfSettings)] = [
            (
                "ann",
                ConfSettings(
                    theme: "dark", fontSize: 14, scale: 1, beta: true, recent: ["a", "b"],
                    owner: ConfOwner(name: "zed", level: 3))
            ),
            (
                "bo",
                ConfSettings(
                    theme: "light", fontSize: 12, scale: 1.5, beta: false, recent: ["c"],
                    owner: ConfOwner(name: "amy", level: 1))
            ),
            (
                "cy",
                ConfSettings(
                    theme: "dark", fontSize: 16, scale: 0.75, beta: false, recent: ["b", "a", "c"],
                    owner: nil)
            ),
            (
                "dee",
                ConfSettings(
                    theme: "solarized", fontSize: 12, scale: 2, beta: true, recent: ["d"],
                    owner: ConfOwner(name: "Bob", level: 2))
            ),
            (
                "émile",
                ConfSettings(
                    theme: "Dark", fontSize: 10, scale: -0.5, beta: false, recent: [],
                    owner: ConfOwner(name: "émile", level: 9_007_199_254_740_993))
            ),
        ]
        try await db.transaction { tx in
            for (name, settings) in rows {
                var p = ConfProfile(name: name, settings: settings, doc: nil)
                try p.save(tx)
            }
        }
    }

    /// One profile per document, named `d1`, `d2`, … in order, with default settings.
    static func seedDocuments(_ db: Database, _ documents: [String?]) async throws {
        try await db.migrate(ConfProfile.self)
        let settings = ConfSettings(theme: "", fontSize: 0, scale: 0, beta: false, recent: [], owner: nil)
        try await db.transaction { tx in
            for (n, text) in documents.enumerated() {
                var p = ConfProfile(name: "d\(n + 1)", settings: settings, doc: text.map(ConfDocument.init))
                try p.save(tx)
            }
        }
    }
}
