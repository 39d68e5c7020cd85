// FreshDatabase: the test-suite workload: open a fresh database, migrate four models, run ten statements, close.
import Strata

/// An author of posts, unique by email.
@Model(table: "fresh_author")
struct FreshAuthor {
    var id: Int64?
    var name: String
    var email: String
    static let posts = hasMany(FreshPost.self, onDelete: .destroy)
    static var indexes: [Index] { [.on(\FreshAuthor.email, unique: true)] }
}

/// A post by an author.
@Model(table: "fresh_post")
struct FreshPost {
    var id: Int64?
    var title: String
    var views: Int
    var freshAuthorID: Int64?
    static let author = belongsTo(FreshAuthor.self)
    static let comments = hasMany(FreshComment.self, onDelete: .destroy)
}

/// A comment on a post.
@Model(table: "fresh_comment")
struct FreshComment {
    var id: Int64?
    var body: String
    var score: Double
    var freshPostID: Int64?
    static let post = belongsTo(FreshPost.self)
}

/// A tag, on its own.
@Model(table: "fresh_tag")
struct FreshTag {
    var id: Int64?
    var label: String
}

extension StrataContender {
    /// Runs `count` times what an app's test does: opens a fresh database (``StrataContender/fresh``), migrates
    /// the four models, runs ten statements as one-shot calls (six inserts, an update, a query, a count and a
    /// delete) and closes it.
    func freshDatabases(_ count: Int) async throws -> Sample {
        guard let open = fresh else { throw BenchError("\(name) cannot open a fresh database") }
        return try await timedAsync(
            {
                var d = Digest()
                for _ in 0..<count {
                    let db = try open()
                    defer { db.close() }
                    try await db.migrate(FreshAuthor.self, FreshPost.self, FreshComment.self, FreshTag.self)
                    var ann = FreshAuthor(name: "Ann", email: "ann@example.com")
                    try await ann.save(on: db)
                    var bob = FreshAuthor(name: "Bob", email: "bob@example.com")
                    try await bob.save(on: db)
                    var first = FreshPost(title: "First", views: 3, freshAuthorID: ann.id)
                    try await first.save(on: db)
                    var second = FreshPost(title: "Second", views: 8, freshAuthorID: bob.id)
                    try await second.save(on: db)
                    var comment = FreshComment(body: "Nice", score: 4.5, freshPostID: first.id)
                    try await comment.save(on: db)
                    var tag = FreshTag(label: "swift")
                    try await tag.save(on: db)
                    first.views = 12
                    try await first.save(on: db)
                    let popular = try await FreshPost.query(on: db).where(\.views > 5).order(\.title).all()
                    let comments = try await FreshComment.query(on: db).count()
                    let deleted = try await tag.delete(on: db)
                    var h = Hasher64()
                    for p in popular {
                        h.add(UInt64(bitPattern: p.id ?? -1))
                        h.add(p.title)
                        h.add(UInt64(bitPattern: Int64(p.views)))
                    }
                    h.add(UInt64(comments))
                    h.add(deleted ? 1 : 0)
                    h.add(UInt64(bitPattern: comment.id ?? -1))
                    d = Digest(value: d.value &+ h.finish(), rows: d.rows + 1)
                }
                return d
            }, digest: { $0 })
    }
}
