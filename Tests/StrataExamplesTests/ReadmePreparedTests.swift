// ReadmePreparedTests: the Writing queries article's prepared-query example, run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Suite("README prepared queries example")
struct ReadmePreparedTests {
    @Test("a query prepared once, bound and run with other values, explained", arguments: ["sqlite", "memory"])
    func prepared(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("prep-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Story.self)
        var articles = (0..<70).map {
            Story(title: "a\($0)", views: Int64($0 % 7), section: $0 % 2 == 0 ? "news" : nil)
        }
        try await Story.insertAll(&articles, on: db)

        // README: "Prepared queries"
        let section = QueryParameter<String>("section")
        let least = QueryParameter<Int64>("least")
        let popular = try Story.query(on: db)
            .where(\.section == section && \.views >= least)
            .order(\.views, .descending).order(\.id).limit(5)
            .prepared()
        let news = try await popular.binding(section, to: "news").binding(least, to: 5).all()
        let top = try await popular.binding(section, to: "news").binding(least, to: 0).first()
        let plan = try await popular.binding(section, to: "news").binding(least, to: 5).explain()

        try await db.transaction { tx in
            let byViews = try Story.query(on: tx).where(\.views == least).order(\.id).prepared()
            for views: Int64 in 0..<7 {
                let stories = try byViews.binding(least, to: views).all()
                #expect(stories.count == 10 && stories.allSatisfy { $0.views == views })
            }
        }

        let built = try await Story.query(on: db).where(\.section == "news" && \.views >= 5)
            .order(\.views, .descending).order(\.id).limit(5).all()
        #expect(news.map(\.id) == built.map(\.id) && news.count == 5)
        #expect(news.allSatisfy { $0.section == "news" && $0.views >= 5 })
        #expect(top?.views == 6 && top?.section == "news")
        #expect(plan.contains("story_section_idx"), "\(plan)")
    }
}
