// PathIndexTests: queries answered through a JSON path index, or a join read from its small side, return what a scan
// returns.
import Foundation
import Strata
import StrataMemory
import Testing

/// `doc(id pk, n integer, body json null)` and `pick(id pk, want integer null)`.
private let docSchema = TableSchema(
    name: "doc",
    columns: [
        TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
        TableColumn(name: "n", type: .integer, isNullable: true),
        TableColumn(name: "body", type: .json, isNullable: true),
    ])
private let pickSchema = TableSchema(
    name: "pick",
    columns: [
        TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
        TableColumn(name: "want", type: .integer, isNullable: true),
    ])

/// The paths the tests index and query.
private let paths: [JSONPath] = [
    JSONPath(["size"], as: .integer), JSONPath(["size"], as: .double), JSONPath(["theme"], as: .text),
    JSONPath(["tags", 0], as: .text), JSONPath(["on"], as: .bool),
]

/// Two stores fed the same statements: one with an index on each path and on `doc.n`, one with none.
private struct PathTwins {
    let indexed: any DatabaseConnection
    let plain: any DatabaseConnection

    init() throws {
        indexed = try MemoryDriver().connect()
        plain = try MemoryDriver().connect()
        for c in [indexed, plain] {
            _ = try c.execute(.createTable(docSchema)) { _ in }
            _ = try c.execute(.createTable(pickSchema)) { _ in }
        }
        for path in paths {
            var index = Index(columns: [])
            index.expression = .jsonPath(.column("body"), path)
            _ = try indexed.execute(.createIndex(table: "doc", index)) { _ in }
        }
        _ = try indexed.execute(.createIndex(table: "doc", Index(columns: ["n"]))) { _ in }
    }

    func run(_ statement: Statement, sourceLocation: SourceLocation = #_sourceLocation) {
        let a = Result { try indexed.execute(statement) { _ in } }
        let b = Result { try plain.execute(statement) { _ in } }
        #expect("\(a)" == "\(b)", "\(statement)", sourceLocation: sourceLocation)
    }

    /// Runs `select` on both: the same rows in the same order, or the same error. Returns the row count.
    @discardableResult
    func same(_ select: Select, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        func rows(_ c: any DatabaseConnection) -> Result<[String], Error> {
            Result {
                var out: [String] = []
                _ = try c.execute(.select(select)) { r in
                    out.append((0..<r.columnCount).map { "\(r.value(at: $0))" }.joined(separator: "|"))
                }
                return out
            }
        }
        let a = rows(indexed)
        let b = rows(plain)
        #expect("\(a)" == "\(b)", "\(select)", sourceLocation: sourceLocation)
        return (try? a.get().count) ?? 0
    }
}

@Suite("JSON path indexes and joins read from their small side")
struct PathIndexTests {
    /// A document: a size that is an integer, a fraction, text or missing; a theme; tags; a flag.
    private static func body(_ g: inout Mix) -> DatabaseValue {
        if g.chance(5) { return .null }
        var members: [String] = []
        switch g.int(0...9) {
        case 0...5: members.append("\"size\": \(g.int(-20...60))")
        case 6: members.append("\"size\": \(g.int(-20...60)).5")
        case 7: members.append("\"size\": \"\(g.int(0...9))\"")
        case 8: members.append("\"size\": null")
        default: break
        }
        if g.chance(85) { members.append("\"theme\": \"\(g.pick(["dark", "light", "é", "e\\u0301", "", "Zed"]))\"") }
        if g.chance(70) { members.append("\"tags\": [\"t\(g.int(0...4))\", \"u\"]") }
        if g.chance(60) { members.append("\"on\": \(g.chance(50))") }
        if g.chance(20) { members.append("\"size\": \(g.int(0...5))") }  // a key written twice: the last counts
        return .json("{" + members.shuffledDeterministically(&g).joined(separator: ", ") + "}")
    }

    private static func bound(_ path: JSONPath, _ g: inout Mix) -> DatabaseValue {
        if g.chance(5) { return .null }
        switch path.type {
        case .integer, .double:
            if g.chance(10) { return .double(Double(g.int(-40...120)) / 2) }
            if g.chance(3) { return .text("7") }
            return .integer(Int64(g.int(-25...65)))
        case .text: return .text(g.pick(["dark", "e", "light", "t2", "u", "", "é", "zz"]))
        case .bool: return g.chance(10) ? .integer(1) : .bool(g.chance(50))
        }
    }

    private static func term(_ g: inout Mix) -> Expr {
        let path = g.pick(paths)
        let value: Expr = .jsonPath(.column("body"), g.chance(90) ? path : JSONPath(["size"], as: .text))
        switch g.int(0...9) {
        case 0...6:
            let op = g.pick([ComparisonOperator.equal, .less, .lessOrEqual, .greater, .greaterOrEqual, .notEqual])
            return g.chance(80)
                ? .compare(op, value, .value(bound(path, &g))) : .compare(op, .value(bound(path, &g)), value)
        case 7, 8:
            return .between(value, .value(bound(path, &g)), .value(bound(path, &g)), negated: g.chance(10))
        default:
            return .compare(.greater, .column("n"), .value(.integer(Int64(g.int(0...40)))))
        }
    }

    private static func filter(_ g: inout Mix) -> Expr {
        switch g.int(0...9) {
        case 0...5: return term(&g)
        case 6...8: return .and((0..<g.int(2...3)).map { _ in term(&g) })
        default: return .or([term(&g), term(&g)])
        }
    }

