// PostgresCopyField: encodes one value in PostgreSQL's binary COPY format for its column's type, with typed errors.
import CPostgres
import Foundation
import Strata

/// How one column's values are written in a binary COPY: chosen once from the column's type OID.
enum PostgresCopyField {
    case int2, int4, int8, float4, float8, bool, text, bytea, uuid, json, jsonb, timestamp, date, numeric

    /// The encoding for a column of type `oid`, or nil when COPY's binary format is not written for it here
    /// (the caller inserts instead).
    init?(oid: Oid) {
        switch oid {
        case PostgresOID.int2: self = .int2
        case PostgresOID.int4: self = .int4
        case PostgresOID.int8: self = .int8
        case PostgresOID.float4: self = .float4
        case PostgresOID.float8: self = .float8
        case PostgresOID.bool: self = .bool
        case PostgresOID.text, PostgresOID.varchar: self = .text
        case PostgresOID.bytea: self = .bytea
        case PostgresOID.uuid: self = .uuid
        case PostgresOID.json: self = .json
        case PostgresOID.jsonb: self = .jsonb
        case PostgresOID.timestamptz, PostgresOID.timestamp: self = .timestamp
        case PostgresOID.date: self = .date
        case PostgresOID.numeric: self = .numeric
        default: return nil
        }
    }

    /// Microseconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01.
    private static let epochMicros: Int64 = 946_684_800_000_000

    /// Appends `value` (length and bytes, or -1 for NULL) to `out`; `reason` is nil on success, else why the
    /// column cannot take it (never the value itself).
    func append(_ value: DatabaseValue, to out: inout CopyBuffer) -> String? {
        switch (self, value) {
        case (_, .null): out.put32(UInt32(bitPattern: -1))
        case (.int8, .integer(let v)): out.field64(UInt64(bitPattern: v))
        case (.int4, .integer(let v)):
            guard let n = Int32(exactly: v) else { return "out of range for integer" }
            out.put32(4)
            out.put32(UInt32(bitPattern: n))
        case (.int2, .integer(let v)):
            guard let n = Int16(exactly: v) else { return "out of range for smallint" }
            out.put32(2)
            out.put16(UInt16(bitPattern: n))
        case (.float8, .double(let d)): out.field64((d == 0 ? 0 : d).bitPattern)
        case (.float4, .double(let d)):
            let f = Float(d == 0 ? 0 : d)
            guard f.isFinite || !d.isFinite else { return "out of range for real" }
            out.put32(4)
            out.put32(f.bitPattern)
        case (.bool, .bool(let b)):
            out.put32(1)
            out.bytes.append(b ? 1 : 0)
        case (.text, .text(let s)), (.json, .json(let s)):
            guard !s.utf8.contains(0) else { return "PostgreSQL text cannot contain NUL characters" }
            out.text(s, prefix: nil)
        case (.jsonb, .json(let s)):
            guard !s.utf8.contains(0) else { return "PostgreSQL JSON cannot contain NUL characters" }
            out.text(s, prefix: 1)  // jsonb's binary format: a version byte, then the text
        case (.bytea, .blob(let data)):
            out.put32(UInt32(data.count))
            out.bytes.append(contentsOf: data)
        case (.uuid, .uuid(let u)):
            out.put32(16)
            withUnsafeBytes(of: u.uuid) { out.bytes.append(contentsOf: $0) }
        case (.timestamp, .date(let d)), (.date, .date(let d)):
            guard DateText.isRepresentable(d) else { return "the date is outside the years 1…9999" }
            // The microsecond the INSERT path's text names (DateText.format rounds the same way).
            let micros = Int64((d.timeIntervalSince1970 * 1_000_000).rounded()) - Self.epochMicros
            if self == .timestamp {
                out.field64(UInt64(bitPattern: micros))
            } else {
                let day = micros >= 0 ? micros / 86_400_000_000 : (micros - 86_399_999_999) / 86_400_000_000
                out.put32(4)
                out.put32(UInt32(bitPattern: Int32(truncatingIfNeeded: day)))
            }
        case (.numeric, .decimal(let d)):
            guard let digits = NumericDigits(d.description) else { return "not a finite decimal number" }
            digits.append(to: &out)
        case (.numeric, .integer(let v)):
            guard let digits = NumericDigits(String(v)) else { return "not a decimal number" }
            digits.append(to: &out)
        default:
            return "\(value.kindName) does not fit a \(self) column in COPY (insertAll converts it)"
        }
        return nil
    }
}

