// OrderedIndexTests: queries answered through an index's ordered entries return what a full scan returns.
import Foundation
import Strata
import StrataMemory
import Testing

/// Two stores fed the same statements: one with indexes (so lookups read ordered entries), one without.
private struct Twins {
    let indexed: any DatabaseConnection
    let plain: any DatabaseConnection

    init() throws {
        indexed = try MemoryDriver().connect()
        plain = try MemoryDriver().connect()
        _ = try indexed.execute(.createTable(itemSchema)) { _ in }
        _ = try plain.execute(.createTable(itemSchema)) { _ in }
        for columns in [["score"], ["name"], ["price", "score"]] {
            _ = try indexed.execute(.createIndex(table: "item", Index(columns: columns))) { _ in }
        }
    }

    /// Runs `statement` on both; both must succeed with the same count or fail with the same error.
    func run(_ statement: Statement, sourceLocation: SourceLocation = #_sourceLocation) {
        let a = Result { try indexed.execute(statement) { _ in } }
        let b = Result { try plain.execute(statement) { _ in } }
        #expect("\(a)" == "\(b)", "\(statement)", sourceLocation: sourceLocation)
    }

    /// The rows of `select` from both, as text (NaN is not equal to itself as a value).
    func same(_ select: Select, sourceLocation: SourceLocation = #_sourceLocation) throws {
        func rows(_ c: any DatabaseConnection) throws -> [String] {
            var out: [String] = []
            _ = try c.execute(.select(select)) { r in
                out.append((0..<r.columnCount).map { "\(r.value(at: $0))" }.joined(separator: "|"))
            }
            return out
        }
        #expect(try rows(indexed) == rows(plain), "\(select)", sourceLocation: sourceLocation)
    }
}

@Suite("Ordered index lookups")
struct OrderedIndexTests {
    private static let names = ["a", "b", "bob", "Zoe", "é", "e\u{301}", "_x", "", "zz", "émile"]
    private static let prices: [DatabaseValue] = [
        .null, .double(0), .double(-0.0), .double(1.5), .double(-2.25), .double(.nan), .double(.infinity), .double(3),
    ]

    private static func score(_ g: inout Mix) -> DatabaseValue {
        g.chance(10) ? .null : .integer(Int64(g.int(-5...40)))
    }

    /// A bound for a term on column `column`: mostly of the column's kind, sometimes another kind or NULL.
    private static func bound(_ column: String, _ g: inout Mix) -> DatabaseValue {
        if g.chance(5) { return .null }
        switch column {
        case "score":
            if g.chance(10) { return .double(Double(g.int(-10...90)) / 2) }
            if g.chance(3) { return .text("7") }
            return .integer(Int64(g.int(-8...44)))
        case "name":
            return .text(g.pick(names + ["b\u{0}", "c", "Z"]))
        default:
            if g.chance(15) { return .integer(Int64(g.int(-3...4))) }
            return g.pick(prices + [.double(2), .double(-1)])
        }
    }

    private static func term(_ g: inout Mix) -> Expr {
        let column = g.pick(["score", "score", "name", "price", "flag"])
        if column == "flag" { return .compare(.equal, .column("flag"), .value(.bool(g.chance(50)))) }
        switch g.int(0...9) {
        case 0...5:
            let op = g.pick([ComparisonOperator.equal, .less, .lessOrEqual, .greater, .greaterOrEqual, .notEqual])
            return g.chance(80)
                ? .compare(op, .column(column), .value(bound(column, &g)))
                : .compare(op, .value(bound(column, &g)), .column(column))
        case 6, 7:
            return .between(
                .column(column), .value(bound(column, &g)), .value(bound(column, &g)),
                negated: g.chance(10))
        case 8:
            return .inList(.column(column), (0..<g.int(0...4)).map { _ in bound(column, &g) }, negated: g.chance(10))
        default:
            return .isNull(.column(column), negated: g.chance(50))
        }
    }

    private static func filter(_ g: inout Mix) -> Expr {
        switch g.int(0...9) {
        case 0...4: return Self.term(&g)
        case 5...8: return .and((0..<g.int(2...3)).map { _ in Self.term(&g) })
        default: return .or([Self.term(&g), Self.term(&g)])
        }
    }

