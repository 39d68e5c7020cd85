// PostgresBinds: lays out a statement's bound values the way libpq takes them: OIDs, bytes, lengths, formats.
import CPostgres
import Foundation
import Strata

/// The parameters of one statement. Every value carries an explicit type OID so PostgreSQL checks
/// it against the column (a text into a bigint column is a typed error naming the column); NULL
/// goes as OID 0 so PostgreSQL infers it. Integers, doubles and bytea travel binary (int8's and float8's 8
/// big-endian bytes: nothing to format here or to parse on the server, and a double's bits exactly), the rest as
/// text.
struct PostgresBinds {
    private(set) var types: [Oid] = []
    /// Where each value lies in `bytes`, and how libpq reads it. Three arrays in all (types, slots, bytes), so
    /// that binding one value costs three allocations (a point lookup makes tens of thousands a second).
    private var slots: [Slot] = []
    /// Every value back to back; starts with one spare byte so that no value's address is nil.
    private var bytes: [UInt8] = []

    private struct Slot {
        /// Where the value starts in `bytes`, or -1 for NULL.
        var offset: Int
        /// Its length (0 for text, which libpq reads up to the NUL).
        var length: Int32
        /// 0: text, 1: binary (bytea).
        var format: Int32
    }

    var count: Int { types.count }

    /// Whether the storage is small enough for a connection to keep between statements (64 kB of values, 1,024
    /// parameters).
    var isSmall: Bool { bytes.capacity <= 65_536 && types.capacity <= 1_024 }

    /// No values: storage that ``fill(_:table:)`` fills (a connection keeps one and refills it per statement).
    init() {}

    /// - Throws: ``StrataError/typeMismatch(table:column:detail:)`` for text containing NUL, which
    ///   PostgreSQL cannot store.
    init(_ values: [DatabaseValue], table: String?) throws(StrataError) {
        try fill(values, table: table)
    }

    /// Replaces the values with `values`, keeping the storage: a connection's statements reuse one set of arrays
    /// (three allocations a statement saved). An array a cached statement's key still holds (``types``) is left to
    /// it and made anew.
    ///
    /// - Throws: ``StrataError/typeMismatch(table:column:detail:)`` for text containing NUL, which
    ///   PostgreSQL cannot store.
    mutating func fill(_ values: [DatabaseValue], table: String?) throws(StrataError) {
        // The OIDs and slots emptied from the end: `removeAll(keepingCapacity:)` goes through the generic range
        // replacement, about 65 instructions an array (they hold a value or two of a trivial type: each removal is a
        // count decrement). The bytes, a dozen or more, are cheaper emptied at once.
        while !types.isEmpty { types.removeLast() }
        while !slots.isEmpty { slots.removeLast() }
        bytes.removeAll(keepingCapacity: true)
        types.reserveCapacity(values.count)
        slots.reserveCapacity(values.count)
        bytes.reserveCapacity(1 + values.count * 24)
        bytes.append(0)
        for value in values {
            switch value {
            case .null:
                types.append(0)
                slots.append(Slot(offset: -1, length: 0, format: 0))
            case .bool(let b): text(b ? "t" : "f", oid: PostgresOID.bool)
            case .integer(let i): binary(UInt64(bitPattern: i), oid: PostgresOID.int8)
            // -0.0 is sent as 0.0, so it is stored as 0.0 as on SQLite (which cannot keep the sign).
            case .double(let d): binary(d == 0 ? 0 : d.bitPattern, oid: PostgresOID.float8)
            case .text(let s):
                guard !Self.holdsNUL(s) else {
                    throw .typeMismatch(
                        table: table, column: nil, detail: "PostgreSQL text cannot contain NUL characters")
                }
                text(s, oid: PostgresOID.text)
            case .json(let s):
                guard !Self.holdsNUL(s) else {
                    throw .typeMismatch(
                        table: table, column: nil, detail: "PostgreSQL JSON cannot contain NUL characters")
                }
                text(s, oid: PostgresOID.jsonb)
            case .date(let d): text(DateText.format(d) + "+00", oid: PostgresOID.timestamptz)
            case .decimal(let d): text(d.description, oid: PostgresOID.numeric)
            case .uuid(let u): text(u.uuidString.lowercased(), oid: PostgresOID.uuid)
            case .blob(let data):
                types.append(PostgresOID.bytea)
                slots.append(Slot(offset: bytes.count, length: Int32(clamping: data.count), format: 1))
                bytes.append(contentsOf: data)
            }
        }
    }

