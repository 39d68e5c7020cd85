// PostgresHostileValueTests: text a server (or a proxy) could send that the value parsers must survive.
import Foundation
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL hostile values")
struct PostgresHostileValueTests {
    /// Reads column 0 of a one-row result built on the client (no server needed).
    private func value(_ text: String, type: UInt32) -> DatabaseValue? {
        _PostgresFuzzing.withRow(types: [type], values: [Array(text.utf8)]) { $0.value(at: 0) }
    }

    @Test(
        "a timestamptz whose zone offset overflows is text, not a trap",
        arguments: [
            "2023-11-14 22:13:20+9999999999999999", "2023-11-14 22:13:20-00:9999999999999999",
            "2023-11-14 22:13:20+00:00:9223372036854775807",
        ])
    func hugeZoneOffset(_ text: String) {
        #expect(value(text, type: 1184) == .text(text))
    }

    @Test("an ordinary zone offset still shifts the instant")
    func ordinaryZoneOffset() {
        let expected = Date(timeIntervalSince1970: 1_700_000_000 - 5 * 3600 - 30 * 60)
        #expect(value("2023-11-14 22:13:20+05:30", type: 1184) == .date(expected))
    }

    @Test("a float8 with leading white space reads the same through double(at:) and value(at:)")
    func floatWithLeadingSpace() {
        let read = _PostgresFuzzing.withRow(types: [701], values: [Array(" 1.5".utf8)]) { row in
            (row.double(at: 0), row.value(at: 0))
        }
        #expect(read?.0 == nil)
        #expect(read?.1 == .text(" 1.5"))
        #expect(value("1.5", type: 701) == .double(1.5))
    }
}
