// ReadmeAssociationAggregateTests: the Associations article's counts and sums of related rows, run on SQLite and
// memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Model struct Blog {
    var id: Int64?
    var name: String
    static let entries = hasMany(Entry.self, onDelete: .destroy)  // entry.blog_id
}

@Model struct Entry {
    var id: Int64?
    var blogID: Int64?
    var votes: Int64
    static let blog = belongsTo(Blog.self)
}

@Suite("Associations article: aggregates of related rows")
struct ReadmeAssociationAggregateTests {
    @Test("counts and sums per blog in one statement, filtered and ordered", arguments: ["sqlite", "memory"])
    func aggregates(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("agg-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Blog.self, Entry.self)
        try await db.transaction { tx in
            for (name, votes) in [("news", [3, 9]), ("notes", [1]), ("drafts", [])] as [(String, [Int64])] {
                var blog = Blog(name: name)
                try blog.save(tx)
                for v in votes {
                    var entry = Entry(votes: v)
                    try blog.add(&entry, to: Blog.entries, tx)
                }
            }
        }
        let before = db.statementCount

        // Associations: "Counts and sums of related rows"
        let all = try await Blog.query(on: db).order(\.name)
            .all(with: .count(Blog.entries), .sum(Blog.entries, of: \.votes))  // [(Blog, Int, Int64?)]
        // drafts: 0 entries, a sum of nil; news: 2, 12; notes: 1, 1
        let popular = try await Blog.query(on: db)
            .having(.count(Blog.entries) >= 1)
            .order(.sum(Blog.entries, of: \.votes), .descending)
            .all(with: .count(Blog.entries))  // [(Blog, Int)]: news, then notes

        #expect(db.statementCount - before == 2, "one statement each, no N+1")
        #expect(all.map(\.0.name) == ["drafts", "news", "notes"])
        #expect(all.map(\.1) == [0, 2, 1])
        #expect(all.map(\.2) == [nil, 12, 1])
        #expect(popular.map(\.0.name) == ["news", "notes"])
        #expect(popular.map(\.1) == [2, 1])
    }
}
