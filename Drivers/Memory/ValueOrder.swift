// ValueOrder: how two stored values compare, as SQLite (BINARY) and PostgreSQL (COLLATE "C") agree.
import Foundation
import Strata

/// A total order over ``DatabaseValue``s, used by `=`, `<`, `IN`, `BETWEEN` and ORDER BY.
///
/// - NULL sorts before everything (callers treat NULL in a comparison as unknown first).
/// - Integers, doubles, decimals (and booleans, as 0 and 1) compare numerically with each other.
/// - Text and JSON compare by UTF-8 bytes, which is Unicode code point order; never by Swift's
///   `==`, which calls canonically equivalent strings equal.
/// - Dates chronologically, UUIDs by their 16 bytes, blobs bytewise (a prefix first).
/// - Values of unrelated kinds follow SQLite's class order NULL < numbers < text < blob, with a
///   date or UUID compared as the text SQLite would store for it.
enum ValueOrder {
    /// -1, 0 or 1 as `a` sorts before, with, or after `b`.
    static func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        // Nested switches rather than a tuple switch: no copies of the operands on the hot path.
        switch a {
        case .integer(let x):
            if case .integer(let y) = b { return sign(x, y) }
        case .text(let x):
            if case .text(let y) = b { return compareUTF8(x, y) }
        case .double(let x):
            if case .double(let y) = b { return compareDoubles(x, y) }
        case .bool(let x):
            if case .bool(let y) = b { return x == y ? 0 : (x ? 1 : -1) }
        case .date(let x):
            if case .date(let y) = b { return sign(x.timeIntervalSince1970, y.timeIntervalSince1970) }
        case .uuid(let x):
            if case .uuid(let y) = b { return compareUUIDs(x, y) }
        case .blob(let x):
            if case .blob(let y) = b { return compareBlobs(x, y) }
        case .decimal(let x):
            if case .decimal(let y) = b { return compareDecimals(x, y) }
        case .json(let x):
            if case .json(let y) = b { return compareUTF8(x, y) }
        case .null:
            if case .null = b { return 0 }
        }
        return compareMixed(a, b)
    }

    /// Values of different kinds: by class, then numerically or as text.
    private static func compareMixed(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        return ra == 1 ? compareNumbers(a, b) : compareUTF8(textual(a), textual(b))
    }

    /// Whether two values are equal under ``compare(_:_:)``.
    @inline(__always)
    static func equal(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool { compare(a, b) == 0 }

    // MARK: Classes

    /// SQLite's storage class order: NULL, numbers, text, blob.
    private static func rank(_ v: DatabaseValue) -> Int {
        switch v {
        case .null: 0
        case .bool, .integer, .double, .decimal: 1
        case .text, .json, .date, .uuid: 2
        case .blob: 3
        }
    }

    /// The text SQLite would hold for a value of the text class.
    private static func textual(_ v: DatabaseValue) -> String {
        switch v {
        case .text(let s), .json(let s): s
        case .date(let d): DateText.format(d)
        case .uuid(let u): u.uuidString.lowercased()
        default: ""
        }
    }

    // MARK: Numbers

    private enum Number {
        case integer(Int64)
        case double(Double)
        case decimal(Decimal)
    }

    private static func number(_ v: DatabaseValue) -> Number {
        switch v {
        case .integer(let i): .integer(i)
        case .bool(let b): .integer(b ? 1 : 0)
        case .double(let d): .double(d)
        case .decimal(let d): .decimal(d)
        default: .integer(0)
        }
    }

    private static func compareNumbers(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        switch (number(a), number(b)) {
        case (.integer(let x), .integer(let y)): return sign(x, y)
        case (.double(let x), .double(let y)): return compareDoubles(x, y)
        case (.integer(let x), .double(let y)): return compareIntegerToDouble(x, y)
        case (.double(let x), .integer(let y)): return -compareIntegerToDouble(y, x)
        case (.decimal(let x), .decimal(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.decimal(let x), .integer(let y)): return compareDecimals(x, Decimal(y))
        case (.integer(let x), .decimal(let y)): return compareDecimals(Decimal(x), y)
        case (.decimal(let x), .double(let y)): return compareDecimalToDouble(x, y)
        case (.double(let x), .decimal(let y)): return -compareDecimalToDouble(y, x)
        }
    }

    /// Doubles in numeric order; NaN sorts after every number and equals itself (PostgreSQL's rule).
    private static func compareDoubles(_ x: Double, _ y: Double) -> Int {
        if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? 0 : (x.isNaN ? 1 : -1) }
        return sign(x, y)
    }

    /// An integer against a double compares as two doubles, as on PostgreSQL (bigint → float8) and, through the
    /// renderer's ``NumericSyntax/mixedComparison``, SQLite: `Int64.max = 9223372036854775807.0` is true.
    private static func compareIntegerToDouble(_ x: Int64, _ y: Double) -> Int {
        compareDoubles(Double(x), y)
    }

    private static func compareDecimals(_ x: Decimal, _ y: Decimal) -> Int { x < y ? -1 : (x == y ? 0 : 1) }

    /// A decimal against a double compares as doubles, as on PostgreSQL (numeric → float8) and SQLite (decimal
    /// text → REAL): a decimal 0.99 equals the double 0.99 a REAL column holds.
    private static func compareDecimalToDouble(_ x: Decimal, _ y: Double) -> Int {
        if y.isNaN { return -1 }
        if y.isInfinite { return y > 0 ? -1 : 1 }
        guard let dx = Double("\(x)") else { return compareDecimals(x, Decimal(y)) }
        return compareDoubles(dx, y)
    }

    @inline(__always)
    private static func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }

    // MARK: Bytes

    /// UTF-8 byte order, which is code point order.
    static func compareUTF8(_ x: String, _ y: String) -> Int {
        let fast = x.utf8.withContiguousStorageIfAvailable { a in
            y.utf8.withContiguousStorageIfAvailable { b in
                compareBytes(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b))
            }
        }
        if let fast, let order = fast { return order }
        var x = x
        var y = y
        return x.withUTF8 { a in y.withUTF8 { b in compareBytes(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) }
        }
    }

    private static func compareUUIDs(_ x: UUID, _ y: UUID) -> Int {
        withUnsafeBytes(of: x.uuid) { a in withUnsafeBytes(of: y.uuid) { b in compareBytes(a, b) } }
    }

    private static func compareBlobs(_ x: Data, _ y: Data) -> Int {
        x.withUnsafeBytes { a in y.withUnsafeBytes { b in compareBytes(a, b) } }
    }

    /// memcmp order, a shorter prefix first.
    static func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = min(a.count, b.count)
        if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
            let r = memcmp(pa, pb, n)
            if r != 0 { return r < 0 ? -1 : 1 }
        }
        return sign(a.count, b.count)
    }
}
