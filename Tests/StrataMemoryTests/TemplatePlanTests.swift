// TemplatePlanTests: a model's find and save run from their binds once planned, with the answers, errors and undo of
// the statements they stand for.
import Strata
import StrataMemory
import Testing

/// The model type the templates below are for.
private enum Item {}

/// `find` of an item by its key: the template, and its statement counted each time it is built.
private final class Builds {
    var count = 0
}

private let itemColumns = ["id", "name", "score", "price", "flag"]
private let findTemplate = StatementTemplate(Item.self, .findByKey, table: "item")
private let saveTemplate = StatementTemplate(Item.self, .insertReturningKey, table: "item")

/// Runs `find(id)` through the template path; returns the row, counting the statement's builds in `builds`.
private func find(_ c: any DatabaseConnection, _ id: Int64, _ builds: Builds) throws -> [DatabaseValue]? {
    var row: [DatabaseValue]?
    _ = try c.execute(
        template: findTemplate, binds: [.integer(id)],
        statement: {
            builds.count += 1
            return .select(
                Select(
                    table: "item", selection: .columns(itemColumns),
                    filter: .compare(.equal, .column("id"), .value(.integer(id)))))
        }, onRow: { r in row = (0..<r.columnCount).map { r.value(at: $0) } })
    return row
}

/// Runs a model's save of `values` (name, score, price, flag) through the template path; returns the new id.
private func save(_ c: any DatabaseConnection, _ values: [DatabaseValue], _ builds: Builds) throws -> DatabaseValue? {
    var id: DatabaseValue?
    let changed = try c.execute(
        template: saveTemplate, binds: values,
        statement: {
            builds.count += 1
            return .insert(
                Insert(table: "item", columns: ["name", "score", "price", "flag"], rows: [values], returning: "id"))
        }, onRow: { r in id = r.value(at: 0) })
    #expect(changed == 1)
    return id
}

private func item(_ name: String, _ score: Int64) -> [DatabaseValue] {
    [.text(name), .integer(score), .double(0.5), .bool(true)]
}

@Suite("Template plans")
struct TemplatePlanTests {
    @Test("a find and a save are built on their first two runs only, and answer what the statements answer")
    func builtTwice() throws {
        let c = try makeItems()
        let saves = Builds()
        for k in 1...10 {
            #expect(try save(c, item("n\(k)", Int64(k)), saves) == .integer(Int64(k)))
        }
        #expect(saves.count == 2)
        let finds = Builds()
        for k in 1...12 {
            let row = try find(c, Int64(k), finds)
            if k <= 10 {
                #expect(row == [.integer(Int64(k)), .text("n\(k)"), .integer(Int64(k)), .double(0.5), .bool(true)])
            } else {
                #expect(row == nil)
            }
        }
        #expect(finds.count == 2)
        #expect(try count(c) == 10)
    }

    @Test("a planned save that breaks a constraint or a type changes nothing and leaves the transaction usable")
    func failedSaveChangesNothing() throws {
        let c = try makeItems()
        try run(c, .createIndex(table: "item", Index(columns: ["name"], unique: true)))
        let saves = Builds()
        try run(c, .begin)
        for k in 1...3 { _ = try save(c, item("n\(k)", Int64(k)), saves) }
        #expect(saves.count == 2)
        let before = try fetch(c, "item", itemColumns)
        expectError(.uniqueViolation(table: "item", columns: ["name"])) { _ = try save(c, item("n2", 9), saves) }
        expectError(.notNullViolation(table: "item", column: "name")) {
            _ = try save(c, [.null, .integer(1), .null, .bool(false)], saves)
        }
        expectError(.typeMismatch(table: "item", column: "score", detail: "expected integer, got text")) {
            _ = try save(c, [.text("x"), .text("1"), .null, .bool(false)], saves)
        }
        #expect(saves.count == 2)
        #expect(try fetch(c, "item", itemColumns) == before)
        // The id counter was put back too: the next save takes the next id, as on SQLite.
        #expect(try save(c, item("n4", 4), saves) == .integer(4))
        try run(c, .commit)
        #expect(try names(c) == ["n1", "n2", "n3", "n4"])
        // Outside a transaction, a failed save changes nothing either.
        expectError(.uniqueViolation(table: "item", columns: ["name"])) { _ = try save(c, item("n1", 1), saves) }
        #expect(try names(c) == ["n1", "n2", "n3", "n4"])
        #expect(saves.count == 2)
    }

