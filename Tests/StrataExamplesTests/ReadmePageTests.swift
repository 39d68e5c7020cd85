// ReadmePageTests: the Writing queries article's pages, plans and tags example, run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Model struct Story {
    var id: Int64?
    var title: String
    var views: Int64 = 0
    var section: String?
    static var indexes: [Index] { [.on(\Story.section)] }
}

/// The stories the pages and prepared-query examples read: 70, `views` 0…6 in turn, every other one in "news".
enum StoryDatabase {
    /// A database on `driver` (`sqlite`, a file, or `memory`) with the stories, and the file's path.
    static func seeded(_ driver: String) async throws -> (Database, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("story-\(UUID().uuidString).sqlite")
            .path
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        do {
            try await db.migrate(Story.self)
            var stories = (0..<70).map {
                Story(title: "a\($0)", views: Int64($0 % 7), section: $0 % 2 == 0 ? "news" : nil)
            }
            try await Story.insertAll(&stories, on: db)
        } catch {
            close(db, path)
            throw error
        }
        return (db, path)
    }

    /// Closes `db` and removes its file.
    static func close(_ db: Database, _ path: String) {
        db.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

@Suite("README pages, plans and tags example")
struct ReadmePageTests {
    @Test("keyset and numbered pages, explain() and a tag", arguments: ["sqlite", "memory"])
    func pages(_ driver: String) async throws {
        let (db, path) = try await StoryDatabase.seeded(driver)
        defer { StoryDatabase.close(db, path) }

        // README: "Pages, plans and tags"
        let first = try await Story.query(on: db).order(\.views, .descending).order(\.id).page(after: nil, limit: 20)
        let token = first.nextCursor?.description  // nil on the last page
        let second = try await Story.query(on: db).order(\.views, .descending).order(\.id)
            .page(after: token.flatMap(PageCursor.init), limit: 20)

        let third = try await Story.query(on: db).where(\.views > 0).order(\.id).page(number: 3, size: 20)
        print(third.items.count, third.total, third.pageCount)

        let plan = try await Story.query(on: db).where(\.section == "news").explain()  // names story_section_idx
        let latest = try await Story.query(on: db).tagged("home.latest").order(\.id, .descending).limit(5).all()

        let ordered = try await Story.query(on: db).order(\.views, .descending).order(\.id).all()
        #expect(first.items.map(\.id) == ordered.prefix(20).map(\.id))
        #expect(second.items.map(\.id) == ordered.dropFirst(20).prefix(20).map(\.id))
        #expect(token != nil && second.nextCursor != nil)
        #expect(third.total == 60 && third.pageCount == 3 && third.items.count == 20)
        #expect(plan.contains("story_section_idx"), "\(plan)")
        #expect(latest.map(\.title) == ["a69", "a68", "a67", "a66", "a65"])
    }
}
