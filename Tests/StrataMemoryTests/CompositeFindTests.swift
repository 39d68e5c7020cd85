// CompositeFindTests: a planned find by every column of a composite key (one probe of its unique index) answers what
// the same filter run as a query answers, on random keys present and absent, through updates, deletes and rollbacks.
import Strata
import StrataMemory
import Testing

/// The model type the composite find template is for.
private enum Pair {}

/// `pair(a integer, b text, note text null, primary key (a, b))`: a key of an integer and a text column.
private let pairSchema = TableSchema(
    name: "pair",
    columns: [
        TableColumn(name: "a", type: .integer, isNullable: false, isPrimaryKey: true),
        TableColumn(name: "b", type: .text, isNullable: false, isPrimaryKey: true),
        TableColumn(name: "note", type: .text, isNullable: true),
    ])
private let pairColumns = ["a", "b", "note"]
private let pairFind = StatementTemplate(Pair.self, .findByKey, table: "pair")

/// How many times a find's statement was built (a planned find builds none).
private final class Builds {
    var count = 0
}

/// `a = ? AND b = ?`, in the key's column order, as a model's find sends it.
private func keyFilter(_ a: DatabaseValue, _ b: DatabaseValue) -> Expr {
    .and([.compare(.equal, .column("a"), .value(a)), .compare(.equal, .column("b"), .value(b))])
}

/// `find((a, b))` through the template path: the row it read, counting the statement's builds.
private func find(
    _ c: any DatabaseConnection, _ a: DatabaseValue, _ b: DatabaseValue, _ builds: Builds
) throws -> [DatabaseValue]? {
    var row: [DatabaseValue]?
    _ = try c.execute(
        template: pairFind, binds: [a, b],
        statement: {
            builds.count += 1
            return .select(Select(table: "pair", selection: .columns(pairColumns), filter: keyFilter(a, b)))
        }, onRow: { r in row = (0..<r.columnCount).map { r.value(at: $0) } })
    return row
}

/// A small deterministic generator (SplitMix64), so a failure reproduces.
private struct SplitMix {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

/// The value of key column `b` for `k`: short texts, one with a combining mark and its precomposed twin (equal in
/// Swift, different bytes in SQL).
private func bText(_ k: Int) -> DatabaseValue {
    let texts = ["x", "y", "", "e\u{301}", "\u{e9}", "zz"]
    return .text(texts[k % texts.count])
}

/// A text value's UTF-8 bytes (SQL equality), where Swift's `==` calls canonically equivalent text equal.
private func bytes(_ v: DatabaseValue) -> [UInt8] {
    if case .text(let s) = v { return Array(s.utf8) }
    return []
}

@Suite("Composite-key finds")
struct CompositeFindTests {
    @Test("a find by both key columns answers what the filter as a query answers, and is built twice only")
    func pinnedAgainstQuery() throws {
        var random = SplitMix(state: 26_05)
        let c = try MemoryDriver().connect()
        try run(c, .createTable(pairSchema))
        var rows: [[DatabaseValue]] = []
        var seen: Set<String> = []
        for k in 0..<300 {
            let a = DatabaseValue.integer(Int64(random.next(40)) - 5)
            let b = bText(random.next(6))
            guard seen.insert("\(a)|\(bytes(b))").inserted else { continue }
            rows.append([a, b, k % 3 == 0 ? .null : .text("n\(k)")])
        }
        try run(c, .insert(Insert(table: "pair", columns: pairColumns, rows: rows)))
        let builds = Builds()
        var found = 0
        var absent = 0
        /// Every key in a range wider than the stored one: each answer equals the query's and the scan's.
        func checkAll() throws {
            let all = try fetch(c, "pair", pairColumns)
            for a in -7...37 {
                for k in 0..<6 {
                    let key = (DatabaseValue.integer(Int64(a)), bText(k))
                    let planned = try find(c, key.0, key.1, builds)
                    let queried = try fetch(c, "pair", pairColumns, where: keyFilter(key.0, key.1))
                    let scanned = all.filter { $0[0] == key.0 && bytes($0[1]) == bytes(key.1) }
                    #expect(queried == scanned)
                    #expect(planned.map { [$0] } ?? [] == queried)
                    if planned == nil { absent += 1 } else { found += 1 }
                }
            }
        }
        try checkAll()
        #expect(found == rows.count)
        #expect(absent > 0)
        #expect(builds.count == 2)
        // Key rows moved to other keys, deleted, and a transaction's changes rolled back: the index follows.
        for k in stride(from: 0, to: rows.count, by: 7) {
            let moved = DatabaseValue.integer(100 + Int64(k))
            try run(
                c,
                .update(
                    Update(
                        table: "pair", assignments: [Assignment("a", moved)], filter: keyFilter(rows[k][0], rows[k][1])
                    )))
            #expect(try find(c, rows[k][0], rows[k][1], builds) == nil)
            #expect(try find(c, moved, rows[k][1], builds)?[2] == rows[k][2])
        }
        for k in stride(from: 3, to: rows.count, by: 5) {
            try run(c, .delete(Delete(table: "pair", filter: keyFilter(rows[k][0], rows[k][1]))))
        }
        found = 0
        absent = 0
        try checkAll()
        #expect(found > 0 && absent > 0)
        try run(c, .begin)
        try run(c, .delete(Delete(table: "pair", filter: nil)))
        try run(c, .insert(Insert(table: "pair", columns: pairColumns, rows: [[.integer(1), .text("x"), .text("t")]])))
        #expect(try find(c, .integer(1), .text("x"), builds) == [.integer(1), .text("x"), .text("t")])
        try run(c, .rollback)
        found = 0
        absent = 0
        try checkAll()
        #expect(found > 0 && absent > 0)
        // Undoing a delete of every row puts the whole table back, which plans again: one more build.
        #expect(builds.count == 3)
    }