    @Test("random writes, rollbacks and path queries: a path index returns what a scan returns, in the same order")
    func differential() throws {
        var nonEmpty = 0
        for seed in UInt64(1)...4 {
            var g = Mix(state: seed)
            let twins = try PathTwins()
            var inTransaction = false
            for step in 0..<1_200 {
                switch g.int(0...99) {
                case 0...24:
                    let rows = (0..<g.int(1...(step < 100 ? 40 : 4))).map { _ -> [DatabaseValue] in
                        [.integer(Int64(g.int(0...40))), Self.body(&g)]
                    }
                    twins.run(.insert(Insert(table: "doc", columns: ["n", "body"], rows: rows)))
                case 25...29:
                    twins.run(.delete(Delete(table: "doc", filter: Self.term(&g))))
                case 30...37:
                    twins.run(
                        .update(
                            Update(
                                table: "doc", assignments: [Assignment("body", Self.body(&g))],
                                filter: Self.term(&g))))
                case 38...41:
                    twins.run(inTransaction ? (g.chance(50) ? .commit : .rollback) : .begin)
                    inTransaction.toggle()
                default:
                    let refs = [ColumnRef("id"), ColumnRef("n")]
                    var select = Select(table: "doc", selection: .refs(refs), filter: Self.filter(&g))
                    if g.chance(30) { select.order = [Ordering("n", .descending)] }
                    if g.chance(20) { select.limit = g.int(0...6) }
                    if twins.same(select) > 0 { nonEmpty += 1 }
                }
            }
            twins.same(Select(table: "doc", selection: .columns(["id", "n", "body"])))
        }
        #expect(nonEmpty > 500, "the queries must find rows to compare: \(nonEmpty)")
    }

    @Test("a term on an indexed path is searched through the path's index, as explain() says; without one, scanned")
    func explainNamesPathIndex() throws {
        let twins = try PathTwins()
        let select = Select(
            table: "doc", selection: .columns(["id"]),
            filter: .compare(.greater, .jsonPath(.column("body"), paths[0]), .value(.integer(3))))
        let plan = try twins.indexed.explain(select)
        #expect(plan.first?.hasPrefix("SEARCH doc USING INDEX ") == true, "\(plan)")
        #expect(plan.first?.hasSuffix(" (<expr>>?)") == true, "\(plan)")
        #expect(try twins.plain.explain(select) == ["SCAN doc"])
    }

    @Test("a join of a small table on an indexed column of a large one returns the nested loop's rows and order")
    func smallSideJoin() throws {
        var g = Mix(state: 9)
        let twins = try PathTwins()
        let rows = (0..<400).map { k -> [DatabaseValue] in [k % 17 == 0 ? .null : .integer(Int64(k % 50)), .null] }
        twins.run(.insert(Insert(table: "doc", columns: ["n", "body"], rows: rows)))
        var joined = 0
        for step in 0..<300 {
            if step % 3 == 0 {
                // The small table changes between queries: a few rows, NULLs and repeats among them.
                twins.run(.delete(Delete(table: "pick", filter: .compare(.greater, .column("id"), int(0)))))
                let wants = (0..<g.int(0...8)).map { _ -> [DatabaseValue] in
                    [g.chance(10) ? .null : .integer(Int64(g.int(-2...52)))]
                }
                if !wants.isEmpty { twins.run(.insert(Insert(table: "pick", columns: ["want"], rows: wants))) }
            }
            if step % 5 == 0 {
                // Writes to the large table land in its index's pending slots.
                twins.run(
                    .update(
                        Update(
                            table: "doc", assignments: [Assignment("n", .integer(Int64(g.int(0...50))))],
                            filter: .compare(.equal, .column("id"), int(Int64(g.int(1...400)))))))
            }
            var on: Expr = .compare(.equal, .column("n", table: "doc"), .column("want", table: "pick"))
            if g.chance(30) { on = .and([on, .compare(.greater, .column("id", table: "pick"), int(1))]) }
            if g.chance(20) { on = .compare(.equal, .column("want", table: "pick"), .column("n", table: "doc")) }
            var filter: Expr? = nil
            if g.chance(30) { filter = .compare(.less, .column("id", table: "pick"), int(Int64(g.int(1...6)))) }
            if g.chance(10) { filter = .compare(.less, .column("id"), int(Int64(g.int(1...400)))) }
            let kind = g.pick([Join.Kind.inner, .inner, .inner, .left])
            let select = Select(
                table: "doc",
                selection: .refs([ColumnRef("id"), ColumnRef("n"), ColumnRef("id", table: "pick")]),
                joins: [Join(kind, table: "pick", alias: "pick", on: on)], filter: filter,
                order: g.chance(20) ? [Ordering("id", .descending)] : [], limit: g.chance(20) ? g.int(0...9) : nil)
            joined += twins.same(select)
        }
        #expect(joined > 1_000, "the joins must find rows to compare: \(joined)")
    }
}

extension Array {
    /// The elements in an order `g` picks (Fisher–Yates), so a failure replays.
    fileprivate func shuffledDeterministically(_ g: inout Mix) -> [Element] {
        var out = self
        for i in out.indices.reversed() where i > 0 { out.swapAt(i, g.int(0...i)) }
        return out
    }
}
