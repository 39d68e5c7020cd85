// ModelMacroTests: what @Model generates, compiled for real and inspected through the Model protocol.
import Foundation
import Testing

@testable import Strata

@Model(table: "people")
struct Person {
    var id: Int64?
    var fullName: String
    @Column("mail") var email: String
    var isAdmin = false
    var homeURL: URL?
    var tags: [String] = []
    @Transient var cache = 0
    var shout: String { fullName.uppercased() }
}

@Model
struct Memo: Codable, Equatable {
    var id: Int64?
    var text: String
}

@Suite("@Model expansion")
struct ModelMacroTests {
    @Test("columns are derived in declaration order with snake_case names and types")
    func schema() {
        let s = Person.schema
        #expect(s.name == "people")
        #expect(s.columns.map(\.name) == ["id", "full_name", "mail", "is_admin", "home_url", "tags"])
        #expect(s.columns.map(\.type) == [.integer, .text, .text, .bool, .text, .json])
        #expect(s.columns.map(\.isNullable) == [true, false, false, false, true, false])
        #expect(s.primaryKeyIndex == 0)
        #expect(s.columns[3].schemaDefault == .bool(false))
        #expect(s.columns[5].schemaDefault == .json("[]"))
    }

    @Test("key paths map to columns; transient and computed ones to none")
    func keyPaths() {
        #expect(Person.columnName(for: \Person.email) == "mail")
        #expect(Person.columnName(for: \Person.fullName) == "full_name")
        #expect(Person.columnName(for: \Person.cache) == nil)
        #expect(Person.columnName(for: \Person.shout) == nil)
        #expect(Person.keyPath(forColumn: "mail") == \Person.email)
        #expect(Person.keyPath(forColumn: "full_name") == \Person.fullName)
        #expect(Person.keyPath(forColumn: "cache") == nil)
        #expect(Person.schema.columns[0].keyPath == \Person.id)
    }

    /// A hand-written model: its columns made from key paths are all `columnName(for:)` needs.
    struct Sketch: Model {
        var id: Int64?
        var title: String
        var draft = ""
        static let schema = TableSchema(
            name: "sketch",
            columns: [
                TableColumn(\Sketch.id, "id", primaryKey: true), TableColumn(\Sketch.title, "heading"),
                TableColumn(name: "draft", type: .text, isNullable: false),
            ])
        init(row: Row) throws {
            id = try row.decode(0)
            title = try row.decode(1)
            draft = try row.decode(2)
        }
        var databaseValues: [DatabaseValue] { [id.databaseValue, title.databaseValue, draft.databaseValue] }
    }

    @Test("a hand-written model's columns made from key paths map them both ways; one made by name maps none")
    func handWrittenKeyPaths() {
        #expect(Sketch.columnName(for: \Sketch.title) == "heading")
        #expect(Sketch.columnName(for: \Sketch.id) == "id")
        #expect(Sketch.columnName(for: \Sketch.draft) == nil)
        #expect(Sketch.keyPath(forColumn: "heading") == \Sketch.title)
        #expect(Sketch.keyPath(forColumn: "draft") == nil)
        // Key paths are not part of a column's equality: a schema read from a database equals the model's.
        #expect(TableColumn(\Sketch.title, "heading") == TableColumn(name: "heading", type: .text, isNullable: false))
    }

    @Test("values are encoded in column order, and the memberwise init still works")
    func values() {
        let p = Person(fullName: "Ada", email: "ada@x.io", tags: ["a"])
        #expect(p.databaseValues == [.null, .text("Ada"), .text("ada@x.io"), .bool(false), .null, .json(#"["a"]"#)])
    }

    @Test("a typed predicate renders through the key path's column")
    func predicate() throws {
        let p: Condition<Person> = \.isAdmin == true && \.email ~~ "%@x.io"
        let e = try p.result.get()
        #expect(
            e == .and([.compare(.equal, .column("is_admin"), .value(.bool(true))), .like(.column("mail"), "%@x.io")]))
        let bad: Condition<Person> = \.cache == 1
        #expect(throws: StrataError.self) { try bad.result.get() }
    }

    @Test("assignments mark their column; transient properties, init and equality are untouched")
    func changeTracking() {
        var p = Person(fullName: "Ada", email: "ada@x.io")
        #expect(p._persistence == nil && p.hasChanges)
        p.fullName = "Ada L."
        #expect(p._persistence == nil, "a model never stored has no state to mark")
        p._persistence.markStored()
        p.id = 1
        p._persistence.markStored()
        #expect(!p.hasChanges)
        p.cache = 9
        #expect(!p.hasChanges)
        p.tags.append("x")
        p[keyPath: \Person.email] = "new@x.io"
        #expect((0..<6).map { p._persistence?.isChanged($0) } == [false, false, true, false, false, true])
        #expect(p.hasChanges)
        p._persistence.markStored()
        #expect(!p.hasChanges && p._persistence.isStored)
        #expect(Person.schema.columns.allSatisfy { $0.tracksChanges })
    }

    @Test("columns from 62 on share one change bit; the stored bit is apart")
    func changeBitsOverflow() {
        var state = PersistenceState()
        state.markStored()
        state.markChanged(70)
        #expect(state.isChanged(62) && state.isChanged(99))
        #expect(!state.isChanged(0) && !state.isChanged(61))
        #expect(state.isStored && state.hasChangedColumns)
        state.markChanged(61)
        #expect(state.isChanged(61))
        #expect(PersistenceState() == state)
    }

    @Test("a Codable model decodes from JSON without the change-tracking property, and round-trips")
    func codable() throws {
        let decoded = try JSONDecoder().decode(Memo.self, from: Data(#"{"id": 3, "text": "hi"}"#.utf8))
        #expect(decoded == Memo(id: 3, text: "hi"))
        var stored = decoded
        stored._persistence.markStored()
        let json = try JSONEncoder().encode(stored)
        #expect(try JSONDecoder().decode(Memo.self, from: json) == decoded)
    }

    @Test("a stored model's JSON holds its columns only: no _persistence key, not even null")
    func codableHasNoPersistenceKey() throws {
        var stored = Memo(id: 3, text: "hi")
        stored._persistence.markStored()
        stored.text = "changed"  // a change mark, which must not show either
        for model in [Memo(id: 4, text: "new"), stored] {
            let json = try JSONEncoder().encode(model)
            let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
            #expect(object.map { Set($0.keys) } == ["id", "text"], "\(String(decoding: json, as: UTF8.self))")
            #expect(!String(decoding: json, as: UTF8.self).contains("persistence"))
        }
    }
}
