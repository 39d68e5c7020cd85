// ValueCheckTests: the one pass that refuses NUL text, unrepresentable dates and failed JSON encodings, and DDL defaults.
import Foundation
import Testing

@testable import Strata

struct Gauge: Codable, DatabaseValueConvertible {
    var level: Double
}

@Suite("Value checks and DDL defaults")
struct ValueCheckTests {
    @Test(
        "dates outside 0001…9999 UTC are not representable, and formatting them does not trap",
        arguments: [
            Double.nan, .infinity, -.infinity, 1e13, -1e13, 9.3e15, -9.3e15, .greatestFiniteMagnitude,
            253_402_300_800, -62_135_596_801,
        ])
    func unrepresentableDates(_ seconds: Double) {
        let d = Date(timeIntervalSince1970: seconds)
        #expect(!DateText.isRepresentable(d))
        #expect(DateText.format(d).hasPrefix("invalid date"))
        #expect(DatabaseValue.date(d).summary.contains("invalid date"))
        #expect(!ValueCheck.isStorable(.date(d)))
        #expect(ValueCheck.reason(.date(d)).contains("0001-01-01"))
    }

    @Test("the ends of the range are representable and format as the year 0001 and 9999")
    func rangeEnds() {
        let low = Date(timeIntervalSince1970: -62_135_596_800)
        let high = Date(timeIntervalSince1970: 253_402_300_799.5)
        #expect(DateText.isRepresentable(low) && DateText.isRepresentable(high))
        #expect(DateText.format(low) == "0001-01-01 00:00:00.000000")
        #expect(DateText.format(high) == "9999-12-31 23:59:59.500000")
        #expect(DateText.parse(DateText.format(high)) == high)
    }

    @Test("NUL is found in small, large and non-ASCII text; other text passes")
    func nul() {
        #expect(ValueCheck.containsNUL("\0"))
        #expect(ValueCheck.containsNUL("ab\0"))
        #expect(ValueCheck.containsNUL(String(repeating: "é", count: 1000) + "\0"))
        #expect(!ValueCheck.containsNUL(""))
        #expect(!ValueCheck.containsNUL(String(repeating: "x", count: 1000) + "\u{FFFF}\u{10FFFF}"))
        #expect(!ValueCheck.isStorable(.text("a\0")))
        #expect(ValueCheck.isStorable(.text("a0")))
        #expect(ValueCheck.isStorable(.blob(Data([0, 0]))))
    }

    @Test("JSON holding NUL, raw or escaped, is refused; an escaped backslash before u0000 is not NUL")
    func jsonNUL() {
        #expect(!ValueCheck.isStorable(["a\0b"].databaseValue))
        #expect(!ValueCheck.isStorable(.json(#"["\u0000"]"#)))
        #expect(ValueCheck.isStorable(.json(#"["\\u0000"]"#)))
        #expect(!ValueCheck.isStorable(.json(#"["\\\u0000"]"#)))
        #expect(ValueCheck.isStorable(.json(#"["\u0001", "\"", "\\"]"#)))
        #expect(ValueCheck.isStorable(.json(#"["\u000"#)))
    }

    @Test("a Codable whose encoding fails is refused with its type and path, not stored as NULL")
    func codableFailure() {
        for level in [Double.nan, .infinity] {
            let value = Optional(Gauge(level: level)).databaseValue
            #expect(value != .null)
            #expect(!ValueCheck.isStorable(value))
            let reason = ValueCheck.reason(value)
            #expect(reason.contains("Gauge") && reason.contains("level"), "\(reason)")
        }
        #expect(Optional(Gauge(level: 1)).databaseValue == .json(#"{"level":1}"#))
        #expect(Gauge?.none.databaseValue == .null)
    }

