// GroupByTests: GROUP BY in memory: keys of one or two columns (NULL a group of its own), aggregates folded per row.
import Strata
import StrataMemory
import Testing

@Suite("GROUP BY in memory")
struct GroupByTests {
    /// `SELECT <columns>, <items> FROM item GROUP BY <columns> ORDER BY <columns>`.
    private func grouped(
        _ c: any DatabaseConnection, by columns: [String], _ aggregates: [Aggregate]
    ) throws -> [[DatabaseValue]] {
        var s = Select(
            table: "item",
            selection: .items(columns.map { .column(ColumnRef($0)) } + aggregates.map(SelectItem.aggregate)),
            order: columns.map { Ordering($0) })
        s.groupBy = columns.map { ColumnRef($0) }
        var out: [[DatabaseValue]] = []
        _ = try c.execute(.select(s)) { r in out.append((0..<r.columnCount).map { r.value(at: $0) }) }
        return out
    }

    private func items() throws -> any DatabaseConnection {
        try makeItems([("a", 1), ("b", 5), ("a", nil), ("b", 5), ("a", 3), ("c", nil)])
    }

    @Test("one column: count, count of values, distinct count, sum, avg, min and max per group")
    func oneColumn() throws {
        let rows = try grouped(
            try items(), by: ["name"],
            [
                Aggregate(.count), Aggregate(.count, ColumnRef("score")),
                Aggregate(.count, ColumnRef("score"), distinct: true), Aggregate(.sum, ColumnRef("score")),
                Aggregate(.avg, ColumnRef("score")), Aggregate(.min, ColumnRef("score")),
                Aggregate(.max, ColumnRef("score")),
            ])
        #expect(
            rows == [
                [.text("a"), .integer(3), .integer(2), .integer(2), .integer(4), .double(2), .integer(1), .integer(3)],
                [
                    .text("b"), .integer(2), .integer(2), .integer(1), .integer(10), .double(5), .integer(5),
                    .integer(5),
                ],
                [.text("c"), .integer(1), .integer(0), .integer(0), .null, .null, .null, .null],
            ])
    }

    @Test("NULL keys make one group, first in ascending order, in one column and in two")
    func nullKeys() throws {
        let c = try items()
        #expect(
            try grouped(c, by: ["score"], [Aggregate(.count)]) == [
                [.null, .integer(2)], [.integer(1), .integer(1)], [.integer(3), .integer(1)],
                [.integer(5), .integer(2)],
            ])
        #expect(
            try grouped(c, by: ["name", "score"], [Aggregate(.count)]) == [
                [.text("a"), .null, .integer(1)], [.text("a"), .integer(1), .integer(1)],
                [.text("a"), .integer(3), .integer(1)], [.text("b"), .integer(5), .integer(2)],
                [.text("c"), .null, .integer(1)],
            ])
    }

    @Test("an integer sum past Int64 fails the query, even when the running total comes back within it")
    func integerOverflow() throws {
        let c = try makeItems([("a", .max), ("a", 1), ("a", -2)])
        #expect(
            try grouped(c, by: ["name"], [Aggregate(.sum, ColumnRef("score"))]) == [[.text("a"), .integer(.max - 1)]])
        try run(c, .insert(Insert(table: "item", columns: ["name", "score"], rows: [[.text("a"), .integer(2)]])))
        #expect(throws: StrataError.self) { try grouped(c, by: ["name"], [Aggregate(.sum, ColumnRef("score"))]) }
    }
}
