// SQLiteSavePathTests: the save path's shortcuts on a real SQLite file: read-back values set by the columns' setters
// (and by key paths where a column has none, or a setter for another model), and the save that keeps only the key
// and the persistence state to put back when it throws.
import Foundation
import StrataSQLite
import Testing

@testable import Strata

@Model(table: "save_path_line")
struct SavePathLine {
    var id: Int64?
    var price: Int64
    var quantity: Int64
    var note: String
    @Generated var total: Int64 = 0
    @Generated var label: String? = nil
    static var generatedColumns: [GeneratedColumn<SavePathLine>] {
        [GeneratedColumn(\.total, as: \.price * \.quantity), GeneratedColumn(\.label, as: upper(\.note))]
    }
}

/// A hand-written model with the same table shape, whose generated columns carry setters made for another model:
/// never called for this one, whose key paths set the values.
struct SavePathSketch: Model {
    var id: Int64?
    var price: Int64
    var quantity: Int64
    var note: String
    var total: Int64 = 0
    var label: String? = nil
    static let schema = TableSchema(
        name: "save_path_sketch",
        columns: [
            TableColumn(\SavePathSketch.id, "id", primaryKey: true), TableColumn(\SavePathSketch.price, "price"),
            TableColumn(\SavePathSketch.quantity, "quantity"), TableColumn(\SavePathSketch.note, "note"),
            TableColumn(\SavePathSketch.total, "total").generated().readBack(SavePathSketch.wrongSetter),
            TableColumn(\SavePathSketch.label, "label").generated().readBack(SavePathSketch.wrongSetter),
        ])
    static let wrongSetter: @Sendable (inout SavePathLine, Row, Int) throws(StrataError) -> Void = { model, _, _ in
        model.note = "set by the wrong setter"
    }
    static var generatedColumns: [GeneratedColumn<SavePathSketch>] {
        [GeneratedColumn(\.total, as: \.price * \.quantity), GeneratedColumn(\.label, as: upper(\.note))]
    }
    init(price: Int64, quantity: Int64, note: String) {
        (self.price, self.quantity, self.note) = (price, quantity, note)
    }
    init(row: Row) throws {
        id = try row.decode(0)
        price = try row.decode(1)
        quantity = try row.decode(2)
        note = try row.decode(3)
        total = try row.decode(4)
        label = try row.decode(5)
    }
    var databaseValues: [DatabaseValue] {
        [
            id.databaseValue, price.databaseValue, quantity.databaseValue, note.databaseValue, total.databaseValue,
            label.databaseValue,
        ]
    }
}

/// A model whose save changes nothing but its key and persistence state: no roles, no column read back.
@Model(table: "save_path_account")
struct SavePathAccount {
    var id: Int64?
    var email: String
    var name: String
    static var indexes: [Index] { [Index(columns: ["email"], unique: true)] }
}

