// GroupAndWalkTests: the grouping hash table, GROUP BY through a primary key and keyset pages walked along an index
// return what the general paths return.
import Foundation
import Strata
import Testing

@testable import StrataMemory

/// `rec(id, a integer null, t text null, d double null, b bool null)`, `id` the integer primary key or not.
private func recSchema(keyed: Bool) -> TableSchema {
    TableSchema(
        name: "rec",
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: keyed),
            TableColumn(name: "a", type: .integer, isNullable: true),
            TableColumn(name: "t", type: .text, isNullable: true),
            TableColumn(name: "d", type: .double, isNullable: true),
            TableColumn(name: "b", type: .bool, isNullable: true),
        ])
}

/// `kid(id, rec_id integer null, v integer null)`.
private func kidSchema(keyed: Bool) -> TableSchema {
    TableSchema(
        name: "kid",
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: keyed),
            TableColumn(name: "rec_id", type: .integer, isNullable: true),
            TableColumn(name: "v", type: .integer, isNullable: true),
        ])
}

private let texts = ["x", "y", "é", "e\u{301}", "", "a longer text than eight bytes", "Zed"]

/// Two stores fed the same statements: one with primary keys and indexes on `rec.a` and `kid.rec_id`, one with
/// neither (every query there groups by all its columns and scans).
private struct Twins {
    let fast: any DatabaseConnection
    let plain: any DatabaseConnection

    init() throws {
        fast = try MemoryDriver().connect()
        plain = try MemoryDriver().connect()
        for (c, keyed) in [(fast, true), (plain, false)] {
            _ = try c.execute(.createTable(recSchema(keyed: keyed))) { _ in }
            _ = try c.execute(.createTable(kidSchema(keyed: keyed))) { _ in }
        }
        _ = try fast.execute(.createIndex(table: "rec", Index(columns: ["a"]))) { _ in }
        _ = try fast.execute(.createIndex(table: "kid", Index(columns: ["rec_id"]))) { _ in }
    }

    func run(_ statement: Statement, sourceLocation: SourceLocation = #_sourceLocation) {
        let a = Result { try fast.execute(statement) { _ in } }
        let b = Result { try plain.execute(statement) { _ in } }
        #expect("\(a)" == "\(b)", "\(statement)", sourceLocation: sourceLocation)
    }

    /// Runs `select` on both: the same rows (in the same order when `ordered`), or the same error. Returns the
    /// row count.
    @discardableResult
    func same(_ select: Select, ordered: Bool, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        func rows(_ c: any DatabaseConnection) -> Result<[String], Error> {
            Result {
                var out: [String] = []
                _ = try c.execute(.select(select)) { r in
                    out.append((0..<r.columnCount).map { "\(r.value(at: $0))" }.joined(separator: "|"))
                }
                return ordered ? out : out.sorted()
            }
        }
        let a = rows(fast)
        let b = rows(plain)
        #expect("\(a)" == "\(b)", "\(select)", sourceLocation: sourceLocation)
        return (try? a.get().count) ?? 0
    }
}

@Suite("GROUP BY's hash table and primary key, keyset pages along an index")
struct GroupAndWalkTests {
    private static func value(_ column: Int, _ g: inout Mix) -> DatabaseValue {
        if g.chance(10) { return .null }
        switch column {
        case 0: return .integer(Int64(g.int(-3...6)))
        case 1: return .text(g.pick(texts))
        case 2: return .double(g.pick([0, -0.0, 1, 1.5, -2, .nan, .infinity, 1e300]))
        default: return .bool(g.chance(50))
        }
    }

