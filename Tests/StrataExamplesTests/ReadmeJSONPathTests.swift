// ReadmeJSONPathTests: the Writing queries article's JSON path example, run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

/// A member's preferences, stored as one JSON document (`fontSize` under the coding key `font_size`).
struct Prefs: Codable, Hashable, Sendable, DatabaseValueConvertible {
    var theme: String
    var fontSize: Int
    var tags: [String] = []
    enum CodingKeys: String, CodingKey { case theme, fontSize = "font_size", tags }
}

@Model struct Member {
    var id: Int64?
    var name: String
    var prefs: Prefs
    static var indexes: [Index] { [.on(json(\Member.prefs, "theme", as: String.self))] }
}

@Suite("README JSON paths example")
struct ReadmeJSONPathTests {
    @Test("filter, order and select by paths inside a Codable column", arguments: ["sqlite", "memory"])
    func paths(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("json-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Member.self)
        var members = [
            Member(name: "ann", prefs: Prefs(theme: "dark", fontSize: 14, tags: ["admin"])),
            Member(name: "bo", prefs: Prefs(theme: "light", fontSize: 12)),
            Member(name: "cy", prefs: Prefs(theme: "dark", fontSize: 16, tags: ["beta", "admin"])),
        ]
        try await Member.insertAll(&members, on: db)

        // README: "JSON paths"
        let dark = try await Member.query(on: db)
            .where(json(\.prefs, "theme", as: String.self) == "dark")
            .order(json(\.prefs, "font_size", as: Int.self), .descending)
            .all()
        let firstTags = try await Member.query(on: db).order(\.id)
            .select(.column(\.name), .json(\.prefs, "tags", 0, as: String.self))  // [(String, String?)]
        let plan = try await Member.query(on: db).where(json(\.prefs, "theme", as: String.self) == "dark").explain()

        #expect(dark.map(\.name) == ["cy", "ann"])
        #expect(firstTags.map(\.0) == ["ann", "bo", "cy"])
        #expect(firstTags.map(\.1) == ["admin", nil, "beta"])
        if driver == "sqlite" { #expect(plan.contains("member_prefs_theme_idx"), "\(plan)") }
    }
}
