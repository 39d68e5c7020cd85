// ReadmeLifecycleTests: the README's "Model lifecycle" examples (callbacks, reload, validation without a
// connection, stale saves), compiled and run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

// README: "Model lifecycle"
@Model struct Article {
    var id: Int64?
    var title: String
    var slug = ""
    static let comments = hasMany(Comment.self, onDelete: .destroy)

    static func validations(_ v: inout Validations<Self>) {
        v.presence(\.title, message: "needs a title")
        v.custom(\.title, "short", message: "is longer than 80 characters") { $0.count <= 80 }
    }

    mutating func willSave(_ tx: Transaction) throws {  // runs inside the save's savepoint
        slug = title.lowercased().replacingOccurrences(of: " ", with: "-")
    }
    func didCreate(_ tx: Transaction) throws {  // may write other models in the same transaction
        var entry = AuditEntry(event: "article \(id ?? 0) created")
        try entry.save(tx)
    }
}

@Model struct Comment {
    var id: Int64?
    var body: String
    var articleID: Int64?
    static let article = belongsTo(Article.self)
}

@Model struct AuditEntry {
    var id: Int64?
    var event: String
}

// README: "Timestamps and optimistic locking"
@Model struct Page {
    var id: Int64?
    var body: String
    @CreatedAt var createdAt = Date()  // set by the first save (UTC, whole microseconds)
    @UpdatedAt var updatedAt: Date?  // set by every save that writes, and by bulk update()
    @Version var version = 0  // UPDATE … WHERE id = ? AND version = ?, then +1
}

// README: "Soft delete"
@Model struct Invoice {
    var id: Int64?
    var number: String
    @DeletedAt var deletedAt: Date?  // delete() sets it; queries, find, eager loads and joins skip the row
}

@Suite("README lifecycle example")
struct ReadmeLifecycleTests {
    @Test("callbacks, reload, validation without a connection, stale saves", arguments: ["sqlite", "memory"])
    func lifecycle(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("life-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])

        // README: "Model lifecycle"
        try await db.migrate(Comment.self, AuditEntry.self)  // creates article too: comment belongs to it
        let draft = Article(title: "")
        let problems = draft.validationErrors().map(\.description)  // no database needed
        var article = Article(title: "Hello World")
        try await article.save(on: db)  // slug "hello-world"; one audit entry, same transaction
        var copy = article
        try await Article.query(on: db).where(\.id == article.id).set(\.title, to: "Edited").update()
        try await copy.reload(on: db)  // copy.title == "Edited"
        try await Article.query(on: db).where(\.id == article.id).delete()  // someone deletes the row
        article.title = "Too late"
        do {
            try await article.save(on: db)  // StrataError.recordNotFound: never silently re-inserted
        } catch StrataError.recordNotFound(let model, _) {
            print("\(model) was deleted meanwhile")
        }

        #expect(!draft.isValid)
        #expect(problems == ["Article.title fails presence: needs a title"])
        #expect(article.slug == "hello-world")
        #expect(copy.title == "Edited")
        #expect(try await AuditEntry.query(on: db).all().map(\.event) == ["article \(article.id ?? 0) created"])
        #expect(try await Article.query(on: db).count() == 0)
    }

    @Test("timestamps and a version column", arguments: ["sqlite", "memory"])
    func stamps(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("page-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        try await db.migrate(Page.self)

        // README: "Timestamps and optimistic locking"
        var page = Page(body: "v1")
        try await page.save(on: db)  // createdAt == updatedAt, version 0
        var stale = page
        page.body = "v2"
        try await page.save(on: db)  // version 1
        stale.body = "v2 too"
        do {
            try await stale.save(on: db)  // someone saved first: StrataError.staleRecord, nothing written
        } catch StrataError.staleRecord(_, _, let version) {
            try await stale.reload(on: db)  // version 1 again: merge, then save
            print("stale at version \(version)")
        }

        #expect(page.version == 1)
        #expect(stale.version == 1 && stale.body == "v2")
        #expect(try await Page.find(page.id ?? -1, on: db)?.createdAt == page.createdAt)
        #expect((page.updatedAt ?? .distantPast) >= page.createdAt)
    }

    @Test("soft delete", arguments: ["sqlite", "memory"])
    func softDelete(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("inv-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        try await db.migrate(Invoice.self)
        var invoice = Invoice(number: "2026-001")
        try await invoice.save(on: db)

        // README: "Soft delete"
        try await invoice.delete(on: db)  // UPDATE … SET deleted_at = now
        let visible = try await Invoice.query(on: db).count()  // 0
        let all = try await Invoice.query(on: db).withDeleted().count()  // 1
        let trash = try await Invoice.query(on: db).onlyDeleted().all()  // [invoice]
        try await invoice.restore(on: db)  // back
        try await invoice.forceDelete(on: db)  // DELETE for good

        #expect(visible == 0 && all == 1 && trash.map(\.number) == ["2026-001"])
        #expect(try await Invoice.query(on: db).withDeleted().count() == 0)
    }
}

// README: "Keys", "Polymorphic associations", "Synchronous calls"
@Model struct Device {
    var id: UUID?
    var name: String
}

@Model struct Tag {
    var id: String?  // TEXT PRIMARY KEY, set by the app
    var label: String
    static let annotations = hasMany(Annotation.self, as: "subject", onDelete: .destroy)
}

@Model struct Annotation {
    var id: Int64?
    var body: String
    var subjectType: String?  // the owner's model name: "Tag"
    var subjectID: String?  // the owner's key, as text
    static let subject = belongsTo(polymorphic: "subject", Tag.self)
}

@Suite("README keys, polymorphic and synchronous example")
struct ReadmeKeysTests {
    @Test("UUID and String keys, a polymorphic owner, writeSync and readSync", arguments: ["sqlite", "memory"])
    func keys(_ driver: String) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        try db.writeSync { tx in try tx.migrate([Device.self, Annotation.self]) }

        // README: "Synchronous calls"
        try db.writeSync { tx in  // blocks; a transaction
            var phone = Device(name: "phone")
            try phone.save(tx)  // phone.id = UUID()
            var swift = Tag(id: "swift", label: "Swift")
            var annotation = Annotation(body: "typed keys")
            try swift.add(&annotation, to: Tag.annotations, tx)  // subject_type "Tag", subject_id "swift"
        }
        let annotations = try db.readSync { tx in try Annotation.query(on: tx).including(Annotation.subject).all() }
        let owner = try annotations[0].loaded(Annotation.subject) as? Tag  // the Tag, loaded in one query per type

        #expect(owner?.label == "Swift")
        #expect(annotations.map(\.subjectType) == ["Tag"] && annotations.map(\.subjectID) == ["swift"])
        let devices = try db.readSync { tx in try Device.query(on: tx).all() }
        #expect(devices.count == 1 && devices[0].id != nil)
        try db.writeSync { tx in _ = try Tag.find("swift", tx)?.delete(tx) }
        #expect(try db.readSync { tx in try Annotation.query(on: tx).count() } == 0)
    }
}