    @Test("the hash table numbers groups as the dictionary of keys does: the same groups, in order of first row")
    func hashTableMatchesDictionary() throws {
        let table = try MemoryTable(schema: recSchema(keyed: true))
        var g = Mix(state: 26)
        var groupsSeen = 0
        for round in 0..<300 {
            let rows = (0..<g.int(0...120)).map { k -> [DatabaseValue] in
                [.integer(Int64(k))] + (0..<4).map { Self.value($0, &g) }
            }
            let evaluator = GroupEvaluator(scope: ColumnScope(table), rows: rows, table: "rec")
            let names = ["id", "a", "t", "d", "b"]
            let columns = (0..<g.int(1...3)).map { _ in ColumnRef(g.pick(names)) }
            let matched = rows.indices.filter { _ in g.chance(80) }
            let hashed = try evaluator.groupRanges(matched, by: columns)
            let keyed = try evaluator.groupRanges(matched, by: columns, hashed: false)
            #expect(hashed.0 == keyed.0 && hashed.1 == keyed.1, "round \(round), \(columns)")
            groupsSeen += hashed.1.count
            // No two groups hold the same values.
            let positions = columns.map { names.firstIndex(of: $0.name) ?? 0 }
            let keys = hashed.1.map { r in positions.map { Array("\(rows[hashed.0[r.lowerBound]][$0])".utf8) } }
            #expect(Set(keys).count == keys.count, "round \(round)")
        }
        #expect(groupsSeen > 5_000, "the rounds must make groups to compare: \(groupsSeen)")
    }

    @Test("NaN is one group, -0.0 groups with 0.0, precomposed and decomposed é apart, NULL a group of its own")
    func hashTableEdges() throws {
        let table = try MemoryTable(schema: recSchema(keyed: true))
        let values: [DatabaseValue] = [
            .double(.nan), .double(0), .double(-0.0), .double(.nan), .null, .double(1), .null,
        ]
        let texts: [DatabaseValue] = [.text("é"), .text("e\u{301}"), .text("é"), .null, .text(""), .null, .text("")]
        let rows = zip(values, texts).enumerated().map { k, p -> [DatabaseValue] in
            [.integer(Int64(k)), .null, p.1, p.0, .null]
        }
        let evaluator = GroupEvaluator(scope: ColumnScope(table), rows: rows, table: "rec")
        let (byDouble, doubleRanges) = try evaluator.groupRanges(Array(rows.indices), by: [ColumnRef("d")])
        #expect(doubleRanges.map { Array(byDouble[$0]) } == [[0, 3], [1, 2], [4, 6], [5]])
        let (byText, textRanges) = try evaluator.groupRanges(Array(rows.indices), by: [ColumnRef("t")])
        #expect(textRanges.map { Array(byText[$0]) } == [[0, 2], [1], [3, 5], [4, 6]])
    }

    /// A filter for a keyset page or a range along `a`: what `page(after:)` sends, and other shapes.
    private static func walkFilter(_ g: inout Mix) -> Expr {
        let x = Int64(g.int(-4...7))
        let id = Int64(g.int(0...300))
        switch g.int(0...5) {
        case 0, 1:
            // The keyset condition after (x, id), either direction.
            let op: ComparisonOperator = g.chance(70) ? .greater : .less
            return .or([
                .compare(op, .column("a"), int(x)),
                .and([.compare(.equal, .column("a"), int(x)), .compare(op, .column("id"), int(id))]),
            ])
        case 2: return .compare(g.pick([.greater, .greaterOrEqual, .less, .lessOrEqual, .equal]), .column("a"), int(x))
        case 3: return .between(.column("a"), int(x), int(x + Int64(g.int(0...3))), negated: false)
        case 4:
            return .and([
                .compare(.greater, .column("a"), int(x)), .compare(.notEqual, .column("t"), .value(.text("x"))),
            ])
        default: return .or([.isNull(.column("a"), negated: false), .compare(.less, .column("id"), int(id))])
        }
    }

