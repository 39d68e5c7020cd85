// ReadmeSetOperationTests: the Writing queries article's set operations example, run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Suite("README set operations example")
struct ReadmeSetOperationTests {
    @Test("union, intersect and except of two queries over one model", arguments: ["sqlite", "memory"])
    func setOperations(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("setop-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Story.self)
        var stories = (0..<12).map {
            Story(title: "s\(String(format: "%02d", $0))", views: Int64($0 % 7), section: $0 % 3 == 0 ? "news" : nil)
        }
        try await Story.insertAll(&stories, on: db)

        // README: "Set operations"
        // Stories that are popular or in the news section, each once, by title.
        let picked = try await Story.query(on: db).where(\.views >= 5)
            .union(Story.query(on: db).where(\.section == "news"))
            .order(\.title).limit(10).all()

        // Both at once, and popular ones outside the news; `unionAll` keeps duplicates.
        let both = try await Story.query(on: db).where(\.views >= 5)
            .intersect(Story.query(on: db).where(\.section == "news"))
            .count()
        let elsewhere = try await Story.query(on: db).where(\.views >= 5)
            .except(Story.query(on: db).where(\.section == "news")).values(\.title)

        // views: s00 0, s05 5, s06 6, s12… none; news: s00, s03, s06, s09.
        #expect(picked.map(\.title) == ["s00", "s03", "s05", "s06", "s09"])
        #expect(both == 1)
        #expect(elsewhere == ["s05"])
    }
}