    @Test("a bind not of its column's kind is answered by the statement, as the query answers it")
    func otherKinds() throws {
        let c = try MemoryDriver().connect()
        try run(c, .createTable(pairSchema))
        try run(
            c,
            .insert(
                Insert(
                    table: "pair", columns: pairColumns,
                    rows: [[.integer(1), .text("1"), .null], [.integer(2), .text("x"), .text("two")]])))
        let builds = Builds()
        for _ in 0..<2 { #expect(try find(c, .integer(2), .text("x"), builds)?[2] == .text("two")) }
        #expect(builds.count == 2)
        let keys: [(DatabaseValue, DatabaseValue)] = [
            (.text("2"), .text("x")), (.integer(1), .integer(1)), (.double(2), .text("x")), (.null, .text("x")),
            (.integer(2), .null),
        ]
        for key in keys {
            let planned = try find(c, key.0, key.1, builds)
            let queried = try fetch(c, "pair", pairColumns, where: keyFilter(key.0, key.1))
            #expect(planned.map { [$0] } ?? [] == queried)
        }
        // Each of those was built and run as a statement.
        #expect(builds.count == 2 + keys.count)
        #expect(try find(c, .integer(2), .text("x"), builds)?[2] == .text("two"))
        #expect(builds.count == 2 + keys.count)
    }

    @Test("a find whose terms are not the key's columns in order is built and run as a statement every time")
    func otherShapes() throws {
        let c = try MemoryDriver().connect()
        try run(c, .createTable(pairSchema))
        try run(c, .insert(Insert(table: "pair", columns: pairColumns, rows: [[.integer(1), .text("x"), .null]])))
        let builds = Builds()
        for _ in 0..<3 {
            var row: [DatabaseValue]?
            _ = try c.execute(
                template: pairFind, binds: [.text("x"), .integer(1)],
                statement: {
                    builds.count += 1
                    let filter = Expr.and([
                        .compare(.equal, .column("b"), .value(.text("x"))),
                        .compare(.equal, .column("a"), .value(.integer(1))),
                    ])
                    return .select(Select(table: "pair", selection: .columns(["note", "a"]), filter: filter))
                }, onRow: { r in row = (0..<r.columnCount).map { r.value(at: $0) } })
            #expect(row == [.null, .integer(1)])
        }
        #expect(builds.count == 3)
    }
}