    @Test("keyset pages and ranges walked along an index return a scan's rows and order, through writes and NULLs")
    func walkMatchesScan() throws {
        var found = 0
        for seed in UInt64(1)...4 {
            var g = Mix(state: seed)
            let twins = try Twins()
            var nextID: Int64 = 1
            var inTransaction = false
            for step in 0..<800 {
                switch g.int(0...99) {
                case 0...19:
                    let rows = (0..<g.int(1...(step < 50 ? 30 : 3))).map { _ -> [DatabaseValue] in
                        defer { nextID += 1 }
                        return [.integer(nextID)] + (0..<4).map { Self.value($0, &g) }
                    }
                    twins.run(.insert(Insert(table: "rec", columns: ["id", "a", "t", "d", "b"], rows: rows)))
                case 20...24:
                    twins.run(.delete(Delete(table: "rec", filter: Self.walkFilter(&g))))
                case 25...34:
                    twins.run(
                        .update(
                            Update(
                                table: "rec", assignments: [Assignment("a", Self.value(0, &g))],
                                filter: .compare(.equal, .column("id"), int(Int64(g.int(1...Int(nextID))))))))
                case 35...37:
                    twins.run(inTransaction ? (g.chance(50) ? .commit : .rollback) : .begin)
                    inTransaction.toggle()
                default:
                    let descending = g.chance(30)
                    var order = [Ordering("a", descending ? .descending : .ascending)]
                    if g.chance(70) { order.append(Ordering("id", g.chance(80) ? order[0].direction : .descending)) }
                    var select = Select(
                        table: "rec", selection: .columns(["id", "a", "t"]), filter: Self.walkFilter(&g), order: order)
                    select.limit = g.int(0...25)
                    if g.chance(20) { select.offset = g.int(0...10) }
                    found += twins.same(select, ordered: true)
                }
            }
        }
        #expect(found > 5_000, "the pages must find rows to compare: \(found)")
    }

    @Test("GROUP BY a primary key and other columns, joined or not, returns grouping by every column's groups")
    func primaryKeyGroups() throws {
        var g = Mix(state: 5)
        let twins = try Twins()
        let recs = (1...120).map { k -> [DatabaseValue] in [.integer(Int64(k))] + (0..<4).map { Self.value($0, &g) } }
        twins.run(.insert(Insert(table: "rec", columns: ["id", "a", "t", "d", "b"], rows: recs)))
        let kids = (1...400).map { k -> [DatabaseValue] in
            [.integer(Int64(k)), g.chance(5) ? .null : .integer(Int64(g.int(1...130))), Self.value(0, &g)]
        }
        twins.run(.insert(Insert(table: "kid", columns: ["id", "rec_id", "v"], rows: kids)))
        var groups = 0
        for _ in 0..<200 {
            var grouped = [ColumnRef("id")]
            for name in ["a", "t", "d", "b"] where g.chance(50) { grouped.append(ColumnRef(name)) }
            grouped.shuffle(using: &g)
            let joined = g.chance(80)
            var items = grouped.map(SelectItem.column) + [.aggregate(Aggregate(.count))]
            if joined {
                items += [
                    .aggregate(Aggregate(.count, ColumnRef("id", table: "j"))),
                    .aggregate(Aggregate(.sum, ColumnRef("v", table: "j"))),
                    .aggregate(Aggregate(.max, ColumnRef("v", table: "j"))),
                ]
                if g.chance(30) {
                    grouped.append(ColumnRef("v", table: "j"))
                    items.append(.column(ColumnRef("v", table: "j")))
                }
            }
            var select = Select(table: "rec", selection: .items(items))
            if joined {
                let on: Expr = .compare(.equal, .column("id"), .column("rec_id", table: "j"))
                select.joins = [Join(g.pick([.left, .left, .inner, .right, .full]), table: "kid", alias: "j", on: on)]
            }
            if g.chance(40) { select.filter = .compare(.greater, .column("a"), int(Int64(g.int(-3...4)))) }
            select.groupBy = grouped
            groups += twins.same(select, ordered: false)
        }
        #expect(groups > 8_000, "the queries must make groups to compare: \(groups)")
    }
}
