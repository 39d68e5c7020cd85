// ReadmeCommonTableTests: the Writing queries article's common table expression example, run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

/// A category in a tree: its parent's id, nil at the root.
@Model struct Category {
    var id: Int64?
    var parentID: Int64?
    var name: String
}

@Suite("README common table expressions example")
struct ReadmeCommonTableTests {
    @Test("a named query read as a source and inside an IN subquery", arguments: ["sqlite", "memory"])
    func commonTables(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cte-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Story.self)
        var stories = (0..<12).map {
            Story(title: "s\(String(format: "%02d", $0))", views: Int64($0 % 7), section: $0 % 3 == 0 ? "news" : nil)
        }
        try await Story.insertAll(&stories, on: db)

        // README: "Common table expressions"
        // The popular stories, named once: the last three of them by title, and the news among them.
        let popular = Story.query(on: db).where(\.views >= 5)
        let last = try await Story.query(on: db).with("popular", popular)
            .order(\.title, .descending).limit(3).all()
        let popularNews = try await Story.query(on: db)
            .where(\.id, in: Story.query(on: db).with("popular", popular).select(\.id))
            .where(\.section == "news").values(\.title)

        // views 5 and 6: s05, s06; news: s00, s03, s06, s09.
        #expect(last.map(\.title) == ["s06", "s05"])
        #expect(popularNews == ["s06"])
    }

    @Test("descendants and ancestors of a category, with their depth", arguments: ["sqlite", "memory"])
    func walks(_ driver: String) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(file)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Category.self)
        var ids: [String: Int64] = [:]
        for (name, parent) in [("all", nil), ("books", "all"), ("music", "all"), ("poetry", "books")]
            as [(String, String?)]
        {
            var c = Category(parentID: parent.flatMap { ids[$0] }, name: name)
            try await c.save(on: db)
            ids[name] = c.id
        }
        let (root, leaf) = (ids["all"] ?? 0, ids["poetry"] ?? 0)

        // README: "Recursive walks"
        // Everything below category 1, each with its depth (children at 1), and the path up from a leaf.
        let below = try await Category.query(on: db).descendants(of: root, through: \.parentID)
            .orderByDepth().order(\.name).allWithDepth()
        let path = try await Category.query(on: db).ancestors(of: leaf, through: \.parentID).orderByDepth().all()

        #expect(below.map(\.model.name) == ["books", "music", "poetry"])
        #expect(below.map(\.depth) == [1, 1, 2])
        #expect(path.map(\.name) == ["books", "all"])
    }
}
