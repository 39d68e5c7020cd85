// CompositeKeyAssociationArticleTests: the Associations article's composite-key example, run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Model(table: "order_line", primaryKey: ["orderID", "productID"])
struct OrderItem {
    var orderID: Int64
    var productID: String
    var quantity: Int
    static let notes = hasMany(ItemNote.self, keys: \.orderID, \.productID, onDelete: .destroy)
}

@Model(table: "item_note")
struct ItemNote {
    var id: Int64?
    var orderID: Int64
    var productID: String?  // NULL: the note points at no line
    var text: String
    static let item = belongsTo(OrderItem.self, keys: \.orderID, \.productID)
}

@Model(table: "course", primaryKey: ["term", "code"])
struct Course {
    var term: Int64
    var code: String
    static let students = hasMany(
        Student.self, through: Enrollment.self, ownerKeys: \.term, \.courseCode, targetKeys: \.studentID)
}

@Model struct Student {
    var id: Int64?
    var name: String
    static let courses = hasMany(
        Course.self, through: Enrollment.self, ownerKeys: \.studentID, targetKeys: \.term, \.courseCode)
}

@Model struct Enrollment {
    var id: Int64?
    var term: Int64
    var courseCode: String
    var studentID: Int64
    static let course = belongsTo(Course.self, keys: \.term, \.courseCode)
    static let student = belongsTo(Student.self, key: \.studentID)
}

@Suite("Associations article: associations to a composite key")
struct CompositeKeyAssociationArticleTests {
    @Test(
        "belongsTo and hasMany by two columns; the two-column foreign key refuses an orphan",
        arguments: ["sqlite", "memory"])
    func compositeAssociations(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ckfk-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        var line = OrderItem(orderID: 7, productID: "p3", quantity: 2)
        var other = OrderItem(orderID: 7, productID: "p4", quantity: 1)

        // Associations: "Associations to a composite key"
        try await db.migrate(OrderItem.self, ItemNote.self)  // FOREIGN KEY ("order_id", "product_id") …
        try await line.save(on: db)
        try await other.save(on: db)
        var note = ItemNote(orderID: 7, productID: "p3", text: "gift wrap")
        try await note.save(on: db)
        let item = try await note.fetch(ItemNote.item, on: db)  // both columns must match
        let before = db.statementCount
        let items = try await OrderItem.query(on: db).including(OrderItem.notes).order(\.productID).all()
        #expect(db.statementCount - before == 2, "one query for all the notes")
        let wrapped = try await OrderItem.query(on: db).whereExists(OrderItem.notes, \.text == "gift wrap").all()
        let bare = try await OrderItem.query(on: db).whereNotExists(OrderItem.notes).all()  // lines without a note
        #expect(wrapped.map(\.productID) == ["p3"], "whereExists matches both key columns")
        #expect(bare.map(\.productID) == ["p4"], "whereNotExists keeps the others")

        #expect(item?.quantity == 2)
        #expect(try items.map { try $0.loaded(OrderItem.notes).map(\.text) } == [["gift wrap"], []])
        var orphan = ItemNote(orderID: 8, productID: "p3", text: "lost")
        await #expect(throws: StrataError.self) { try await orphan.save(on: db) }
        #expect(orphan.id == nil)
        #expect(try await ItemNote.query(on: db).count() == 1)
        try await line.delete(on: db)  // destroy: its notes go with it
        #expect(try await ItemNote.query(on: db).count() == 0)
        let plan = try await db.withConnection { tx in try tx.plan([OrderItem.self, ItemNote.self]) }
        #expect(plan.isEmpty, "the two-column foreign key is read back: a second migration plans nothing")
    }

    @Test("hasMany(through:) with a two-column key to the owner and to the target", arguments: ["sqlite", "memory"])
    func compositeThrough(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ckth-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        defer { db.close() }
        try await db.migrate(Course.self, Student.self, Enrollment.self)
        var algebra = Course(term: 1, code: "A")
        var botany = Course(term: 1, code: "B")
        try await algebra.save(on: db)
        try await botany.save(on: db)
        var ann = Student(name: "Ann")
        try await algebra.add(&ann, to: Course.students, on: db)

        // Associations: "Associations to a composite key", hasMany(_:through:ownerKeys:targetKeys:onDelete:)
        let before = db.statementCount
        let courses = try await Course.query(on: db).including(Course.students).order(\.code).all()  // three statements
        #expect(db.statementCount - before == 3)
        let taken = try await Course.query(on: db).whereExists(Course.students).all()

        #expect(try courses.map { try $0.loaded(Course.students).map(\.name) } == [["Ann"], []])
        #expect(taken.map(\.code) == ["A"])
        #expect(try await ann.fetch(Student.courses, on: db).map(\.code) == ["A"])
        try await algebra.delete(on: db)  // destroy: the enrollment goes, the student stays
        #expect(try await Enrollment.query(on: db).count() == 0)
        #expect(try await Student.query(on: db).count() == 1)
    }
}
