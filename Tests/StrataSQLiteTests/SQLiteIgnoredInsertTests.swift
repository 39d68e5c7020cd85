// SQLiteIgnoredInsertTests: an INSERT the table's own conflict clause or a trigger skips is a typed error, never
// another row's id.
import Foundation
import Strata
import StrataSQLite
import Testing

@Model(table: "ignoring_item")
struct IgnoringItem {
    var id: Int64?
    var x: String
}

@Suite("SQLite inserts that insert nothing")
struct SQLiteIgnoredInsertTests {
    /// A database whose `ignoring_item` table was made by hand with `schema` (no migration).
    private func database(_ path: String, _ schema: String...) async throws -> Database {
        let db = try Database.open("sqlite:\(path)", drivers: [.sqlite])
        for statement in schema { try await db.unsafeRawExecute(statement) }
        return db
    }

    private static func isIgnored(_ error: any Error) -> Bool {
        guard case StrataError.insertIgnored(let table) = error else { return false }
        return table == "ignoring_item"
    }

    @Test("UNIQUE … ON CONFLICT IGNORE: a duplicate save throws insertIgnored and keeps no id; the other row is safe")
    func conflictClauseIgnore() async throws {
        let file = TemporarySQLiteFile()
        let db = try await database(
            file.path,
            #"CREATE TABLE "ignoring_item" ("id" INTEGER PRIMARY KEY, "x" TEXT NOT NULL UNIQUE ON CONFLICT IGNORE)"#)
        var x = IgnoringItem(x: "x")
        try await x.save(on: db)
        var y = IgnoringItem(x: "y")
        try await y.save(on: db)
        var duplicate = IgnoringItem(x: "x")
        do {
            try await duplicate.save(on: db)
            Issue.record("a duplicate insert that inserts nothing must throw")
        } catch { #expect(Self.isIgnored(error), "\(error)") }
        #expect(duplicate.id == nil, "never the id last_insert_rowid still holds (y's)")
        duplicate.x = "renamed"
        try await duplicate.save(on: db)
        let rows = try await IgnoringItem.query(on: db).order(\.id).all().map(\.x)
        #expect(rows == ["x", "y", "renamed"], "y's row was not rewritten: \(rows)")

        var batch = [IgnoringItem(x: "p"), IgnoringItem(x: "y"), IgnoringItem(x: "q")]
        do {
            try await IgnoringItem.insertAll(&batch, on: db)
            Issue.record("a batch with a skipped row must throw")
        } catch { #expect(Self.isIgnored(error), "\(error)") }
        #expect(batch.allSatisfy { $0.id == nil })
        #expect(try await IgnoringItem.query(on: db).count() == 3, "nothing of the batch was kept")
    }

    @Test("a BEFORE INSERT trigger doing RAISE(IGNORE): the save throws insertIgnored")
    func triggerIgnore() async throws {
        let file = TemporarySQLiteFile()
        let db = try await database(
            file.path, #"CREATE TABLE "ignoring_item" ("id" INTEGER PRIMARY KEY, "x" TEXT NOT NULL)"#,
            #"CREATE TRIGGER "skip_z" BEFORE INSERT ON "ignoring_item" WHEN NEW."x" = 'z' BEGIN SELECT RAISE(IGNORE); END"#
        )
        var a = IgnoringItem(x: "a")
        try await a.save(on: db)
        var z = IgnoringItem(x: "z")
        do {
            try await z.save(on: db)
            Issue.record("a skipped insert must throw")
        } catch { #expect(Self.isIgnored(error), "\(error)") }
        #expect(z.id == nil)
        var explicit = IgnoringItem(id: 50, x: "z")
        do {
            try await explicit.save(on: db)
            Issue.record("a skipped insert with an explicit id must throw")
        } catch { #expect(Self.isIgnored(error), "\(error)") }
        #expect(try await IgnoringItem.query(on: db).all().map(\.x) == ["a"])
    }
}
