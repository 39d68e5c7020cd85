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

    @Test("NULL and an empty value stay apart in every reading, though libpq gives NULL as an empty value")
    func nullAndEmpty() {
        // text, varchar, int8, int4, float8, bool, numeric, bytea, json, jsonb, uuid, timestamptz
        let types: [UInt32] = [25, 1043, 20, 23, 701, 16, 1700, 17, 114, 3802, 2950, 1184]
        for type in types {
            let null = _PostgresFuzzing.withRow(types: [type], values: [nil]) { row in
                (row.value(at: 0), row.int64(at: 0), row.double(at: 0), row.string(at: 0))
            }
            #expect(null?.0 == .null, "\(type)")
            #expect(null?.1 == nil && null?.2 == nil && null?.3 == nil, "\(type)")
        }
        for type: UInt32 in [25, 1043] {
            let empty = _PostgresFuzzing.withRow(types: [type], values: [[]]) { row in
                (row.value(at: 0), row.string(at: 0))
            }
            #expect(empty?.0 == .text(""), "\(type)")
            #expect(empty?.1 == "", "\(type)")
        }
        // Numbers are never empty text: an empty value that is not NULL takes the general path, as it always did.
        let emptyNumber = _PostgresFuzzing.withRow(types: [20, 701], values: [[], []]) { row in
            (row.int64(at: 0), row.double(at: 1), row.value(at: 0), row.value(at: 1))
        }
        #expect(emptyNumber?.0 == nil && emptyNumber?.1 == nil)
        #expect(emptyNumber?.2 != .null && emptyNumber?.3 != .null)
        // A row of both, side by side: each column read as itself.
        let mixed = _PostgresFuzzing.withRow(types: [25, 25, 20, 20], values: [[], nil, Array("7".utf8), nil]) {
            row in (0..<4).map { row.value(at: $0) }
        }
        #expect(mixed == [.text(""), .null, .integer(7), .null])
    }

    @Test("an integer's text is read as an optional minus and digits within Int64, on 20,000 generated texts")
    func integers() {
        var state: UInt64 = 0x5EED
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var texts = [
            "0", "-0", "-", "", "+5", "00", "007", "-007", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "0000000000000000000009223372036854775807",
            "99999999999999999999", "18446744073709551615", "18446744073709551616", "1-2", "12a", " 1", "1 ",
        ]
        let alphabet = Array("0123456789-+ a".utf8)
        for _ in 0..<20_000 {
            let length = Int(next() % 24)
            var bytes = (0..<length).map { _ in next() % 10 < 9 ? UInt8(48 + next() % 10) : alphabet[Int(next() % 14)] }
            if next() % 4 == 0, !bytes.isEmpty { bytes[0] = UInt8(ascii: "-") }
            texts.append(String(decoding: bytes, as: UTF8.self))
        }
        for text in texts {
            // The reference: an optional minus, then only digits, and the value within Int64.
            let body = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
            let isDecimal = !body.isEmpty && body.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
            let expected = isDecimal ? Int64(text) : nil
            let read = _PostgresFuzzing.withRow(types: [20], values: [Array(text.utf8)]) { row in
                (row.int64(at: 0), row.value(at: 0))
            }
            #expect(read?.0 == expected, "\(text)")
            #expect(read?.1 == (expected.map { .integer($0) } ?? .text(text)), "\(text)")
        }
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