    @Test("a planned save that references no parent changes nothing")
    func foreignKey() throws {
        let c = try MemoryDriver().connect()
        try run(
            c,
            .createTable(
                TableSchema(
                    name: "parent",
                    columns: [TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true)])))
        try run(
            c,
            .createTable(
                TableSchema(
                    name: "child",
                    columns: [
                        TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                        TableColumn(name: "ref", type: .integer, isNullable: true),
                    ], foreignKeys: [ForeignKey(column: "ref", references: "parent")])))
        try run(c, .insert(Insert(table: "parent", columns: ["id"], rows: [[.integer(1)]])))
        let template = StatementTemplate(Item.self, .insertReturningKey, table: "child")
        let builds = Builds()
        func saveChild(_ ref: Int64) throws {
            _ = try c.execute(
                template: template, binds: [.integer(ref)],
                statement: {
                    builds.count += 1
                    return .insert(Insert(table: "child", columns: ["ref"], rows: [[.integer(ref)]], returning: "id"))
                }, onRow: { _ in })
        }
        for _ in 0..<3 { try saveChild(1) }
        #expect(builds.count == 2)
        expectError(.foreignKeyViolation(table: "child")) { try saveChild(7) }
        #expect(try fetch(c, "child", ["id", "ref"]) == (1...3).map { [.integer($0), .integer(1)] })
        #expect(builds.count == 2)
    }

    @Test("a plan follows the table dropped and made again with its columns in another order, and a rolled-back one")
    func followsSchemaChanges() throws {
        let c = try makeItems()
        let saves = Builds()
        let finds = Builds()
        for k in 1...3 { _ = try save(c, item("n\(k)", Int64(k)), saves) }
        for _ in 0..<3 { _ = try find(c, 2, finds) }
        try run(c, .dropTable("item"))
        let reordered = TableSchema(
            name: "item", columns: [itemSchema.columns[0]] + itemSchema.columns[1...].reversed())
        try run(c, .createTable(reordered))
        #expect(try find(c, 2, finds) == nil)
        #expect(try save(c, item("m1", 5), saves) == .integer(1))
        #expect(try find(c, 1, finds) == [.integer(1), .text("m1"), .integer(5), .double(0.5), .bool(true)])
        #expect(
            try fetch(c, "item", ["flag", "price", "score", "name"]) == [
                [.bool(true), .double(0.5), .integer(5), .text("m1")]
            ])
        // A table created and rolled back: the plans made meanwhile do not outlive it.
        try run(c, .begin)
        try run(c, .dropTable("item"))
        try run(c, .createTable(itemSchema))
        for k in 1...3 { _ = try save(c, item("t\(k)", Int64(k)), saves) }
        #expect(try find(c, 3, finds)?[1] == .text("t3"))
        try run(c, .rollback)
        #expect(try find(c, 1, finds) == [.integer(1), .text("m1"), .integer(5), .double(0.5), .bool(true)])
        #expect(try find(c, 3, finds) == nil)
        #expect(try save(c, item("m2", 6), saves) == .integer(2))
        #expect(try fetch(c, "item", ["name"]) == [[.text("m1")], [.text("m2")]])
    }

    @Test("while another connection's transaction is open, a planned find reads what is committed")
    func readsCommitted() throws {
        let driver = MemoryDriver(busyTimeout: 0)
        let writer = try driver.connect()
        let reader = try driver.connect()
        try run(writer, .createTable(itemSchema))
        let saves = Builds()
        let finds = Builds()
        for k in 1...3 { _ = try save(writer, item("n\(k)", Int64(k)), saves) }
        for _ in 0..<3 { #expect(try find(reader, 1, finds)?[1] == .text("n1")) }
        #expect(finds.count == 2)
        try run(writer, .begin)
        _ = try save(writer, item("n4", 4), saves)
        try run(
            writer, .update(Update(table: "item", assignments: [Assignment("name", .text("changed"))], filter: nil)))
        #expect(try find(reader, 4, finds) == nil)
        #expect(try find(reader, 1, finds)?[1] == .text("n1"))
        expectError(.busy) { _ = try save(reader, item("n5", 5), saves) }
        try run(writer, .commit)
        #expect(try find(reader, 4, finds)?[1] == .text("changed"))
        #expect(try save(reader, item("n5", 5), saves) == .integer(5))
    }

    @Test("a find of another shape (a soft-deleted model's) is built and run as a statement every time")
    func otherShapes() throws {
        let c = try makeItems([("a", 1), ("b", nil)])
        let builds = Builds()
        for _ in 0..<4 {
            var row: [DatabaseValue]?
            _ = try c.execute(
                template: findTemplate, binds: [.integer(2)],
                statement: {
                    builds.count += 1
                    return .select(
                        Select(
                            table: "item", selection: .columns(["name", "score"]),
                            filter: .and([
                                .compare(.equal, .column("id"), .value(.integer(2))), .isNull(.column("price")),
                            ])))
                }, onRow: { r in row = (0..<r.columnCount).map { r.value(at: $0) } })
            #expect(row == [.text("b"), .null])
        }
        #expect(builds.count == 4)
    }
}