    @Test("a statement's refused value names its table and column")
    func places() throws {
        func place(_ s: Statement) -> (String?, String?)? {
            do {
                try ValueCheck.check(s)
                return nil
            } catch {
                guard case .invalidValue(let t, let c, _) = error else { return nil }
                return (t, c)
            }
        }
        let nul = DatabaseValue.text("\0")
        let ins = Insert(table: "t", columns: ["a", "b"], rows: [[.integer(1), .text("x")], [.integer(2), nul]])
        #expect(place(.insert(ins)).map { [$0.0, $0.1] } == ["t", "b"])
        let upd = Update(
            table: "t", assignments: [Assignment("a", .integer(1))], filter: .compare(.equal, .column("c"), .value(nul))
        )
        #expect(place(.update(upd)).map { [$0.0, $0.1] } == ["t", "c"])
        let sel = Select(
            table: "t", selection: .columns(["a"]),
            filter: .and([
                .inList(.column("d"), [.text("ok")]),
                .not(.like(.column("e", table: "j"), "%\0")),
            ]))
        #expect(place(.select(sel)).map { [$0.0, $0.1] } == ["j", "e"])
        let raw = Delete(table: "t", filter: SQLExpression(.unsafeRaw("a = ? OR b = ?", [.integer(1), nul])))
        #expect(place(.delete(raw)).map { [$0.0, $0.1] } == [nil, "parameter 2"])
        let bad = TableColumn(
            name: "when", type: .date, isNullable: false, schemaDefault: .date(Date(timeIntervalSince1970: .nan)))
        #expect(place(.addColumn(table: "t", bad)).map { [$0.0, $0.1] } == ["t", "when"])
        #expect(place(.insert(Insert(table: "t", columns: ["a"], rows: [[.text("fine")]]))) == nil)
    }

    @Test("template binds are checked, and the statement is built only to name the column")
    func templateBinds() throws {
        var built = 0
        let statement = {
            built += 1
            return Statement.insert(Insert(table: "t", columns: ["a", "b"], rows: [[.integer(1), .text("\0")]]))
        }
        try ValueCheck.checkBinds([.integer(1), .text("ok")], statement: statement)
        #expect(built == 0)
        #expect(throws: StrataError.self) {
            try ValueCheck.checkBinds([.integer(1), .text("\0")], statement: statement)
        }
        #expect(built == 1)
        do {
            try ValueCheck.checkBinds([.integer(1), .text("\0")], statement: statement)
        } catch let StrataError.invalidValue(t, c, _) {
            #expect(t == "t" && c == "b")
        }
    }

    @Test("a text default doubles each quote scalar, a quote before a combining mark included")
    func combiningQuoteDefault() throws {
        let value = "'\u{301} it's"
        #expect(value.filter { $0 == "'" }.count == 1, "Swift sees one quote Character, the other is '\u{301}")
        let schema = TableSchema(
            name: "t",
            columns: [
                TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                TableColumn(name: "m", type: .text, isNullable: false, schemaDefault: .text(value)),
            ])
        let sql = try SQLRenderer.render(.createTable(schema), dialect: OddDialect()).sql
        #expect(
            sql == "CREATE TABLE IF NOT EXISTS `t` (`id` SERIAL KEY, `m` T_TEXT DEFAULT '''\u{301} it''s' NOT NULL)")
        #expect(SQLRenderer(dialect: OddDialect()).quotedLiteral("''\u{301}'") == "'''''\u{301}'''")
    }

    @Test("defaults that no driver stores alike are invalidValue naming table and column")
    func badDefaults() {
        for v in [DatabaseValue.text("a\0"), .date(Date(timeIntervalSince1970: .infinity)), .json("\0broken")] {
            let column = TableColumn(name: "c", type: .text, isNullable: true, schemaDefault: v)
            let schema = TableSchema(name: "t", columns: [column])
            #expect {
                try SQLRenderer.render(.createTable(schema), dialect: OddDialect())
            } throws: { error in
                guard case StrataError.invalidValue("t", "c", let reason) = error else { return false }
                return reason.hasPrefix("default: ")
            }
            #expect {
                try SQLRenderer.render(.addColumn(table: "t", column), dialect: OddDialect())
            } throws: { error in
                if case StrataError.invalidValue("t", "c", _) = error { return true }
                return false
            }
        }
    }
}
