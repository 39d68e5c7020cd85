// PostgresRow: reads one row of a text-format PGresult, decoding each value by its column's type OID.
import CPostgres
import Foundation
import Strata

/// The current row of a result: a single-row result while streaming (``use(_:)`` moves to the
/// next one), or a row of a buffered result (``row`` moves along).
final class PostgresRow: RowReader {
    private var result: OpaquePointer
    /// How many columns the result has (their types are read from it: no array to allocate per row reader).
    private(set) var columnCount: Int
    var row: Int32 = 0

    init(_ result: OpaquePointer) {
        self.result = result
        columnCount = Int(PQnfields(result))
    }

    /// Reads the rows of another statement's result from its first (a connection keeps one reader for its
    /// statements, rather than allocating one per statement).
    func reuse(for result: OpaquePointer) {
        self.result = result
        columnCount = Int(PQnfields(result))
        row = 0
    }

    /// Moves to the one row of the next single-row result of the same query.
    func use(_ next: OpaquePointer) {
        result = next
        row = 0
    }

    /// The bytes of a non-NULL value (NUL-terminated by libpq), or nil for NULL or no such column.
    ///
    /// libpq gives a NULL as an empty value, so only an empty value is asked whether it is NULL (`PQgetisnull`, a
    /// call a column a row less).
    @inline(__always)
    private func bytes(_ index: Int) -> (UnsafeMutablePointer<CChar>, Int)? {
        guard index >= 0, index < columnCount else { return nil }
        let column = Int32(index)
        guard let start = PQgetvalue(result, row, column) else { return nil }
        let count = Int(PQgetlength(result, row, column))
        if count == 0 && PQgetisnull(result, row, column) != 0 { return nil }
        return (start, count)
    }

    func int64(at index: Int) -> Int64? {
        guard index >= 0, index < columnCount else { return nil }
        switch PQftype(result, Int32(index)) {
        case PostgresOID.int8, PostgresOID.int4, PostgresOID.int2, PostgresOID.oid:
            guard let (start, count) = bytes(index) else { return nil }
            return start.withMemoryRebound(to: UInt8.self, capacity: count) { p in
                PostgresText.integer(UnsafeBufferPointer(start: p, count: count))
            }
        default: return nil
        }
    }

    func double(at index: Int) -> Double? {
        guard index >= 0, index < columnCount else { return nil }
        switch PQftype(result, Int32(index)) {
        case PostgresOID.float8, PostgresOID.float4:
            guard let (start, count) = bytes(index) else { return nil }
            return PostgresText.double(start, count: count)
        default: return nil
        }
    }

    func string(at index: Int) -> String? {
        guard index >= 0, index < columnCount, PostgresText.decodesAsText(PQftype(result, Int32(index))),
            let (start, count) = bytes(index)
        else { return nil }
        return start.withMemoryRebound(to: UInt8.self, capacity: count) { p in
            PostgresText.string(UnsafeBufferPointer(start: p, count: count))
        }
    }

    func value(at index: Int) -> DatabaseValue {
        guard index >= 0, index < columnCount else { return .null }
        guard let (start, count) = bytes(index) else { return .null }
        return start.withMemoryRebound(to: UInt8.self, capacity: count) { p in
            PostgresText.decode(UnsafeBufferPointer(start: p, count: count), type: PQftype(result, Int32(index)))
        }
    }
}

