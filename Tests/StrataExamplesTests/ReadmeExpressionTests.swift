// ReadmeExpressionTests: the Writing queries article's subquery and expression example, run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Model struct Post {
    var id: Int64?
    var title: String
    var views: Int64 = 0
    var userID: Int64?
}

@Suite("README subquery and expression example")
struct ReadmeExpressionTests {
    @Test("subqueries, whereExists, arithmetic, text functions, update(set:to:)", arguments: ["sqlite", "memory"])
    func expressions(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("expr-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        try await db.migrate(Group.self, User.self, Project.self, Membership.self, Post.self)
        var ann = User(name: "Ann")
        var bob = User(name: "Bob")
        try await db.transaction { tx in
            try ann.save(tx)
            try bob.save(tx)
            var apollo = Project(name: "Apollo")
            try ann.add(&apollo, to: User.projects, tx)
            var hello = Post(title: "hello", views: 150, userID: ann.id)
            try hello.save(tx)
        }

        // README: "Subqueries and expressions"
        let authors = Post.query(on: db).where(\.views > 100).select(\.userID)
        let popular = try await User.query(on: db).where(\.id, in: authors).all()  // IN (SELECT "user_id" …)
        let quiet = try await User.query(on: db).where(\.id, notIn: authors).all()
        let onApollo = try await User.query(on: db).whereExists(User.projects, \.name == "Apollo").all()
        let loners = try await User.query(on: db).whereNotExists(User.projects).all()
        let newest = Post.query(on: db).order(\.id, .descending).select(\.userID)
        let latest = try await User.query(on: db).where(\.id == newest).first()  // a scalar subquery: its first row

        try await Post.query(on: db).where(\.title == "hello").update(set: \.views, to: \.views + 1)
        let odd = try await Post.query(on: db).where(\.views % 2 == 1).order(\.views * -1).all()
        let loud = try await Post.query(on: db).where(upper(\.title) == "HELLO").all()  // ASCII letters only
        try await Post.query(on: db).update(set: \.title, to: \.title + "!")
        var reason = ""
        do {
            _ = try await Post.query(on: db).where(\.views / 0 > 1).all()
        } catch StrataError.arithmeticError(_, let why) {
            reason = why  // "division by zero", on every driver
        }

        #expect(popular.map(\.name) == ["Ann"])
        #expect(quiet.map(\.name) == ["Bob"])
        #expect(onApollo.map(\.name) == ["Ann"])
        #expect(loners.map(\.name) == ["Bob"])
        #expect(latest?.name == "Ann")
        #expect(odd.map(\.views) == [151])
        #expect(loud.count == 1)
        #expect(try await Post.query(on: db).first()?.title == "hello!")
        #expect(reason == "division by zero")
    }
}
