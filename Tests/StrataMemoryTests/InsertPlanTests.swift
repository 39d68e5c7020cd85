// InsertPlanTests: INSERTs naming the same columns reuse their plan, which follows schema changes and keeps its errors.
import Strata
import StrataMemory
import Testing

@Suite("Insert plans")
struct InsertPlanTests {
    @Test("a column added after INSERTs is filled by the next ones; a rolled-back ADD COLUMN is forgotten")
    func followsAddColumn() throws {
        let c = try makeItems([("a", 1)])
        try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("b")]])))
        try run(c, .begin)
        let extra = TableColumn(name: "extra", type: .integer, isNullable: false, backfill: .integer(7))
        try run(c, .addColumn(table: "item", extra))
        try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("c")]])))
        #expect(try fetch(c, "item", ["name", "extra"]).map { $0[1] } == [.integer(7), .integer(7), .integer(7)])
        try run(c, .rollback)
        try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("d")]])))
        #expect(try names(c) == ["a", "b", "d"])
        #expect(try c.columns(of: "item") == ["id", "name", "score", "price", "flag"])
    }

    @Test("an omitted NOT NULL column without default fails every time, after an unknown RETURNING column")
    func keepsErrors() throws {
        let c = try makeItems()
        for _ in 0..<2 {
            expectError(.notNullViolation(table: "item", column: "name")) {
                try run(c, .insert(Insert(table: "item", columns: ["score"], rows: [[.integer(1)]])))
            }
        }
        expectError(.unknownColumn(model: "item", column: "nope")) {
            try run(c, .insert(Insert(table: "item", columns: ["score"], rows: [[.integer(1)]], returning: "nope")))
        }
        try run(c, .insert(Insert(table: "item", columns: ["name", "score"], rows: [[.text("x"), .integer(2)]])))
        expectError(.invalidQuery("column name is given twice in INSERT")) {
            try run(c, .insert(Insert(table: "item", columns: ["name", "name"], rows: [[.text("x"), .text("y")]])))
        }
        #expect(try fetch(c, "item", ["name", "score", "flag"]) == [[.text("x"), .integer(2), .bool(false)]])
    }
}
