// ExistingValueTests: decimal and date forms other tools store, parsed strictly and written in the declared form.
import Foundation
import Testing

@testable import Strata

@Suite("Values other tools store")
struct ExistingValueTests {
    @Test("a double reads as the shortest decimal that round-trips it")
    func decimalFromDouble() throws {
        #expect(try Decimal(databaseValue: .double(0.99)) == Decimal(string: "0.99"))
        #expect(try Decimal(databaseValue: .double(19.99)) == Decimal(string: "19.99"))
        #expect(try Decimal(databaseValue: .double(-0.0)) == 0)
        #expect(try Decimal(databaseValue: .double(1e-7)) == Decimal(string: "0.0000001"))
        #expect(try Decimal(databaseValue: .double(1e16)) == Decimal(string: "10000000000000000"))
        #expect(throws: ValueConversionError.self) { try Decimal(databaseValue: .double(.nan)) }
        #expect(throws: ValueConversionError.self) { try Decimal(databaseValue: .double(.infinity)) }
    }

    @Test("decimal text is parsed strictly: '0,99', '0.99 EUR', ' 1', '.5' are refused")
    func strictDecimalText() throws {
        for bad in ["0,99", "0.99 EUR", " 1", "1 ", ".5", "5.", "", "-", "1e", "1e+", "0x1A", "1_000", "NaN", "٣"] {
            #expect(throws: ValueConversionError.self, "\(bad)") { try Decimal(databaseValue: .text(bad)) }
        }
        #expect(try Decimal(databaseValue: .text("-12.50")) == Decimal(string: "-12.5"))
        #expect(try Decimal(databaseValue: .text("+3")) == 3)
        #expect(try Decimal(databaseValue: .text("2.5E+3")) == 2500)
    }

    @Test("date text with an offset reads as the instant it names")
    func offsets() {
        let ten = Date(timeIntervalSince1970: 1_230_804_000)
        #expect(DateText.parse("2009-01-01T12:00:00+02:00") == ten)
        #expect(DateText.parse("2009-01-01 04:30:00-0530") == ten)
        #expect(DateText.parse("2009-01-01T11:00+01") == ten)
        #expect(DateText.parse("2009-01-01T10:00:00.5-00:00") == ten.addingTimeInterval(0.5))
        #expect(DateText.parse("2009-01-01T10:00:00+2:00") == nil)
        #expect(DateText.parse("2009-01-01T10:00:00+02:60") == nil)
        #expect(DateText.parse("2009-01-01+02:00") == nil)
    }

    @Test("each date format writes its form and reads it back")
    func formats() {
        let d = Date(timeIntervalSince1970: 1_230_804_000.25)
        #expect(DateFormat.iso8601.stored(.date(d)) == .text("2009-01-01T10:00:00Z"))
        #expect(DateFormat.iso8601WithFraction.stored(.date(d)) == .text("2009-01-01T10:00:00.250Z"))
        #expect(DateFormat.sqlDateTime.stored(.date(d)) == .text("2009-01-01 10:00:00"))
        #expect(DateFormat.unixSeconds.stored(.date(d)) == .integer(1_230_804_000))
        #expect(DateFormat.unixMilliseconds.stored(.date(d)) == .integer(1_230_804_000_250))
        #expect(DateFormat.strata.stored(.date(d)) == .date(d))
        let before1970 = Date(timeIntervalSince1970: -1.5)
        #expect(DateFormat.unixSeconds.stored(.date(before1970)) == .integer(-2))
        #expect(DateFormat.unixMilliseconds.stored(.date(before1970)) == .integer(-1500))
        #expect(DateFormat.unixMilliseconds.read(.integer(-1500)) == .date(before1970))
        #expect(DateFormat.unixMilliseconds.read(.integer(1_230_804_000_250)) == .date(d))
        #expect(DateFormat.julianDay.read(DateFormat.julianDay.stored(.date(d))) == .date(d))
        #expect(DateFormat.julianDay.read(.double(2_440_587.5)) == .date(Date(timeIntervalSince1970: 0)))
        #expect(DateFormat.sqlDateTime.read(.text("soon")) == .text("soon"))
        #expect(DateFormat.unixSeconds.stored(.null) == .null)
    }

    @Test("a condition on a formatted column binds its dates in the column's form")
    func conditionsBindTheForm() {
        let schema = TableSchema(
            name: "t",
            columns: [TableColumn(name: "d", type: .integer, isNullable: false)].map { c in
                var c = c
                c.dateFormat = .unixMilliseconds
                return c
            })
        let d = Date(timeIntervalSince1970: 1.5)
        let e = schema.storingDates(
            .between(.column("d"), .value(.date(d)), .value(.date(d.addingTimeInterval(1)))), column: "d")
        #expect(e == .between(.column("d"), .value(.integer(1500)), .value(.integer(2500))))
        #expect(schema.stored(.date(d), column: "d") == .integer(1500))
        #expect(schema.stored(.date(d), column: "other") == .date(d))
    }
}
