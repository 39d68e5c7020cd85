// SQLiteInListReadTests: `where(_:in:)` on an optional key from non-optional values, and rows decoded through the
// typed-throws initializer `@Model` writes, on a real SQLite file.
import Foundation
import StrataSQLite
import Testing

@testable import Strata

@Model(table: "in_list_item")
struct InListItem {
    var id: Int64?
    var n: Int
    var label: String
    var parentID: Int64?
}

/// A model over a table Strata did not make (no STRICT): an INTEGER column there can hold text.
@Model(table: "in_list_loose")
struct InListLoose {
    var id: Int64?
    var n: Int
}

@Suite("SQLite reads: IN lists of non-optional values on optional columns")
struct SQLiteInListReadTests {
    /// A database of 300 items: ids 1…300, `n` = id * 3, every third item with a parent.
    private func seeded(_ path: String) async throws -> Database {
        let db = try Database.open("sqlite:\(path)?pool=1", drivers: [.sqlite])
        try await db.migrate(InListItem.self)
        try await db.transaction { tx in
            var items = (1...300).map { k in
                InListItem(n: k * 3, label: "item \(k)", parentID: k % 3 == 0 ? Int64(k / 3) : nil)
            }
            try InListItem.insertAll(&items, tx)
        }
        return db
    }

    @Test(
        "[Int64] on an Int64? column finds what [Int64?] finds, for short lists and lists bound as one array",
        arguments: [3, 99, 100, 250])
    func sameRows(count: Int) async throws {
        let file = TemporarySQLiteFile()
        let db = try await seeded(file.path)
        defer { db.close() }
        let ids: [Int64] = (0..<count).map { Int64($0 * 2 + 1) }  // odd ids, half of them past the table's end
        let plain = try await InListItem.query(on: db).where(\.id, in: ids).order(\.id).all()
        let optional = try await InListItem.query(on: db).where(\.id, in: ids.map { Optional($0) }).order(\.id).all()
        #expect(plain.map(\.id) == optional.map(\.id))
        #expect(plain.map(\.id) == ids.filter { $0 <= 300 }.map { Optional($0) })
        #expect(plain.allSatisfy { $0.n == Int($0.id ?? 0) * 3 && $0.label == "item \($0.id ?? 0)" })
        let notIn = try await InListItem.query(on: db).where(\.id, notIn: ids).count()
        let notInOptional = try await InListItem.query(on: db).where(\.id, notIn: ids.map { Optional($0) }).count()
        #expect(notIn == notInOptional)
        #expect(notIn == 300 - ids.filter { $0 <= 300 }.count)
        // A nullable foreign key: NULL is never in the list, and never outside it either.
        let parents: [Int64] = (1...count).map { Int64($0) }
        let children = try await InListItem.query(on: db).where(\.parentID, in: parents).count()
        #expect(children == min(count, 100))
        let others = try await InListItem.query(on: db).where(\.parentID, notIn: parents).count()
        #expect(others == 100 - min(count, 100))
    }

    @Test("the same statement either way: Condition.in and where(_:in:) build equal SELECTs from [V] and [V?]")
    func sameStatement() async throws {
        let file = TemporarySQLiteFile()
        let db = try await seeded(file.path)
        defer { db.close() }
        let ids: [Int64] = Array(1...150)
        try await db.transaction { tx in
            let a = try InListItem.query(on: tx).where(\.id, in: ids).selectStatement()
            let b = try InListItem.query(on: tx).where(\.id, in: ids.map { Optional($0) }).selectStatement()
            let c = try InListItem.query(on: tx).where(.in(\.id, ids)).selectStatement()
            let d = try InListItem.query(on: tx).where(.notIn(\.parentID, ids)).selectStatement()
            let e = try InListItem.query(on: tx).where(\.parentID, notIn: ids.map { Optional($0) }).selectStatement()
            #expect(a == b)
            #expect(a == c)
            #expect(d == e)
        }
    }

    @Test("a row that does not fit still throws the typed error naming the model and column, and loses nothing")
    func decodingRefusal() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)?pool=1", drivers: [.sqlite])
        defer { db.close() }
        try await db.transaction { tx in
            try tx.unsafeRawExecute("CREATE TABLE in_list_loose (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
            try tx.unsafeRawExecute("INSERT INTO in_list_loose (id, n) VALUES (6, 18), (7, 'many'), (8, 24)")
        }
        do {
            _ = try await InListLoose.query(on: db).where(\.id, in: [Int64(6), 7, 8]).all()
            Issue.record("a text that is no number was read into an Int")
        } catch let error as StrataError {
            guard case .decodingFailed(let model, let column, _, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(model == "InListLoose")
            #expect(column == "n")
        }
        let rest = try await InListLoose.query(on: db).where(\.id, in: [Int64(6), 8]).all()
        #expect(rest.map(\.n) == [18, 24])
    }
}