    private static func select(_ g: inout Mix) -> Select {
        var order: [Ordering] = []
        if g.chance(60) {
            order.append(Ordering(g.pick(["score", "price", "name", "id"]), g.chance(30) ? .descending : .ascending))
            if g.chance(30) { order.append(Ordering(g.pick(["name", "flag"]))) }
        }
        return Select(
            table: "item", selection: g.chance(10) ? .count : .columns(["id", "name", "score", "price", "flag"]),
            filter: g.chance(20) ? nil : filter(&g), order: order, limit: g.chance(40) ? g.int(0...12) : nil,
            offset: g.chance(20) ? g.int(0...5) : nil)
    }

    /// The table joined with itself on an indexed column (its lookups read the index on the indexed twin, a hash
    /// on the plain one), filtered on the main table's columns (narrowed through its index first) and sometimes on
    /// the joined one's; RIGHT and FULL joins narrow nothing.
    private static func joinSelect(_ g: inout Mix) -> Select {
        let column = g.pick(["score", "name", "price", "id"])
        var on: Expr = .compare(
            .equal, .column(column, table: "item"), .column(g.pick([column, column, "score"]), table: "j"))
        if g.chance(20) { on = .and([on, .isNull(.column("price", table: "j"), negated: g.chance(50))]) }
        var filter: Expr? = g.chance(20) ? nil : Self.filter(&g)
        if g.chance(25) {
            let joined: Expr = .compare(.greater, .column("score", table: "j"), .value(.integer(Int64(g.int(-5...40)))))
            filter = filter.map { .and([$0, joined]) } ?? joined
        }
        let kind = g.pick([Join.Kind.left, .left, .inner, .inner, .right, .full])
        var refs = ["id", "name", "score", "price"].map { ColumnRef($0) }
        refs += ["id", "score"].map { ColumnRef($0, table: "j") }
        return Select(
            table: "item", selection: .refs(refs), joins: [Join(kind, table: "item", alias: "j", on: on)],
            filter: filter, order: g.chance(50) ? [Ordering("id"), Ordering("id", table: "j")] : [],
            limit: g.chance(20) ? g.int(0...12) : nil)
    }

    private static func row(_ g: inout Mix) -> [DatabaseValue] {
        [.text(g.pick(names)), Self.score(&g), g.pick(prices), .bool(g.chance(50))]
    }

    @Test(
        "random writes, rollbacks, queries and self-joins: index lookups return what a scan returns, in the same order")
    func differential() throws {
        for seed in UInt64(1)...4 {
            var g = Mix(state: seed)
            let twins = try Twins()
            var inTransaction = false
            var savepoints = 0
            for step in 0..<1_500 {
                switch g.int(0...99) {
                case 0...29:
                    let rows = (0..<g.int(1...(step < 200 ? 30 : 4))).map { _ in Self.row(&g) }
                    twins.run(.insert(Insert(table: "item", columns: ["name", "score", "price", "flag"], rows: rows)))
                case 30...34:
                    twins.run(.delete(Delete(table: "item", filter: Self.term(&g))))
                case 35...41:
                    let value = g.chance(50) ? Self.score(&g) : .integer(Int64(g.int(1...400)))
                    let column = value.isNull || g.chance(60) ? "score" : "id"
                    twins.run(
                        .update(Update(table: "item", assignments: [Assignment(column, value)], filter: Self.term(&g))))
                case 42...44:
                    twins.run(
                        .update(
                            Update(
                                table: "item", assignments: [Assignment("name", .text(g.pick(Self.names)))],
                                filter: Self.term(&g))))
                case 45...47:
                    if inTransaction {
                        twins.run(g.chance(50) ? .commit : .rollback)
                        inTransaction = false
                        savepoints = 0
                    } else {
                        twins.run(.begin)
                        inTransaction = true
                    }
                case 48, 49:
                    guard inTransaction else { continue }
                    if savepoints > 0 && g.chance(50) {
                        twins.run(.rollbackToSavepoint("s\(savepoints)"))
                    } else {
                        savepoints += 1
                        twins.run(.savepoint("s\(savepoints)"))
                    }
                case 50...59:
                    try twins.same(Self.joinSelect(&g))
                default:
                    try twins.same(Self.select(&g))
                }
            }
            try twins.same(Select(table: "item", selection: .columns(["id", "name", "score", "price"])))
        }
    }