@Suite("SQLite save path: read-back setters and the save that keeps only the key and state")
struct SQLiteSavePathTests {
    static func open() throws -> (Database, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-save-\(UUID()).sqlite").path
        return (try Database.open("sqlite:" + path, drivers: [.sqlite]), path)
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test("@Model gives each read-back column a setter for its own model; a setter for another model is not used")
    func setters() {
        let storage = SavePathLine.schema.storage
        #expect(storage.readBackColumns == [4, 5])
        #expect(storage.readBackSetters.count == 2)
        #expect(storage.readBackSetters.allSatisfy { $0.model == ObjectIdentifier(SavePathLine.self) })
        #expect(!storage.saveChangesKeyAndStateOnly)
        let sketch = SavePathSketch.schema.storage
        #expect(sketch.readBackSetters.count == 2 && sketch.readsBackByTemplate)
        #expect(sketch.readBackSetters.allSatisfy { $0.model == ObjectIdentifier(SavePathLine.self) })
        #expect(SavePathAccount.schema.storage.saveChangesKeyAndStateOnly)
    }

    @Test("a save sets the generated values through the setters and leaves no column marked changed")
    func readBackBySetters() async throws {
        let (db, path) = try Self.open()
        defer {
            db.close()
            Self.remove(path)
        }
        try await db.migrate(SavePathLine.self)
        try await db.transaction { tx in
            var lines = (1...3).map { SavePathLine(price: Int64($0), quantity: 7, note: "n\($0)") }
            for i in lines.indices { try lines[i].save(tx) }
            #expect(lines.map(\.total) == [7, 14, 21])
            #expect(lines.map(\.label) == ["N1", "N2", "N3"])
            #expect(lines.allSatisfy { !$0.hasChanges })
            lines[1].price = 10
            #expect(lines[1].hasChanges)
            try lines[1].save(tx)
            #expect(lines[1].total == 70 && !lines[1].hasChanges)
            let id = try #require(lines[1].id)
            let stored = try #require(try SavePathLine.find(id, tx))
            #expect(stored.total == 70 && stored.label == "N2" && stored.price == 10)
        }
    }

    @Test("a model without setters reads back through its key paths, the other model's setter never called")
    func readBackByKeyPaths() async throws {
        let (db, path) = try Self.open()
        defer {
            db.close()
            Self.remove(path)
        }
        try await db.migrate(SavePathSketch.self)
        var sketch = SavePathSketch(price: 6, quantity: 4, note: "s")
        try await sketch.save(on: db)
        #expect(sketch.id == 1 && sketch.total == 24 && sketch.label == "S" && sketch.note == "s")
    }

    @Test("a refused insert and a refused update put back the key and the state: model and table as they were")
    func inPlaceSaveThrows() async throws {
        let (db, path) = try Self.open()
        defer {
            db.close()
            Self.remove(path)
        }
        try await db.migrate(SavePathAccount.self)
        var first = SavePathAccount(email: "a@x.io", name: "A")
        var second = SavePathAccount(email: "b@x.io", name: "B")
        try await first.save(on: db)
        try await second.save(on: db)
        var duplicate = SavePathAccount(email: "a@x.io", name: "again")
        await #expect(throws: StrataError.self) { try await duplicate.save(on: db) }
        #expect(duplicate.id == nil && duplicate._persistence == nil, "still new")
        try await db.transaction { tx in
            #expect(throws: StrataError.self) { try duplicate.save(tx) }
            #expect(duplicate.id == nil && duplicate._persistence == nil, "still new inside a transaction")
        }
        second.email = "a@x.io"
        await #expect(throws: StrataError.self) { try await second.save(on: db) }
        #expect(second.id == 2 && second.email == "a@x.io")
        #expect(second._persistence?.isStored == true && second._persistence?.isChanged(1) == true, "still marked")
        let rows = try await SavePathAccount.query(on: db).order(\.id).all()
        #expect(rows.map(\.email) == ["a@x.io", "b@x.io"] && rows.map(\.name) == ["A", "B"])
        // Fixed, the same values save: the insert and the marked column's update.
        duplicate.email = "c@x.io"
        try await duplicate.save(on: db)
        second.email = "d@x.io"
        try await second.save(on: db)
        #expect(duplicate.id == 3 && !duplicate.hasChanges && !second.hasChanges)
        let after = try await SavePathAccount.query(on: db).order(\.id).all()
        #expect(after.map(\.email) == ["a@x.io", "d@x.io", "c@x.io"])
    }

    @Test("an insert undone by its savepoint's rollback leaves the model new, its id dropped")
    func inPlaceSaveRolledBack() async throws {
        let (db, path) = try Self.open()
        defer {
            db.close()
            Self.remove(path)
        }
        try await db.migrate(SavePathAccount.self)
        var account = SavePathAccount(email: "r@x.io", name: "R")
        try await db.transaction { tx in
            try tx.savepoint { tx in
                try account.save(tx)
                #expect(account.id == 1)
                throw Rollback()
            }
            try account.save(tx)
        }
        #expect(account.id == 1 && !account.hasChanges)
        #expect(try await SavePathAccount.query(on: db).count() == 1)
    }
}
