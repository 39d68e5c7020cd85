// ReadmeWindowTests: the Writing queries article's window function example, run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Suite("README window functions example")
struct ReadmeWindowTests {
    @Test("each story's place in its section and its rank overall", arguments: ["sqlite", "memory"])
    func windows(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("window-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Story.self)
        var stories = (0..<12).map {
            Story(title: "s\(String(format: "%02d", $0))", views: Int64($0 % 7), section: $0 % 3 == 0 ? "news" : nil)
        }
        try await Story.insertAll(&stories, on: db)

        // README: "Window functions"
        // Each story's place in its section (most viewed first, title breaking ties) and its rank overall.
        let ranked = try await Story.query(on: db).order(\.id).select(
            .column(\.title),
            .rowNumber(over: .partition(by: \.section).order(\.views, .descending).order(\.title)),
            .rank(over: .order(\.views, .descending)))  // [(String, Int, Int)]
        // The story before each one in its section, and the two most viewed of each section.
        let previous = try await Story.query(on: db).order(\.id).select(
            .column(\.title), .lag(\.title, default: "-", over: .partition(by: \.section).order(\.id)))
        let topTwo = try await Story.query(on: db)
            .top(2, over: .partition(by: \.section).order(\.views, .descending).order(\.id))
            .order(\.title).all()
        // Views so far in each section (by id), each section's mean, and the stories so far overall.
        let running = try await Story.query(on: db).order(\.id).select(
            .sum(\.views, over: .partition(by: \.section).order(\.id)),
            .avg(\.views, over: .partition(by: \.section)),
            .count(over: .order(\.id)))  // [(Int64?, Double?, Int)]

        // views are id % 7 (s00 0 … s06 6, s07 0 …); news are s00, s03, s06, s09, the rest have no section.
        #expect(ranked.map(\.0) == (0..<12).map { "s\(String(format: "%02d", $0))" })
        #expect(ranked.map(\.1) == [4, 6, 5, 2, 2, 1, 1, 8, 7, 3, 4, 3])
        #expect(ranked.map(\.2) == [11, 9, 7, 5, 3, 2, 1, 11, 9, 7, 5, 3])
        #expect(previous.map(\.1) == ["-", "-", "s01", "s00", "s02", "s04", "s03", "s05", "s07", "s06", "s08", "s10"])
        // news: s06 (6), s03 (3); no section: s05 (5), s04 (4, before s11 by id).
        #expect(topTwo.map(\.title) == ["s03", "s04", "s05", "s06"])
        // news views 0, 3, 6, 2 (mean 2.75); the others 1, 2, 4, 5, 0, 1, 3, 4 (mean 2.5).
        #expect(running.map(\.0) == [0, 1, 3, 3, 7, 12, 9, 12, 13, 11, 16, 20])
        #expect(running.map(\.1) == (0..<12).map { $0 % 3 == 0 ? 2.75 : 2.5 })
        #expect(running.map(\.2) == Array(1...12))
    }
}
