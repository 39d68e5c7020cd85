// ChangeHistoryArticleTests: the Change history article's push/pull example, compiled and run between a SQLite
// database (the server) and a memory database (the device), with its conflict rule.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

// The Change history article: "Pushing and pulling: a worked example".
@Model struct SyncNote {
    var id: UUID?
    var title: String
    var updatedAt = Date()
    static let tracksHistory = true
}

/// Copies the notes changed on `source` since `token` to `target`; returns the token to start from next time.
func copyChanges(from source: Database, to target: Database, since token: HistoryToken?) async throws
    -> HistoryToken
{
    var token = token
    while true {
        let page = try await source.changes(since: token, limit: 100)
        var seen = Set<String>()
        for change in page.changes.reversed() where change.table == SyncNote.schema.name {
            guard seen.insert(change.key).inserted, let id = UUID(uuidString: change.key) else { continue }
            let theirs = try await SyncNote.find(id, on: source)  // the row as it is now, or nil: deleted
            let ours = try await SyncNote.find(id, on: target)
            switch (theirs, ours) {
            case (nil, let ours?) where ours.updatedAt <= change.time:
                _ = try await ours.delete(on: target)  // deleted there, not changed here since
            case (let theirs?, let ours):
                if let ours, ours.title == theirs.title && ours.updatedAt == theirs.updatedAt { continue }
                if let ours, ours.updatedAt >= theirs.updatedAt { continue }  // the later write wins
                var copy = SyncNote(id: id, title: theirs.title, updatedAt: theirs.updatedAt)
                try await copy.save(on: target)  // updates the row, or inserts it with its id
            default:
                continue
            }
        }
        token = page.next
        if !page.hasMore { return page.next }
    }
}

@Suite("The Change history article's push/pull example")
struct ChangeHistoryArticleTests {
    static func titles(_ db: Database) async throws -> [String] {
        try await SyncNote.query(on: db).order(\.title).all().map(\.title)
    }

    @Test("push, pull, a conflict kept by the later write, a delete, and no echo")
    func pushAndPull() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hist-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let server = try Database.open("sqlite:\(path)", drivers: [.sqlite, .memory])
        let device = try Database.open("memory:", drivers: [.sqlite, .memory])
        defer {
            server.close()
            device.close()
        }
        try await server.migrate(SyncNote.self)
        try await device.migrate(SyncNote.self)
        var pushed: HistoryToken?
        var pulled: HistoryToken?

        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        var milk = SyncNote(title: "milk", updatedAt: t0)
        try await milk.save(on: device)
        var bread = SyncNote(title: "bread", updatedAt: t0)
        try await bread.save(on: server)

        pushed = try await copyChanges(from: device, to: server, since: pushed)
        pulled = try await copyChanges(from: server, to: device, since: pulled)
        #expect(try await Self.titles(server) == ["bread", "milk"])
        #expect(try await Self.titles(device) == ["bread", "milk"])

        // No echo: what the pull wrote on the device is already on the server, so pushing writes nothing there.
        let serverToken = try await server.historyToken()
        pushed = try await copyChanges(from: device, to: server, since: pushed)
        #expect(try await server.historyToken() == serverToken, "the server wrote nothing")

        // A conflict: both sides change milk; the server's change is later and wins on both.
        guard let milkID = milk.id else { throw StrataError.notPersisted(model: "SyncNote") }
        var mine = try #require(try await SyncNote.find(milkID, on: device))
        mine.title = "oat milk"
        mine.updatedAt = t0.addingTimeInterval(10)
        try await mine.save(on: device)
        var theirs = try #require(try await SyncNote.find(milkID, on: server))
        theirs.title = "whole milk"
        theirs.updatedAt = t0.addingTimeInterval(20)
        try await theirs.save(on: server)
        pushed = try await copyChanges(from: device, to: server, since: pushed)
        pulled = try await copyChanges(from: server, to: device, since: pulled)
        #expect(try await Self.titles(server) == ["bread", "whole milk"])
        #expect(try await Self.titles(device) == ["bread", "whole milk"])

        // A delete on the server reaches the device.
        _ = try await bread.delete(on: server)
        pulled = try await copyChanges(from: server, to: device, since: pulled)
        pushed = try await copyChanges(from: device, to: server, since: pushed)
        #expect(try await Self.titles(device) == ["whole milk"])
        #expect(try await Self.titles(server) == ["whole milk"])

        // A token of the other database is refused, naming the parameter.
        await #expect(throws: StrataError.self) { try await device.changes(since: pulled) }
    }
}