    @Test("on a large table, a range reads only the rows in range and ORDER BY … LIMIT only the ends of the index")
    func largeRange() throws {
        let twins = try Twins()
        let rows: [[DatabaseValue]] = (0..<5_000).map { (k: Int) -> [DatabaseValue] in
            let score = Int64((k &* 7_919) % 5_003)
            let price = Double(k % 300) / 4
            return [.text("n\(k % 97)"), .integer(score), .double(price), .bool(k % 2 == 0)]
        }
        twins.run(.insert(Insert(table: "item", columns: ["name", "score", "price", "flag"], rows: rows)))
        for t in stride(from: 0, to: 5_100, by: 211) {
            try twins.same(
                Select(
                    table: "item", selection: .columns(["id", "score", "price"]),
                    filter: .compare(.greater, .column("score"), .value(.integer(Int64(t)))),
                    order: [Ordering("price")],
                    limit: 10))
            try twins.same(
                Select(
                    table: "item", selection: .columns(["id", "score"]),
                    filter: .and([
                        .compare(.greaterOrEqual, .column("score"), .value(.integer(Int64(t)))),
                        .compare(.less, .column("score"), .value(.integer(Int64(t + 40)))),
                    ])))
            // ORDER BY an indexed column with LIMIT reads the ends of the index.
            for (column, direction) in [
                ("score", Ordering.Direction.ascending), ("score", .descending), ("name", .descending),
            ] {
                try twins.same(
                    Select(
                        table: "item", selection: .columns(["id", "name", "score"]),
                        order: [Ordering(column, direction), Ordering("price", .descending)], limit: 9, offset: t % 3))
            }
            // Writes between queries land in the pending slots, then force a rebuild.
            twins.run(
                .insert(
                    Insert(
                        table: "item", columns: ["name", "score"],
                        rows: (0..<40).map { [.text("w\($0)"), .integer(Int64(t + $0))] })))
            twins.run(
                .update(
                    Update(
                        table: "item", assignments: [Assignment("score", .integer(Int64(t + 7)))],
                        filter: .between(.column("id"), int(Int64(t)), int(Int64(t + 30))))))
        }
    }

