// GeneratedPlanTests: planned saves of a table with generated columns, and planned read-backs of those columns, answer
// what the statements they stand for answer, errors and undo included.
import Strata
import StrataMemory
import Testing

/// The model types the templates below are for: a template stands for one statement shape, so a read-back of other
/// columns is another model's.
private enum Priced {}
private enum PricedView {}

/// `priced(id, price integer null, quantity integer null, note text, total = price * quantity, doubled = price +
/// price NOT NULL)`, unique on `total`: a save can fail on its generated values (overflow, NULL, a duplicate).
private let pricedSchema = TableSchema(
    name: "priced",
    columns: [
        TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
        TableColumn(name: "price", type: .integer, isNullable: true),
        TableColumn(name: "quantity", type: .integer, isNullable: true),
        TableColumn(name: "note", type: .text, isNullable: false),
        TableColumn(name: "total", type: .integer, isNullable: true).generated(
            as: .arithmetic(.multiply, .column("price"), .column("quantity"))),
        TableColumn(name: "doubled", type: .integer, isNullable: false).generated(
            as: .arithmetic(.add, .column("price"), .column("price"))),
    ])

private let saveTemplate = StatementTemplate(Priced.self, .insertReturningKey, table: "priced")
private let readBackTemplate = StatementTemplate(Priced.self, .readBackByKey, table: "priced")
private let viewReadBackTemplate = StatementTemplate(PricedView.self, .readBackByKey, table: "priced")

/// Counts the statements the template path built.
private final class Builds {
    var count = 0
}

/// One connection that runs saves and read-backs through the template path, one that runs their statements.
private struct Pair {
    let planned: any DatabaseConnection
    let plain: any DatabaseConnection
    let builds = Builds()

    init() throws {
        planned = try MemoryDriver().connect()
        plain = try MemoryDriver().connect()
        for c in [planned, plain] {
            _ = try c.execute(.createTable(pricedSchema)) { _ in }
            _ = try c.execute(.createIndex(table: "priced", Index(columns: ["total"], unique: true))) { _ in }
        }
    }

    /// The save's INSERT, or its error, on each side: the same on both. Returns the planned side's.
    @discardableResult
    func save(
        _ values: [DatabaseValue], sourceLocation: SourceLocation = #_sourceLocation
    ) -> Result<[DatabaseValue], any Error> {
        let insert = Statement.insert(
            Insert(table: "priced", columns: ["price", "quantity", "note"], rows: [values], returning: "id"))
        let builds = self.builds
        let a = Result { () throws -> [DatabaseValue] in
            var out: [DatabaseValue] = []
            _ = try planned.execute(
                template: saveTemplate, binds: values,
                statement: {
                    builds.count += 1
                    return insert
                }, onRow: { out.append($0.value(at: 0)) })
            return out
        }
        let b = Result { () throws -> [DatabaseValue] in
            var out: [DatabaseValue] = []
            _ = try plain.execute(insert) { out.append($0.value(at: 0)) }
            return out
        }
        #expect("\(a)" == "\(b)", "save \(values)", sourceLocation: sourceLocation)
        return a
    }

    /// The read-back of `columns` of row `id` on each side.
    func readBack(_ id: Int64, _ columns: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let select = Statement.select(
            Select(
                table: "priced", selection: .columns(columns),
                filter: .compare(.equal, .column("id"), .value(.integer(id)))))
        let builds = self.builds
        let a = Result { () throws -> [[DatabaseValue]] in
            var out: [[DatabaseValue]] = []
            _ = try planned.execute(
                template: columns == ["total", "doubled"] ? readBackTemplate : viewReadBackTemplate,
                binds: [.integer(id)],
                statement: {
                    builds.count += 1
                    return select
                }, onRow: { r in out.append((0..<r.columnCount).map { r.value(at: $0) }) })
            return out
        }
        let b = Result { () throws -> [[DatabaseValue]] in
            var out: [[DatabaseValue]] = []
            _ = try plain.execute(select) { r in out.append((0..<r.columnCount).map { r.value(at: $0) }) }
            return out
        }
        #expect("\(a)" == "\(b)", "read back \(id)", sourceLocation: sourceLocation)
    }

    /// Runs `statement` on both sides: the same outcome.
    func run(_ statement: Statement, sourceLocation: SourceLocation = #_sourceLocation) {
        let a = Result { try planned.execute(statement) { _ in } }
        let b = Result { try plain.execute(statement) { _ in } }
        #expect("\(a)" == "\(b)", "\(statement)", sourceLocation: sourceLocation)
    }

    /// Every row of `priced` on `c` (the added column too, when it is there), in id order.
    static func table(_ c: any DatabaseConnection) throws -> [[DatabaseValue]] {
        let names = try c.columns(of: "priced") ?? []
        return try fetch(c, "priced", names, order: [Ordering("id")])
    }
}