extension DatabaseValue {
    /// The value's kind, for messages that must not show the value.
    fileprivate var kindName: String {
        switch self {
        case .null: return "NULL"
        case .bool: return "a boolean"
        case .integer: return "an integer"
        case .double: return "a double"
        case .text: return "text"
        case .blob: return "bytes"
        case .date: return "a date"
        case .decimal: return "a decimal"
        case .uuid: return "a UUID"
        case .json: return "JSON"
        }
    }
}

/// A `numeric` in PostgreSQL's binary form: base-10000 digits, the weight of the first, sign and display scale,
/// read from the decimal text the INSERT path sends (so the scale is the same).
struct NumericDigits {
    var digits: [Int16] = []
    var weight: Int16 = 0
    var negative = false
    var scale: Int16 = 0

    /// Parses `-123.4500`-style text (digits, at most one point, an optional leading minus); nil otherwise.
    init?(_ text: String) {
        var body = Substring(text)
        if body.hasPrefix("-") {
            negative = true
            body = body.dropFirst()
        }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty,
            body.allSatisfy({ $0 == "." || ($0.isASCII && $0.isNumber) })
        else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= Int(Int16.max) else { return nil }
        scale = Int16(fraction.count)
        let intDigits = Array(whole.utf8).map { Int($0 - 48) }
        let fracDigits = Array(fraction.utf8).map { Int($0 - 48) }
        let lead = (4 - intDigits.count % 4) % 4
        let trail = (4 - fracDigits.count % 4) % 4
        var padded = [Int](repeating: 0, count: lead)
        padded += intDigits
        padded += fracDigits
        padded += [Int](repeating: 0, count: trail)
        var groups: [Int16] = []
        groups.reserveCapacity(padded.count / 4)
        var i = 0
        while i < padded.count {
            var group = 0
            for d in padded[i..<(i + 4)] { group = group * 10 + d }
            groups.append(Int16(group))
            i += 4
        }
        var w = (lead + intDigits.count) / 4 - 1
        while let first = groups.first, first == 0 {
            groups.removeFirst()
            w -= 1
        }
        while let last = groups.last, last == 0 { groups.removeLast() }
        guard (Int(Int16.min)...Int(Int16.max)).contains(w) else { return nil }
        digits = groups
        weight = groups.isEmpty ? 0 : Int16(w)
        if groups.isEmpty { negative = false }
    }

    func append(to out: inout CopyBuffer) {
        out.put32(UInt32(8 + 2 * digits.count))
        out.put16(UInt16(digits.count))
        out.put16(UInt16(bitPattern: weight))
        out.put16(negative ? 0x4000 : 0)
        out.put16(UInt16(bitPattern: scale))
        for d in digits { out.put16(UInt16(bitPattern: d)) }
    }
}

/// The bytes of a binary COPY being built: header, tuples of length-prefixed big-endian fields, trailer.
struct CopyBuffer {
    var bytes: [UInt8] = []

    /// `PGCOPY\n\377\r\n\0`, flags 0, header extension length 0.
    static let header: [UInt8] = [
        0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
    ]

    @inline(__always) mutating func put16(_ v: UInt16) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always) mutating func put32(_ v: UInt32) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// An 8-byte field: its length, then the value.
    @inline(__always) mutating func field64(_ v: UInt64) {
        put32(8)
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// A text field, with an optional leading byte (jsonb's version).
    @inline(__always) mutating func text(_ s: String, prefix: UInt8?) {
        var s = s
        s.withUTF8 { utf8 in
            put32(UInt32(utf8.count + (prefix == nil ? 0 : 1)))
            if let prefix { bytes.append(prefix) }
            bytes.append(contentsOf: utf8)
        }
    }
}
