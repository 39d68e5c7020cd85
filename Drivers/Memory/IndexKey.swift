// IndexKey: the hashable key of a unique index or lookup, with SQL equality (text by UTF-8 bytes).
import Foundation
import Strata

/// The values of an index's columns in one row.
///
/// Swift's `String ==` and hash treat canonically equivalent text (`é` precomposed and decomposed)
/// as equal; SQLite and PostgreSQL do not, so text and JSON hash and compare by their UTF-8 bytes.
/// A single-column key keeps `rest` empty, which costs no allocation; a lookup's key of several columns shares its
/// caller's array of values (``init(values:)``), which costs none either.
struct IndexKey: Hashable, Sendable {
    let first: DatabaseValue
    /// 0, or 1 for a key that shares its caller's values (whose first is ``first``); a byte, declared here, so that it
    /// takes the padding after `first` and a key is no larger than one without it.
    private let restStart: UInt8
    /// The other columns' values are `rest[restStart...]`.
    private let rest: [DatabaseValue]

    /// The key of `columns` in `row`, or nil when one of them is NULL (NULLs never collide).
    init?(row: [DatabaseValue], columns: [Int]) {
        guard let head = columns.first else { return nil }
        let value = row[head]
        if value.isNull { return nil }
        first = value
        restStart = 0
        if columns.count == 1 {
            rest = []
        } else {
            var others: [DatabaseValue] = []
            others.reserveCapacity(columns.count - 1)
            for c in columns.dropFirst() {
                if row[c].isNull { return nil }
                others.append(row[c])
            }
            rest = others
        }
    }

    /// The key of a lookup whose values (none NULL, at least one) are listed in the index's column order.
    init(values: [DatabaseValue]) {
        first = values[0]
        rest = values
        restStart = 1
    }

    /// A one-column key for a lookup.
    init(_ value: DatabaseValue) {
        first = value
        rest = []
        restStart = 0
    }

    /// The key of a GROUP BY over `columns` (at least one) in `row`: NULLs included, as a group of their own.
    init(grouping row: [DatabaseValue], columns: [Int]) {
        first = row[columns[0]]
        restStart = 0
        if columns.count == 1 {
            rest = []
        } else {
            var others: [DatabaseValue] = []
            others.reserveCapacity(columns.count - 1)
            for c in columns.dropFirst() { others.append(row[c]) }
            rest = others
        }
    }

    static func == (a: IndexKey, b: IndexKey) -> Bool {
        let (sa, sb) = (Int(a.restStart), Int(b.restStart))
        let n = a.rest.count - sa
        guard n == b.rest.count - sb, Self.same(a.first, b.first) else { return false }
        var i = 0
        while i < n {
            if !Self.same(a.rest[sa + i], b.rest[sb + i]) { return false }
            i += 1
        }
        return true
    }

    func hash(into hasher: inout Hasher) {
        Self.hash(first, into: &hasher)
        var i = Int(restStart)
        while i < rest.count {
            Self.hash(rest[i], into: &hasher)
            i += 1
        }
    }

    /// Equality of two stored values of one column (both already normalized to its type).
    static func same(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y
        case (.text(let x), .text(let y)), (.json(let x), .json(let y)): return ValueOrder.compareUTF8(x, y) == 0
        case (.double(let x), .double(let y)): return x == y || (x.isNaN && y.isNaN)
        default: return ValueOrder.equal(a, b)
        }
    }

    private static func hash(_ v: DatabaseValue, into hasher: inout Hasher) {
        switch v {
        case .text(let s), .json(let s):
            var s = s
            s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .double(let d):
            if d.isNaN { hasher.combine(Double.nan.bitPattern) } else { hasher.combine(d) }
        case .integer(let i): hasher.combine(i)
        default: hasher.combine(v)
        }
    }
}
