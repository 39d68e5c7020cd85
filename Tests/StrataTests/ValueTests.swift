// ValueTests: URL parsing, date text, and value conversions that must fail loudly.
import Foundation
import Testing

@testable import Strata

@Suite("Values and URLs")
struct ValueTests {
    @Test("date text is fixed-width UTC with microseconds and parses back")
    func dateText() throws {
        let d = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let text = DateText.format(d)
        #expect(text == "2023-11-14 22:13:20.123456")
        let back = try #require(DateText.parse(text))
        #expect(abs(back.timeIntervalSince1970 - d.timeIntervalSince1970) < 1e-6)
        #expect(DateText.parse("2023-11-14T22:13:20Z") == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(DateText.parse("2023-11-14") == Date(timeIntervalSince1970: 1_699_920_000))
        #expect(DateText.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31 23:59:59.500000")
        #expect(DateText.parse("2023-13-01") == nil)
        #expect(DateText.parse("yesterday") == nil)
    }

    @Test("integers out of range and strange booleans are conversion errors")
    func conversions() {
        #expect(throws: ValueConversionError.self) { try Int8(databaseValue: .integer(300)) }
        #expect(throws: ValueConversionError.self) { try UInt8(databaseValue: .integer(-1)) }
        #expect(throws: ValueConversionError.self) { try Bool(databaseValue: .integer(2)) }
        #expect(throws: ValueConversionError.self) { try String(databaseValue: .null) }
        #expect((try? Int?(databaseValue: .null)) == .some(nil))
        #expect((try? Decimal(databaseValue: .text("12345678901234567.89")))?.description == "12345678901234567.89")
    }

    @Test("Codable values encode as JSON with sorted keys")
    func json() throws {
        let value = ["b": 1, "a": 2].databaseValue
        #expect(value == .json(#"{"a":2,"b":1}"#))
        #expect(try [String: Int](databaseValue: value) == ["a": 2, "b": 1])
    }

    @Test(
        "database URLs",
        arguments: [
            ("sqlite:app.sqlite", "sqlite", "app.sqlite"),
            ("sqlite:///var/db/app.sqlite", "sqlite", "/var/db/app.sqlite"),
            ("sqlite://rel/app.sqlite", "sqlite", "rel/app.sqlite"),
            ("SQLITE::memory:", "sqlite", ":memory:"),
            ("memory:", "memory", ""),
            ("memory:shared", "memory", "shared"),
        ])
    func urls(_ input: String, _ scheme: String, _ path: String) throws {
        let url = try DatabaseURL(input, drivers: urlDrivers)
        #expect(url.scheme == scheme)
        #expect(url.path == path)
    }

    @Test("malformed URLs name the problem and never show the password")
    func badURLs() {
        #expect(throws: StrataError.unknownScheme("oracle")) { try DatabaseURL("oracle://x", drivers: urlDrivers) }
        do {
            _ = try DatabaseURL("postgres://me:hunter2@host:notaport/db", drivers: urlDrivers)
            Issue.record("accepted a bad port")
        } catch {
            #expect("\(error)".contains("port"))
            #expect(!"\(error)".contains("hunter2"))
        }
    }
}