    /// Appends a text value. Its UTF-8 is copied at once where the string is contiguous (native strings, and the
    /// small ones a number's text is): appending the `utf8` view went byte by byte, about 170 instructions a value.
    private mutating func text(_ s: String, oid: Oid) {
        types.append(oid)
        slots.append(Slot(offset: bytes.count, length: 0, format: 0))
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
        bytes.append(0)
    }

    /// Appends an 8-byte value in binary format (network byte order), as int8 and float8 receive it.
    private mutating func binary(_ bits: UInt64, oid: Oid) {
        types.append(oid)
        slots.append(Slot(offset: bytes.count, length: 8, format: 1))
        withUnsafeBytes(of: bits.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Whether `s` holds a NUL: `memchr` over its UTF-8 where the string is contiguous (native strings are), rather
    /// than a walk of its UTF-8 view.
    static func holdsNUL(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { utf8 in
            utf8.baseAddress.map { memchr($0, 0, utf8.count) != nil } ?? false
        } ?? s.utf8.contains(0)
    }

    /// Calls `body` with libpq's parameter arrays (values, lengths, formats), laid out in `scratch` (a connection's,
    /// reused from one statement to the next) and valid for the call.
    ///
    /// Not on the stack through `withUnsafeTemporaryAllocation`: its heap fallback made the closures that send the
    /// statement out-of-line calls from two places, each capture retained twice and released, 24 reference count
    /// operations a statement (about 880 instructions a lookup).
    func withParameters<R>(
        in scratch: ParameterArrays,
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        // The arrays' buffers are taken once, outside the closures that fill libpq's arrays: iterating `slots` from
        // inside them captured this value whole (a retain and release of each array per closure, about 360
        // instructions a statement).
        bytes.withUnsafeBufferPointer { buffer in
            slots.withUnsafeBufferPointer { slots in
                let n = slots.count
                scratch.reserve(n)
                let base = UnsafeRawPointer(buffer.baseAddress)
                let values = scratch.values
                let ints = scratch.ints
                for i in 0..<n {
                    let slot = slots[i]
                    values[i] =
                        slot.offset < 0 ? nil : base.map { ($0 + slot.offset).assumingMemoryBound(to: CChar.self) }
                    ints[i] = slot.length
                    ints[n + i] = slot.format
                }
                return body(UnsafePointer(values), UnsafePointer(ints), UnsafePointer(ints + n))
            }
        }
    }
}

/// libpq's parameter arrays of a statement (each value's address; the lengths, then the formats), which a connection
/// keeps and reuses: grown to the most parameters a statement of it bound, kept while that is at most 1,024 (as
/// ``PostgresBinds/isSmall`` keeps the values), and used by one thread at a time, as the connection is.
final class ParameterArrays: @unchecked Sendable {
    private(set) var values: UnsafeMutablePointer<UnsafePointer<CChar>?>
    private(set) var ints: UnsafeMutablePointer<Int32>
    private var capacity: Int

    private static let initialCapacity = 16

    init() {
        capacity = Self.initialCapacity
        values = .allocate(capacity: capacity)
        ints = .allocate(capacity: 2 * capacity)
    }

    deinit {
        values.deallocate()
        ints.deallocate()
    }

    /// Makes room for `count` parameters (their earlier contents are not kept).
    func reserve(_ count: Int) {
        if count > capacity { reallocate(max(count, 2 * capacity)) }
    }

    /// Gives back the room a statement of many parameters took (past 1,024), so an idle connection does not hold it.
    func shrinkIfLarge() {
        if capacity > 1_024 { reallocate(Self.initialCapacity) }
    }

    private func reallocate(_ newCapacity: Int) {
        values.deallocate()
        ints.deallocate()
        capacity = newCapacity
        values = .allocate(capacity: capacity)
        ints = .allocate(capacity: 2 * capacity)
    }
}

/// The type OIDs Strata binds and reads (from `pg_type`; fixed since PostgreSQL 9.4).
enum PostgresOID {
    static let bool: Oid = 16
    static let bytea: Oid = 17
    static let name: Oid = 19
    static let int8: Oid = 20
    static let int2: Oid = 21
    static let int4: Oid = 23
    static let text: Oid = 25
    static let oid: Oid = 26
    static let json: Oid = 114
    static let float4: Oid = 700
    static let float8: Oid = 701
    static let bpchar: Oid = 1042
    static let varchar: Oid = 1043
    static let date: Oid = 1082
    static let timestamp: Oid = 1114
    static let timestamptz: Oid = 1184
    static let numeric: Oid = 1700
    static let uuid: Oid = 2950
    static let jsonb: Oid = 3802
}
