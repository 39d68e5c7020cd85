// DeleteAllTests: DELETE without WHERE empties a table at once, and still rolls back and applies foreign keys.
import Strata
import StrataMemory
import Testing

@Suite("Delete without WHERE")
struct DeleteAllTests {
    private func snapshot(_ c: any DatabaseConnection) throws -> [[DatabaseValue]] {
        try fetch(c, "item", ["id", "name", "score"])
    }

    @Test("rolled back whole, by ROLLBACK and by ROLLBACK TO, with lookups by id and index ranges intact")
    func rollback() throws {
        let c = try makeItems((0..<300).map { ("n\($0)", Int64($0 % 50)) })
        try run(c, .createIndex(table: "item", Index(columns: ["score"])))
        let range = Expr.compare(.greater, col("score"), int(45))
        let before = try snapshot(c)
        let inRange = try fetch(c, where: range)
        #expect(inRange.count == 24)

        try run(c, .begin)
        try run(c, .insert(Insert(table: "item", columns: ["name", "score"], rows: [[.text("x"), .integer(49)]])))
        #expect(try run(c, .delete(Delete(table: "item", filter: nil))) == 301)
        #expect(try count(c) == 0)
        #expect(try fetch(c, where: range).isEmpty)
        try run(c, .insert(Insert(table: "item", columns: ["name", "score"], rows: [[.text("y"), .integer(48)]])))
        #expect(try fetch(c, where: range) == [[.text("y")]])
        try run(c, .rollback)
        #expect(try snapshot(c) == before)
        #expect(try fetch(c, where: range) == inRange)
        #expect(try fetch(c, where: .compare(.equal, col("id"), int(7))) == [[.text("n6")]])

        try run(c, .begin)
        try run(c, .savepoint("s"))
        #expect(try run(c, .delete(Delete(table: "item", filter: nil))) == 300)
        try run(c, .rollbackToSavepoint("s"))
        try run(c, .commit)
        #expect(try snapshot(c) == before)

        // Outside a transaction it sticks, and ids go on after the largest kept.
        #expect(try run(c, .delete(Delete(table: "item", filter: nil))) == 300)
        #expect(try run(c, .delete(Delete(table: "item", filter: nil))) == 0)
        var ids: [DatabaseValue] = []
        _ = try c.execute(
            .insert(Insert(table: "item", columns: ["name"], rows: [[.text("a")], [.text("b")]], returning: "id"))
        ) { ids.append($0.value(at: 0)) }
        #expect(ids == [.integer(301), .integer(302)])  // the rolled-back inserts gave their ids back
        #expect(try fetch(c, where: .compare(.equal, col("id"), int(302))) == [[.text("b")]])
    }

    @Test("foreign keys: NO ACTION refuses and leaves every row, CASCADE empties the children too")
    func foreignKeys() throws {
        let c = try MemoryDriver().connect()
        let id = TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true)
        let ref = TableColumn(name: "ref", type: .integer, isNullable: true)
        try run(c, .createTable(TableSchema(name: "parent", columns: [id])))
        for (name, action) in [("child", ForeignKey.Action.cascade), ("keep", .noAction)] {
            try run(
                c,
                .createTable(
                    TableSchema(
                        name: name, columns: [id, ref],
                        foreignKeys: [ForeignKey(column: "ref", references: "parent", onDelete: action)])))
        }
        try run(c, .insert(Insert(table: "parent", columns: ["id"], rows: [[.integer(1)], [.integer(2)]])))
        try run(c, .insert(Insert(table: "child", columns: ["ref"], rows: [[.integer(1)], [.integer(2)], [.null]])))
        try run(c, .insert(Insert(table: "keep", columns: ["ref"], rows: [[.integer(2)]])))
        expectError(.foreignKeyViolation(table: "keep")) { try run(c, .delete(Delete(table: "parent", filter: nil))) }
        #expect(try count(c, "parent") == 2)
        #expect(try count(c, "child") == 3)
        #expect(try fetch(c, "parent", ["id"], where: .compare(.equal, col("id"), int(2))) == [[.integer(2)]])
        try run(c, .delete(Delete(table: "keep", filter: nil)))
        #expect(try run(c, .delete(Delete(table: "parent", filter: nil))) == 2)
        #expect(try fetch(c, "child", ["ref"]) == [[.null]])
    }
}
