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

    /// Why a value cannot be written (never showing the value itself).
    enum Refusal {
        /// The column cannot take it at all (out of range, a NUL in text): an INSERT fails too.
        case invalid(String)
        /// A value of another kind than the column's, which an INSERT would convert.
        case otherKind(String)
    }

    /// Appends `value` (length and bytes, or -1 for NULL) to `out`; nil on success, else why not.
    func append(_ value: DatabaseValue, to out: CopyBuffer) -> Refusal? {
        // The common kinds first, matched on the value alone: the pair below copies the value into a tuple.
        switch value {
        case .null:
            out.put32(UInt32(bitPattern: -1))
            return nil
        case .integer(let v) where self == .int8:
            out.field64(UInt64(bitPattern: v))
            return nil
        case .double(let d) where self == .float8:
            out.field64((d == 0 ? 0 : d).bitPattern)
            return nil
        case .text(let s) where self == .text:
            return out.text(s, prefix: nil) ? nil : .invalid("PostgreSQL text cannot contain NUL characters")
        default: break
        }
        switch (self, value) {
        case (_, .null): out.put32(UInt32(bitPattern: -1))
        case (.int8, .integer(let v)): out.field64(UInt64(bitPattern: v))
        case (.int4, .integer(let v)):
            guard let n = Int32(exactly: v) else { return .invalid("out of range for integer") }
            out.put32(4)
            out.put32(UInt32(bitPattern: n))
        case (.int2, .integer(let v)):
            guard let n = Int16(exactly: v) else { return .invalid("out of range for smallint") }
            out.put32(2)
            out.put16(UInt16(bitPattern: n))
        case (.float8, .double(let d)): out.field64((d == 0 ? 0 : d).bitPattern)
        case (.float4, .double(let d)):
            let f = Float(d == 0 ? 0 : d)
            guard f.isFinite || !d.isFinite else { return .invalid("out of range for real") }
            out.put32(4)
            out.put32(f.bitPattern)
        case (.bool, .bool(let b)):
            out.put32(1)
            out.put8(b ? 1 : 0)
        case (.text, .text(let s)), (.json, .json(let s)):
            guard out.text(s, prefix: nil) else { return .invalid("PostgreSQL text cannot contain NUL characters") }
        case (.jsonb, .json(let s)):
            // jsonb's binary format: a version byte, then the text
            guard out.text(s, prefix: 1) else { return .invalid("PostgreSQL JSON cannot contain NUL characters") }
        case (.bytea, .blob(let data)):
            out.put32(UInt32(data.count))
            data.withUnsafeBytes { out.put($0) }
        case (.uuid, .uuid(let u)):
            out.put32(16)
            withUnsafeBytes(of: u.uuid) { out.put($0) }
        case (.timestamp, .date(let d)), (.date, .date(let d)):
            guard DateText.isRepresentable(d) else { return .invalid("the date is outside the years 1…9999") }
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
            guard let digits = NumericDigits(d.description) else { return .invalid("not a finite decimal number") }
            digits.append(to: out)
        case (.numeric, .integer(let v)):
            guard let digits = NumericDigits(String(v)) else { return .invalid("not a decimal number") }
            digits.append(to: out)
        default:
            return .otherKind("\(value.kindName) does not fit a \(self) column in COPY (insertAll converts it)")
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

    func append(to out: CopyBuffer) {
        out.put32(UInt32(8 + 2 * digits.count))
        out.put16(UInt16(digits.count))
        out.put16(UInt16(bitPattern: weight))
        out.put16(negative ? 0x4000 : 0)
        out.put16(UInt16(bitPattern: scale))
        for d in digits { out.put16(UInt16(bitPattern: d)) }
    }
}

/// The bytes of a binary COPY being built: header, tuples of length-prefixed big-endian fields, trailer. Written
/// through a raw pointer (an `Array` append costs several times more per field); grows when a row needs it.
final class CopyBuffer {
    /// The size at which the buffer is sent as one CopyData message.
    static let piece = 1 << 20

    /// `PGCOPY\n\377\r\n\0`, flags 0, header extension length 0.
    static let header: [UInt8] = [
        0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
    ]

    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// Bytes written so far.
    private(set) var count = 0

    init(capacity: Int = CopyBuffer.piece + 64 * 1_024) {
        self.capacity = Swift.max(64, capacity)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    /// The bytes written.
    var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Forgets what was written, keeping the storage.
    func removeAll() { count = 0 }

    @inline(__always) private func ensure(_ n: Int) {
        if count + n > capacity { grow(count + n) }
    }

    private func grow(_ needed: Int) {
        let larger = Swift.max(needed, capacity * 2)
        let moved = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 8)
        moved.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    @inline(__always) func put8(_ v: UInt8) {
        ensure(1)
        base.storeBytes(of: v, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always) func put16(_ v: UInt16) {
        ensure(2)
        base.storeBytes(of: v.bigEndian, toByteOffset: count, as: UInt16.self)
        count += 2
    }

    @inline(__always) func put32(_ v: UInt32) {
        ensure(4)
        base.storeBytes(of: v.bigEndian, toByteOffset: count, as: UInt32.self)
        count += 4
    }

    /// An 8-byte field: its length, then the value.
    @inline(__always) func field64(_ v: UInt64) {
        ensure(12)
        base.storeBytes(of: UInt32(8).bigEndian, toByteOffset: count, as: UInt32.self)
        base.storeBytes(of: v.bigEndian, toByteOffset: count + 4, as: UInt64.self)
        count += 12
    }

    /// Raw bytes.
    @inline(__always) func put(_ bytes: UnsafeRawBufferPointer) {
        guard let from = bytes.baseAddress, bytes.count > 0 else { return }
        ensure(bytes.count)
        (base + count).copyMemory(from: from, byteCount: bytes.count)
        count += bytes.count
    }

    /// A text field (with an optional leading byte: jsonb's version); false, writing nothing, when it holds NUL.
    @inline(__always) func text(_ s: String, prefix: UInt8?) -> Bool {
        var s = s
        return s.withUTF8 { utf8 in
            if let start = utf8.baseAddress, memchr(start, 0, utf8.count) != nil { return false }
            put32(UInt32(utf8.count + (prefix == nil ? 0 : 1)))
            if let prefix { put8(prefix) }
            put(UnsafeRawBufferPointer(utf8))
            return true
        }
    }
}