@Suite("Generated columns' plans")
struct GeneratedPlanTests {
    @Test(
        "planned saves and read-backs of generated columns match the statements on random data",
        arguments: [
            UInt64(26), 5_301, 77_019, 900_113,
        ])
    func matchesStatements(seed: UInt64) throws {
        var mix = Mix(state: seed)
        let pair = try Pair()
        var steps = 0
        var inTransaction = false
        var added = false
        for _ in 0..<600 {
            steps += 1
            let price: DatabaseValue =
                mix.chance(4) ? .null : mix.chance(3) ? .integer(Int64.max / 2 + 7) : .integer(Int64(mix.int(1...60)))
            let quantity: DatabaseValue = mix.chance(5) ? .null : .integer(Int64(mix.int(1...40)))
            let note: DatabaseValue = mix.chance(3) ? .null : mix.chance(3) ? .integer(3) : .text("n\(mix.int(0...9))")
            switch mix.int(0...99) {
            case 0..<45:
                pair.save([price, quantity, note])
            case 45..<80:
                let columns = mix.chance(50) ? ["total", "doubled"] : ["doubled", "id", "total"]
                pair.readBack(Int64(mix.int(0...steps / 2 + 2)), columns)
            case 80..<88:
                let id = Int64(mix.int(1...steps / 2 + 2))
                pair.run(
                    .update(
                        Update(
                            table: "priced", assignments: [Assignment("quantity", quantity)],
                            filter: .compare(.equal, .column("id"), .value(.integer(id))))))
            case 88..<92:
                pair.run(inTransaction ? (mix.chance(50) ? .commit : .rollback) : .begin)
                inTransaction.toggle()
            case 92..<94 where !added:
                // A schema change: the plans made before it are made again.
                pair.run(.addColumn(table: "priced", TableColumn(name: "extra", type: .text, isNullable: true)))
                added = true
            case 94..<96:
                let id = Int64(mix.int(1...steps / 2 + 2))
                pair.run(
                    .delete(
                        Delete(table: "priced", filter: .compare(.equal, .column("id"), .value(.integer(id))))))
            default:
                pair.readBack(Int64(mix.int(1...steps / 2 + 2)), ["total", "doubled"])
            }
        }
        if inTransaction { pair.run(.commit) }
        let planned = try Pair.table(pair.planned)
        #expect(planned == (try Pair.table(pair.plain)))
        #expect(planned.count > 50)
        // The plans were used: most saves and read-backs built no statement.
        #expect(pair.builds.count < steps / 4)
    }

    @Test("a planned save whose generated value overflows, is NULL in a NOT NULL column or collides changes nothing")
    func failuresChangeNothing() throws {
        let pair = try Pair()
        for k in 1...4 { pair.save([.integer(Int64(k)), .integer(10), .text("n\(k)")]) }
        #expect(pair.builds.count == 2)
        pair.run(.begin)
        let before = try Pair.table(pair.planned)
        let failing: [([DatabaseValue], (StrataError) -> Bool)] = [
            ([.integer(Int64.max / 2 + 1), .integer(1), .text("overflow")], Self.isArithmetic),
            ([.integer(Int64.max), .integer(2), .text("overflow")], Self.isArithmetic),
            (
                [.null, .integer(2), .text("null price")],
                { $0 == .notNullViolation(table: "priced", column: "doubled") }
            ),
            (
                [.integer(2), .integer(10), .text("same total")],
                {
                    $0 == .uniqueViolation(table: "priced", columns: ["total"])
                }
            ),
            ([.integer(5), .integer(1), .null], { $0 == .notNullViolation(table: "priced", column: "note") }),
        ]
        for (values, expected) in failing {
            switch pair.save(values) {
            case .success(let id): Issue.record("saved \(values) as \(id)")
            case .failure(let error):
                #expect((error as? StrataError).map(expected) == true, "\(values): \(error)")
            }
            #expect(try Pair.table(pair.planned) == before)
        }
        #expect(pair.builds.count == 2)
        #expect(try Pair.table(pair.planned) == before)
        pair.save([.integer(6), .integer(1), .text("next")])
        pair.run(.commit)
        let after = try Pair.table(pair.planned)
        #expect(after == (try Pair.table(pair.plain)))
        // The failed saves took no id: the next one is 5, as on SQLite.
        #expect(after.last == [.integer(5), .integer(6), .integer(1), .text("next"), .integer(6), .integer(12)])
        pair.readBack(5, ["total", "doubled"])
        pair.readBack(5, ["total", "doubled"])
        pair.readBack(9, ["total", "doubled"])
        #expect(pair.builds.count == 4)
    }

    private static func isArithmetic(_ error: StrataError) -> Bool {
        if case .arithmeticError = error { return true }
        return false
    }
}
