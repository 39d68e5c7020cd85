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

@Suite("README pages, plans and tags example")
struct ReadmePageTests {
    @Test("keyset and numbered pages, explain() and a tag", arguments: ["sqlite", "memory"])
    func pages(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("page-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Story.self)
        var articles = (0..<70).map {
            Story(title: "a\($0)", views: Int64($0 % 7), section: $0 % 2 == 0 ? "news" : nil)
        }
        try await Story.insertAll(&articles, on: db)

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
