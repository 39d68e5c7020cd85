// TransactionsArticleTests: the Transactions and Semantics articles' `onFailedStatement: .abortTransaction`
// examples, compiled and run on SQLite and memory: all the saves commit, or none does and the models stay new.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

// The Transactions article: "When a statement fails"; the Semantics article: "A statement that fails inside a
// transaction".
@Model struct ArticlePlayer {
    var id: Int64?
    var name: String
    static var indexes: [Index] { [.on(\ArticlePlayer.name, unique: true)] }
}

@Suite("The Transactions article's abort-mode examples")
struct TransactionsArticleTests {
    // The Transactions article's example, as written there.
    static func saveAll(_ players: inout [ArticlePlayer], on db: Database) async throws {
        var saved = players
        try await db.transaction(onFailedStatement: .abortTransaction) { tx in
            for i in saved.indices { try saved[i].save(tx) }  // all or nothing, no savepoint per save
        }
        players = saved
    }

    // The Semantics article's example: the same with `writeSync`.
    static func saveAllSync(_ rows: inout [ArticlePlayer], on db: Database) throws {
        var saved = rows
        try db.writeSync(onFailedStatement: .abortTransaction) { tx in
            for i in saved.indices { try saved[i].save(tx) }
        }
        rows = saved
    }

    @Test("all the saves commit, or none does and the models stay new", arguments: ["sqlite", "memory"])
    func allOrNothing(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("abort-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(ArticlePlayer.self)

        var players = ["ann", "bob"].map { ArticlePlayer(name: $0) }
        try await Self.saveAll(&players, on: db)
        #expect(players.allSatisfy { $0.id != nil })

        var clashing = ["cid", "ann"].map { ArticlePlayer(name: $0) }  // "ann" is taken: the second save fails
        await #expect(throws: StrataError.self) { try await Self.saveAll(&clashing, on: db) }
        #expect(clashing.allSatisfy { $0.id == nil }, "the models are as they were")
        #expect(throws: StrataError.self) { try Self.saveAllSync(&clashing, on: db) }
        #expect(clashing.allSatisfy { $0.id == nil }, "the models are as they were")
        #expect(try await ArticlePlayer.query(on: db).order(\.name).all().map(\.name) == ["ann", "bob"])

        var more = ["dee", "eve"].map { ArticlePlayer(name: $0) }
        try Self.saveAllSync(&more, on: db)
        #expect(try await ArticlePlayer.query(on: db).count() == 4)
    }
}
