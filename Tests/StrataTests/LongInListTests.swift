// LongInListTests: a long IN list's array text, type check and value check, against the plain readings they replace.
import Foundation
import Testing

@testable import Strata

@Suite("Long IN lists: the array's digits, and the checks read each value in place")
struct LongInListTests {
    /// Every power of ten and its neighbours, zero, and the ends of Int64, both signs.
    static let edges: [Int64] = {
        var out: [Int64] = [0, 1, -1, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
        var p: Int64 = 1
        for _ in 0...18 {
            out += [p - 1, p, p + 1, -(p - 1), -p, -(p + 1)]
            if p <= Int64.max / 10 { p *= 10 }
        }
        return out
    }()

    @Test("decimalLength is the length of String(i) at every edge and on 20,000 generated integers")
    func decimalLength() {
        var random = SplitMix(seed: 0x1A_2B)
        var values = Self.edges
        for _ in 0..<20_000 {
            let bits = random.next()
            // Every magnitude alike: a random value shifted right by 0 to 63 places, either sign.
            let shifted = Int64(bitPattern: bits >> (random.next() % 64))
            values.append(bits & 1 == 0 ? shifted : shifted &* -1)
        }
        for v in values {
            #expect(ArrayInList.decimalLength(v) == String(v).utf8.count, "\(v)")
        }
    }

    @Test("integerArray spells each integer and NULL as String(i) and the form's null, between the form's brackets")
    func integerArray() {
        var random = SplitMix(seed: 0x3C_4D)
        for round in 0..<200 {
            let count = round == 0 ? 0 : Int(random.next() % 300) + 1
            var values: [DatabaseValue] = []
            for k in 0..<count {
                switch random.next() % 5 {
                case 0: values.append(.null)
                case 1: values.append(.integer(Self.edges[(k &+ round) % Self.edges.count]))
                default: values.append(.integer(Int64(bitPattern: random.next()) >> (random.next() % 64)))
                }
            }
            let spelled = values.map { v -> String in
                if case .integer(let i) = v { return String(i) }
                return "NULL"
            }
            let expected = "{" + spelled.joined(separator: ",") + "}"
            #expect(
                ArrayInList.integerArray(values, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), null: "NULL")
                    == expected)
        }
        #expect(
            ArrayInList.integerArray(
                [.integer(1), .text("2")], open: UInt8(ascii: "["), close: UInt8(ascii: "]"), null: "null") == nil)
        #expect(ArrayInList.kind(of: [.null, .integer(1), .integer(-2)]) == .integer)
        #expect(ArrayInList.kind(of: [.integer(1), .double(2)]) == nil)
        #expect(ArrayInList.kind(of: [.double(1), .double(.nan)]) == nil)
        #expect(ArrayInList.kind(of: [.null]) == nil)
    }

    @Test("one pass finds the kind: integers and NULLs first, then another kind, read as the whole list")
    func kindAfterIntegers() {
        // The pass reads integers and NULLs in a loop of its own and goes on in the general one at the first other
        // value: what that value makes of the list must be what a list of it alone would.
        #expect(ArrayInList.kind(of: [.null, .null, .text("a")]) == .text)
        #expect(ArrayInList.kind(of: [.integer(1), .null, .text("a")]) == nil)
        #expect(ArrayInList.kind(of: [.null, .integer(1), .double(2)]) == nil)
        #expect(ArrayInList.kind(of: [.integer(1), .integer(2), .blob(Data([1]))]) == nil)
        #expect(ArrayInList.kind(of: [.null, .double(1), .integer(2)]) == nil)
        #expect(ArrayInList.kind(of: [.integer(1), .null, .integer(-2), .null]) == .integer)
        #expect(ArrayInList.kind(of: []) == nil)
        // Lists of NULLs alone, and lists that are not integers after the first values, take the general spelling.
        #expect(ArrayInList.postgresArray([.null, .null]) == "{NULL,NULL}")
        #expect(ArrayInList.jsonArray([.null]) == "[null]")
        #expect(ArrayInList.jsonArray([.integer(12), .null, .text("x")]) == #"[12,null,"x"]"#)
        #expect(ArrayInList.postgresArray([.null, .integer(-7), .integer(30)]) == "{NULL,-7,30}")
        #expect(ArrayInList.jsonArray([.integer(Int64.min), .integer(Int64.max)]) == "[\(Int64.min),\(Int64.max)]")
    }

    @Test("a long list is refused by the first value of a type its column does not compare with, wherever it is")
    func typeCheck() throws {
        let schemas = StatementTypeCheckTests.schemas()
        let integers = (0..<5_000).map { DatabaseValue.integer(Int64($0)) }
        for position in [0, 1, 2_500, 4_999, 5_000] {
            var values = integers
            values.insert(.text("x"), at: position)
            StatementTypeCheckTests.expectMismatch(
                StatementTypeCheckTests.count(.inList(.column("n"), values)), schemas, "item", "n")
        }
        // Numbers compare with numbers; NULL with everything.
        let mixed = integers + [.double(2.5), .null, .decimal(Decimal(7))]
        #expect(throws: Never.self) {
            try StatementCheck.check(StatementTypeCheckTests.count(.inList(.column("n"), mixed)), schemas: schemas)
        }
        let texts = (0..<300).map { DatabaseValue.text("t\($0)") } + [.null, .integer(3)]
        StatementTypeCheckTests.expectMismatch(
            StatementTypeCheckTests.count(.inList(.column("s"), texts, negated: true)), schemas, "item", "s")
    }

    @Test("a long list holding one text with NUL is refused, naming its column; the list without it passes")
    func valueCheck() throws {
        var values = (0..<400).map { DatabaseValue.text("v\($0)") }
        let select = { (values: [DatabaseValue]) in
            Statement.select(Select(table: "t", selection: .columns(["a"]), filter: .inList(.column("d"), values)))
        }
        #expect(throws: Never.self) { try ValueCheck.check(select(values)) }
        values[317] = .text("a\0b")
        do {
            try ValueCheck.check(select(values))
            Issue.record("a NUL in an IN list passed")
        } catch {
            guard case .invalidValue("t", "d", let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(reason.contains("NUL"))
        }
        #expect(ValueCheck.firstUnstorable(values) == .text("a\0b"))
        #expect(ValueCheck.firstUnstorable([.integer(1), .null]) == nil)
    }
}