    /// The order the driver promises, written out plainly: NULL least, NaN above every number, text by UTF-8 bytes.
    private static func order(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.integer(let x), .integer(let y)): return sign(x, y)
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? 0 : (x.isNaN ? 1 : -1) }
            return sign(x, y)
        case (.text(let x), .text(let y)):
            if x.utf8.elementsEqual(y.utf8) { return 0 }
            return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
        case (.bool(let x), .bool(let y)): return sign(x ? 1 : 0, y ? 1 : 0)
        default: return 0
        }
    }

    @Test("ORDER BY on integer and double columns, with NULLs, NaN, -0.0 and ties, matches the plain rule")
    func orderByPlainKeys() throws {
        let c = try makeItems()
        var g = Mix(state: 99)
        let doubles: [DatabaseValue] = [
            .null, .double(.nan), .double(-0.0), .double(0), .double(2.5), .double(-.infinity), .double(.infinity),
            .double(1e300),
        ]
        var rows: [[DatabaseValue]] = []
        for _ in 0..<400 {
            let score: DatabaseValue = g.chance(8) ? .null : .integer(Int64(g.int(-20...20)))
            let price: DatabaseValue = g.chance(70) ? .double(Double(g.int(-6...6)) / 2) : g.pick(doubles)
            rows.append([.text(g.pick(Self.names)), score, price, .bool(g.chance(50))])
        }
        // One table of only integers and doubles (no NULL) too, so the plain-number path runs.
        let numbers = try makeItems()
        for (table, data) in [(c, rows), (numbers, rows.filter { !$0[1].isNull && !$0[2].isNull })] {
            _ = try table.execute(
                .insert(Insert(table: "item", columns: ["name", "score", "price", "flag"], rows: data))
            ) { _ in }
            let all = try fetch(table, "item", ["id", "name", "score", "price", "flag"])
            let position = ["id": 0, "name": 1, "score": 2, "price": 3, "flag": 4]
            let orders: [[Ordering]] = [
                [Ordering("score")], [Ordering("score", .descending)], [Ordering("price")],
                [Ordering("price", .descending)], [Ordering("price"), Ordering("name", .descending)],
                [Ordering("score", .descending), Ordering("price")], [Ordering("flag"), Ordering("score")],
            ]
            for order in orders {
                let expected = all.enumerated().sorted { a, b in
                    for o in order {
                        let p = position[o.column] ?? 0
                        let r = Self.order(a.element[p], b.element[p])
                        if r != 0 { return o.direction == .descending ? r > 0 : r < 0 }
                    }
                    return a.offset < b.offset
                }.map { "\($0.element)" }
                for limit in [nil, 0, 1, 5, 30, 1_000] as [Int?] {
                    for offset in [nil, 3] as [Int?] {
                        let got = try fetch(
                            table, "item", ["id", "name", "score", "price", "flag"], order: order, limit: limit,
                            offset: offset
                        ).map { "\($0)" }
                        let start = min(offset ?? 0, expected.count)
                        let end = limit.map { min(expected.count, start + $0) } ?? expected.count
                        #expect(got == Array(expected[start..<end]), "\(order) limit \(String(describing: limit))")
                    }
                }
            }
        }
    }

    @Test("lookups by primary key follow explicit, sparse, negative, changed and deleted ids")
    func primaryKeyMap() throws {
        let c = try makeItems()
        var g = Mix(state: 7)
        var model: [Int64: String] = [:]
        var lastID: Int64 = 0
        func find(_ id: Int64) throws -> String? {
            let rows = try fetch(c, where: .compare(.equal, col("id"), int(id)))
            guard let first = rows.first, case .text(let name) = first[0] else { return nil }
            return name
        }
        for step in 0..<3_000 {
            let name = "n\(step)"
            if step % 1_000 == 999 {
                // Emptied tables continue their ids far from 1.
                #expect(try run(c, .delete(Delete(table: "item", filter: nil))) == model.count)
                model = [:]
            }
            switch g.int(0...9) {
            case 0...3:
                try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text(name)]])))
                lastID += 1
                model[lastID] = name
            case 4, 5:
                let id = Int64(g.pick([g.int(-3...0), g.int(1...Int(lastID) + 200), g.int(1_000...1_100), 1 << 40]))
                let rows: [[DatabaseValue]] = [[.integer(id), .text(name)]]
                let result = Result { try run(c, .insert(Insert(table: "item", columns: ["id", "name"], rows: rows))) }
                #expect((try? result.get()) == (model[id] == nil ? 1 : nil))
                if model[id] == nil {
                    model[id] = name
                    lastID = max(lastID, id)
                }
            case 6, 7:
                let id = Int64(g.int(-3...Int(lastID) + 3))
                #expect(
                    try run(c, .delete(Delete(table: "item", filter: .compare(.equal, col("id"), int(id)))))
                        == (model[id] == nil ? 0 : 1))
                model[id] = nil
            default:
                guard let id = model.keys.randomElement(using: &g) else { continue }
                let to = Int64(g.int(1...Int(lastID) + 100))
                let update = Update(
                    table: "item", assignments: [Assignment("id", .integer(to))],
                    filter: .compare(.equal, col("id"), int(id)))
                let result = Result { try run(c, .update(update)) }
                if model[to] == nil || to == id {
                    #expect((try? result.get()) == 1)
                    let moved = model.removeValue(forKey: id)
                    model[to] = moved
                    lastID = max(lastID, to)
                } else {
                    #expect((try? result.get()) == nil)
                }
            }
            for _ in 0..<3 {
                let id = Int64(g.pick([g.int(-3...Int(lastID) + 3), g.int(1_000...1_100)]))
                #expect(try find(id) == model[id], "id \(id) at step \(step)")
            }
        }
        #expect(try count(c) == Int64(model.count))
    }
}
