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
        let (db, path) = try await StoryDatabase.seeded(driver)
        defer { StoryDatabase.close(db, path) }

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
