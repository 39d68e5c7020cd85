// SQLitePreparedQueryTests: a prepared query binds into the SQL it rendered once, and renders again when it must.
import Foundation
import StrataSQLite
import Testing

@testable import Strata

@Model(table: "prep_item")
private struct PrepItem {
    var id: Int64?
    var rank: Int64
    var weight: Double
}

@Model(table: "prep_note")
private struct PrepNote {
    var id: Int64?
    var text: String
}

@Suite("SQLite: prepared queries")
struct SQLitePreparedQueryTests {
    private func database() async throws -> (Database, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-prepared-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let db = try Database.open("sqlite:" + dir.appendingPathComponent("db.sqlite").path, drivers: [.sqlite])
        try await db.migrate(PrepItem.self)
        try await db.transaction { tx in
            for k in 1...10 {
                var item = PrepItem(rank: Int64(k), weight: Double(k) / 2)
                try item.save(tx)
            }
        }
        return (db, dir)
    }

    /// Closes `db` and removes its directory.
    private static func close(_ db: Database, _ dir: URL) {
        db.close()
        try? FileManager.default.removeItem(at: dir)
    }

    @Test("runs after the first take the remembered SQL: the render cache is not asked again")
    func bindsIntoRememberedSQL() async throws {
        let (db, dir) = try await database()
        defer { Self.close(db, dir) }
        let least = QueryParameter<Int64>("least")
        try await db.transaction { tx in
            let cache = try #require(tx.sqlConnection?.renderCache)
            let ranked = try PrepItem.query(on: tx).where(\.rank >= least).order(\.rank).prepared()
            #expect(try ranked.binding(least, to: 8).all().map(\.rank) == [8, 9, 10])
            let hits = cache.hits
            let statements = db.statementCounter.load(ordering: .relaxed)
            for k: Int64 in 1...10 {
                #expect(try ranked.binding(least, to: k).all().count == Int(11 - k))
            }
            #expect(cache.hits == hits, "no run after the first went through the render cache")
            #expect(db.statementCounter.load(ordering: .relaxed) == statements + 10, "each run is one statement")
            #expect(try ranked.binding(least, to: 10).first()?.rank == 10)
            #expect(try ranked.binding(least, to: 11).first() == nil)
        }
    }

    @Test("a double as wide as 2^53 renders another comparison, and a schema change checks again")
    func rendersAgainWhenItMust() async throws {
        let (db, dir) = try await database()
        defer { Self.close(db, dir) }
        let heavier = QueryParameter<Double>("heavier")
        let heavy = try PrepItem.query(on: db).where(\.weight > heavier).order(\.id).prepared()
        #expect(try await heavy.binding(heavier, to: 4).all().map(\.rank) == [9, 10])
        // Compared exactly on every backend: the renderer writes another comparison for a double this wide.
        #expect(try await heavy.binding(heavier, to: 9_007_199_254_740_992).all().isEmpty)
        #expect(try await heavy.binding(heavier, to: -9_007_199_254_740_992).all().count == 10)
        #expect(try await heavy.binding(heavier, to: 4.5).all().map(\.rank) == [10])
        try await db.migrate([
            Migration("002_weight_text") { $0.alterColumn("weight", in: "prep_item", to: .text, nullable: false) }
        ])
        await #expect(throws: StrataError.self) { try await heavy.binding(heavier, to: 4).all() }
        await #expect(throws: StrataError.self) {
            try await PrepItem.query(on: db).where(\.weight > 4).order(\.id).all()
        }
    }

    @Test("a text of the query's own that reads as a parameter's marker is never taken for the parameter")
    func markerLookalike() async throws {
        let (db, dir) = try await database()
        defer { Self.close(db, dir) }
        try await db.migrate(PrepNote.self)
        let lookalike = ParameterSlot(name: "text").marker
        guard case .text(let marker) = lookalike else { throw StrataError.invalidQuery("not a text marker") }
        var notes = [PrepNote(text: marker), PrepNote(text: "other"), PrepNote(text: "third")]
        try await PrepNote.insertAll(&notes, on: db)
        let text = QueryParameter<String>("text")
        try await db.transaction { tx in
            let either = try PrepNote.query(on: tx).where(\.text == marker || \.text == text).order(\.id).prepared()
            for value in [marker, "other", "third", marker, "third"] {
                let built = try PrepNote.query(on: tx).where(\.text == marker || \.text == value).order(\.id).all()
                #expect(try either.binding(text, to: value).all().map(\.id) == built.map(\.id), "\(value)")
            }
        }
    }
}
