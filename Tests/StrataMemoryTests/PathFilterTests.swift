// PathFilterTests: comparisons of one JSON path, read once for an AND of them, and integers read digit by digit,
// answer what the general evaluator and Int64(text) answer.
import Strata
import Testing

@testable import StrataMemory

/// Literals a document's `size` may hold: integers at and past Int64's ends, fractions, exponents, other types.
private let sizes = [
    "0", "-0", "7", "-7", "42", "150", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
    "-9223372036854775809", "1.5", "2e3", "1E2", "-3.0", "\"12\"", "true", "null", "[1]", "{\"a\":1}",
]

@Suite("JSON path filters")
struct PathFilterTests {
    @Test(
        "an AND of comparisons of one path, read once, selects and throws as the general evaluator",
        arguments: [
            UInt64(3), 404, 58_217,
        ])
    func fusedMatchesGeneral(seed: UInt64) throws {
        var mix = Mix(state: seed)
        let columns = [
            TableColumn(name: "id", type: .integer, isNullable: false),
            TableColumn(name: "doc", type: .json, isNullable: true),
            TableColumn(name: "n", type: .integer, isNullable: true),
        ]
        var rows: [[DatabaseValue]] = []
        for k in 0..<300 {
            let doc: DatabaseValue
            switch mix.int(0...9) {
            case 0: doc = .null
            case 1: doc = .json("{\"theme\":\"x\"}")
            case 2: doc = .json("{\"size\":\(mix.pick(sizes)),\"size\":\(mix.pick(sizes))}")
            default: doc = .json("{\"theme\":\"t\(k % 7)\", \"size\": \(mix.pick(sizes)) ,\"tags\":[\"a\",{\"b\":[]}]}")
            }
            rows.append([.integer(Int64(k)), doc, mix.int(0...4) == 0 ? .null : .integer(Int64(mix.int(0...9)))])
        }
        let table = MemoryTable(derived: "doc_table", columns: columns, rows: rows)
        let bounds: [DatabaseValue] = [
            .integer(0), .integer(7), .integer(150), .integer(-8), .integer(Int64.max), .integer(Int64.min),
            .double(7.5), .double(-1e30), .null, .text("12"), .bool(true),
        ]
        var fused = 0
        for _ in 0..<400 {
            let type = mix.pick([JSONPath.ValueType.integer, .double, .text, .bool])
            let path = SQLExpression.jsonPath(.column("doc"), JSONPath(["size"], as: type))
            let ops: [ComparisonOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
            var terms: [SQLExpression] = []
            for _ in 0..<mix.int(1...3) {
                let v = SQLExpression.value(mix.pick(bounds))
                terms.append(
                    mix.int(0...3) == 0 ? .compare(mix.pick(ops), v, path) : .compare(mix.pick(ops), path, v))
            }
            if mix.int(0...2) == 0 {
                terms.append(.compare(mix.pick(ops), .column("n"), .value(.integer(Int64(mix.int(0...9))))))
            }
            let condition = try CompiledCondition(SQLExpression.and(terms).node, table: table)
            guard let filter = ConjunctiveFilter(condition) else { continue }
            fused += 1
            for slot in rows.indices {
                let general = Result { () throws(StrataError) -> Bool in try condition.truth(rows[slot]) == .yes }
                let planned = Result { () throws(StrataError) -> Bool in
                    try rows.withUnsafeBufferPointer { b throws(StrataError) in try filter.matches(b, slot) }
                }
                #expect("\(planned)" == "\(general)", "\(terms) on \(rows[slot])")
            }
        }
        #expect(fused > 300)
    }

    @Test("a path over a column that is not JSON throws on the first row as the general evaluator does")
    func nonJSONColumnThrows() throws {
        let columns = [TableColumn(name: "n", type: .integer, isNullable: true)]
        let rows: [[DatabaseValue]] = [[.null], [.integer(3)]]
        let table = MemoryTable(derived: "t", columns: columns, rows: rows)
        let path = SQLExpression.jsonPath(.column("n"), JSONPath(["size"], as: .integer))
        let condition = try CompiledCondition(
            SQLExpression.and([
                .compare(.greater, path, .value(.integer(1))), .compare(.less, path, .value(.integer(9))),
            ])
            .node, table: table)
        let filter = try #require(ConjunctiveFilter(condition))
        for slot in rows.indices {
            let general = Result { () throws(StrataError) -> Bool in try condition.truth(rows[slot]) == .yes }
            let planned = Result { () throws(StrataError) -> Bool in
                try rows.withUnsafeBufferPointer { b throws(StrataError) in try filter.matches(b, slot) }
            }
            #expect("\(planned)" == "\(general)")
        }
        #expect(throws: StrataError.self) {
            try rows.withUnsafeBufferPointer { b throws(StrataError) in try filter.matches(b, 1) }
        }
    }

    @Test("an integer path reads what Int64 reads from the literal's text", arguments: sizes)
    func integerLiteral(literal: String) {
        let read = JSONPathReader.value(in: "{\"size\": \(literal)}", at: JSONPath(["size"], as: .integer))
        let isFraction = literal.contains { $0 == "." || $0 == "e" || $0 == "E" }
        let expected: DatabaseValue =
            literal.first.map({ $0 == "-" || $0.isNumber }) == true && !isFraction
            ? Int64(literal).map(DatabaseValue.integer) ?? .null : .null
        #expect(read == expected)
    }
}