/// PostgreSQL's text output forms, read back into values.
enum PostgresText {
    private static let posix = Locale(identifier: "en_US_POSIX")

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, type: Oid) -> DatabaseValue {
        switch type {
        case PostgresOID.bool:
            return .bool(bytes.first == UInt8(ascii: "t"))
        case PostgresOID.int8, PostgresOID.int4, PostgresOID.int2, PostgresOID.oid:
            if let i = integer(bytes) { return .integer(i) }
        case PostgresOID.float8, PostgresOID.float4:
            if let d = double(string(bytes)) { return .double(d) }
        case PostgresOID.numeric:
            let s = string(bytes)
            // Past Decimal's 38 significant digits (an exact sum, say): NaN, which an aggregate reads as an error.
            if s == "NaN" || DecimalDigits.count(s) > DecimalDigits.limit { return .decimal(.nan) }
            if let d = Decimal(string: s, locale: posix) { return .decimal(d) }
        case PostgresOID.bytea:
            if let data = hex(bytes) { return .blob(data) }
        case PostgresOID.timestamptz, PostgresOID.timestamp, PostgresOID.date:
            if let d = date(string(bytes)) { return .date(d) }
        case PostgresOID.uuid:
            if let u = UUID(uuidString: string(bytes)) { return .uuid(u) }
        case PostgresOID.json, PostgresOID.jsonb:
            return .json(string(bytes))
        default:
            break
        }
        return .text(string(bytes))
    }

    @inline(__always)
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// A decimal integer, without going through String: nil for anything but an optional `-` and digits within
    /// Int64's range.
    ///
    /// Up to 19 digits fit a UInt64 (below 10^19), so the digits are summed without a check of overflow per digit
    /// and the magnitude is checked once against the sign's bound (a check per digit cost about 7 instructions a
    /// digit: 130 for a number of 19).
    @inline(__always)
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        let negative = bytes[0] == UInt8(ascii: "-")
        var i = negative ? 1 : 0
        guard i < bytes.count else { return nil }
        // Leading zeros (which PostgreSQL never writes) count for nothing.
        while i < bytes.count - 1 && bytes[i] == UInt8(ascii: "0") { i += 1 }
        guard bytes.count - i <= 19 else { return nil }
        var magnitude: UInt64 = 0
        while i < bytes.count {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit <= 9 else { return nil }
            magnitude = magnitude &* 10 &+ UInt64(digit)
            i += 1
        }
        if negative {
            guard magnitude <= Int64.min.magnitude else { return nil }
            return Int64(truncatingIfNeeded: 0 &- magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// Whether a value of this type decodes as plain `.text` (not one of the types read specially).
    static func decodesAsText(_ type: Oid) -> Bool {
        switch type {
        case PostgresOID.bool, PostgresOID.int8, PostgresOID.int4, PostgresOID.int2, PostgresOID.oid,
            PostgresOID.float8, PostgresOID.float4, PostgresOID.numeric, PostgresOID.bytea, PostgresOID.timestamptz,
            PostgresOID.timestamp, PostgresOID.date, PostgresOID.uuid, PostgresOID.json, PostgresOID.jsonb:
            return false
        default:
            return true
        }
    }

    /// A float8 or float4 from its text output (`1.5`, `-2e-05`, `Infinity`, `NaN`), parsed in place by
    /// `strtod`. Should the program have set a locale whose decimal separator is not a point, `strtod`
    /// stops early; that is detected, and the value is parsed through Swift instead.
    static func double(_ start: UnsafeMutablePointer<CChar>, count: Int) -> Double? {
        var end: UnsafeMutablePointer<CChar>?
        let value = strtod(start, &end)
        // strtod also skips leading white space, which the general path (and PostgreSQL's output) never has.
        // -0.0 reads as 0.0, as SQLite stores it and the memory driver writes it (0.0 * -1 computed here is -0.0).
        if count > 0 && end == start + count && start.pointee > 32 { return value == 0 ? 0 : value }
        return start.withMemoryRebound(to: UInt8.self, capacity: count) { p in
            double(string(UnsafeBufferPointer(start: p, count: count)))
        }
    }

    static func double(_ s: String) -> Double? {
        switch s {
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case "NaN": return .nan
        default: return Double(s).map { $0 == 0 ? 0 : $0 }  // -0.0 reads as 0.0 (see above)
        }
    }

    /// bytea's hex output, `\x0aff…`.
    static func hex(_ bytes: UnsafeBufferPointer<UInt8>) -> Data? {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0
        else {
            return nil
        }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count - 2) / 2)
        var i = 2
        while i < bytes.count {
            guard let hi = nibble(bytes[i]), let lo = nibble(bytes[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return Data(out)
    }

    /// `2023-11-14 22:13:20.123456+00` (any `±HH[:MM[:SS]]` offset), a zone-less timestamp, or a date.
    static func date(_ s: String) -> Date? {
        var text = Substring(s)
        var offset = 0
        let utf8 = Array(s.utf8)
        // The zone starts at the last + or - after the time of day (position 19 onwards).
        if utf8.count > 19,
            let sign = utf8[19...].lastIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") })
        {
            let parts = utf8[(sign + 1)...].split(separator: UInt8(ascii: ":")).map {
                String(decoding: $0, as: UTF8.self)
            }
            let numbers = parts.compactMap { Int($0) }
            // Each part is at most two digits (`+05:30:15`), so a hostile zone cannot overflow the sum below.
            guard numbers.count == parts.count, (1...3).contains(numbers.count),
                numbers.allSatisfy({ (0...99).contains($0) })
            else { return nil }
            let magnitude =
                numbers[0] * 3600 + (numbers.count > 1 ? numbers[1] * 60 : 0) + (numbers.count > 2 ? numbers[2] : 0)
            offset = utf8[sign] == UInt8(ascii: "-") ? -magnitude : magnitude
            text = Substring(String(decoding: utf8[..<sign], as: UTF8.self))
        }
        guard let local = DateText.parse(String(text)) else { return nil }
        return offset == 0 ? local : local.addingTimeInterval(TimeInterval(-offset))
    }
}
