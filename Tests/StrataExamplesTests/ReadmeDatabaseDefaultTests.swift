// ReadmeDatabaseDefaultTests: the lifecycle article's database default example, run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Model struct Visit {
    var id: Int64?
    var path: String
    @Column(default: .now) var seenAt: Date?  // nil asks the database for the time of the INSERT
}

@Suite("Lifecycle article: database defaults")
struct ReadmeDatabaseDefaultTests {
    @Test("a nil takes the statement's time and is read back; a value is kept", arguments: ["sqlite", "memory"])
    func defaults(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dflt-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Visit.self)
        let before = Date()

        // ModelLifecycle: "Database defaults"
        var visit = Visit(path: "/docs")
        try await visit.save(on: db)  // visit.seenAt: the statement's time, read back
        var imported = Visit(path: "/old", seenAt: Date(timeIntervalSince1970: 0))
        try await imported.save(on: db)  // a value the model holds is written as given

        let seen = try #require(visit.seenAt)
        #expect(seen >= before.addingTimeInterval(-1) && seen <= Date().addingTimeInterval(1))
        #expect(try await Visit.find(try #require(visit.id), on: db)?.seenAt == seen)
        #expect(imported.seenAt == Date(timeIntervalSince1970: 0))
    }
}
