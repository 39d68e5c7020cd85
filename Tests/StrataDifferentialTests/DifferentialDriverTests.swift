// DifferentialDriverTests: a database that runs every statement on two backends and throws when they differ.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Model(table: "diff_note")
struct DiffNote: Equatable {
    var id: Int64?
    var title: String
    var score: Double?
    var at = Date(timeIntervalSince1970: 0)
    var done = false

    static var indexes: [Index] { [.on(\DiffNote.title, unique: true)] }
}

/// Whether an error is a divergence whose message mentions `text`.
private func isDivergence(_ error: any Error, mentioning text: String) -> Bool {
    guard case StrataError.divergence(let statement, let details)? = error as? StrataError else { return false }
    return (statement + " " + details).contains(text)
}

@Suite("Differential database")
struct DifferentialDriverTests {
    @Test("memory and SQLite agree on saves, ids, queries, updates and deletes")
    func agreeingBackends() async throws {
        let db = try Database.open(differential: "memory:", "sqlite::memory:", drivers: [.memory, .sqlite])
        defer { db.close() }
        #expect(db.driverName == "differential(memory, sqlite)")
        try await db.migrate(DiffNote.self)
        var a = DiffNote(title: "alpha", score: 1.5, at: Date(timeIntervalSince1970: -1.000001))
        var b = DiffNote(title: "beta", score: nil, done: true)
        try await a.save(on: db)
        try await b.save(on: db)
        #expect(a.id == 1 && b.id == 2, "auto ids compared on both sides")
        var batch = (0..<3).map { DiffNote(title: "n\($0)") }
        try await DiffNote.insertAll(&batch, on: db)
        #expect(batch.map(\.id) == [3, 4, 5])
        #expect(try await DiffNote.query(on: db).where(\.title ~~ "n%").count() == 3)
        #expect(
            try await DiffNote.query(on: db).order(\.title).all().map(\.title) == ["alpha", "beta", "n0", "n1", "n2"])
        #expect(try await DiffNote.query(on: db).where(\.score == nil).count() == 4)
        var seen: [String] = []
        try await db.withConnection { tx in
            try DiffNote.query(on: tx).order(\.id).forEach { seen.append($0.title) }
        }
        #expect(seen == ["alpha", "beta", "n0", "n1", "n2"], "streamed rows are replayed")
        a.title = "alpha2"
        try await a.save(on: db)
        try await b.delete(on: db)
        #expect(try await DiffNote.query(on: db).count() == 4)
    }

    @Test("the same typed error on both sides is rethrown as itself, and nothing is written")
    func sameErrorBothSides() async throws {
        let db = try Database.open(differential: "memory:", "sqlite::memory:", drivers: [.memory, .sqlite])
        defer { db.close() }
        try await db.migrate(DiffNote.self)
        var a = DiffNote(title: "same")
        try await a.save(on: db)
        var dup = DiffNote(title: "same")
        await #expect {
            try await dup.save(on: db)
        } throws: { error in
            if case StrataError.uniqueViolation = error { true } else { false }
        }
        #expect(try await DiffNote.query(on: db).count() == 1, "both sides kept one row")
    }

    @Test("a transaction commits or rolls back on both sides together")
    func transactions() async throws {
        let db = try Database.open(differential: "memory:", "sqlite::memory:", drivers: [.memory, .sqlite])
        defer { db.close() }
        try await db.migrate(DiffNote.self)
        try await db.transaction { tx in
            var n = DiffNote(title: "kept")
            try n.save(tx)
            try tx.savepoint { tx in
                var m = DiffNote(title: "undone")
                try m.save(tx)
                throw Rollback()
            }
        }
        await #expect(throws: (any Error).self) {
            try await db.transaction { tx in
                var n = DiffNote(title: "lost")
                try n.save(tx)
                throw StrataError.invalidQuery("stop")
            }
        }
        // A count that differed between the sides would throw a divergence here.
        #expect(try await DiffNote.query(on: db).all().map(\.title) == ["kept"])
    }

    @Test("raw SQL that SQLite runs and memory refuses is a divergence naming both sides")
    func rawSQLIsADivergence() async throws {
        let db = try Database.open(differential: "memory:", "sqlite::memory:", drivers: [.memory, .sqlite])
        defer { db.close() }
        await #expect {
            try await db.unsafeRawExecute("SELECT 1")
        } throws: { error in
            isDivergence(error, mentioning: "memory threw raw SQL is not supported by the memory driver")
                && isDivergence(error, mentioning: "sqlite returned 1 row(s)")
        }
    }

    @Test("rows that differ are a divergence showing the statement and both results")
    func differingRows() async throws {
        let dir = FileManager.default.temporaryDirectory
        let first = dir.appendingPathComponent("strata-diff-\(UUID().uuidString).sqlite").path
        let second = dir.appendingPathComponent("strata-diff-\(UUID().uuidString).sqlite").path
        defer {
            for path in [first, second] {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
        }
        let db = try Database.open(differential: "sqlite:\(first)", "sqlite:\(second)", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(DiffNote.self)
        var n = DiffNote(title: "both")
        try await n.save(on: db)
        // Someone writes to the second database behind the differential one's back.
        let side = try Database.open("sqlite:\(second)", drivers: [.sqlite])
        var extra = DiffNote(title: "only-second")
        try await extra.save(on: side)
        side.close()
        await #expect {
            try await DiffNote.query(on: db).order(\.id).all()
        } throws: { error in
            isDivergence(error, mentioning: "SELECT") && isDivergence(error, mentioning: "returned 1 row(s)")
                && isDivergence(error, mentioning: "returned 2 row(s)")
        }
        await #expect {
            try await DiffNote.query(on: db).count()
        } throws: { error in
            isDivergence(error, mentioning: "integer 1") && isDivergence(error, mentioning: "integer 2")
        }
    }

    @Test("a partial order compares rows as a multiset; a cut partial order compares counts")
    func partialOrders() async throws {
        let db = try Database.open(differential: "memory:", "sqlite::memory:", drivers: [.memory, .sqlite])
        defer { db.close() }
        try await db.migrate(DiffNote.self)
        for t in ["a", "b", "c", "d"] {
            var n = DiffNote(title: t, done: true)
            try await n.save(on: db)
        }
        #expect(try await DiffNote.query(on: db).order(\.done).all().count == 4)
        #expect(try await DiffNote.query(on: db).order(\.done).limit(2).all().count == 2)
    }
}
