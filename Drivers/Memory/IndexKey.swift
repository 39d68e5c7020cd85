// IndexKey: the hashable key of a unique index or lookup, with SQL equality (text by UTF-8 bytes).
import Foundation
import Strata

/// The values of an index's columns in one row.
///
/// Swift's `String ==` and hash treat canonically equivalent text (`é` precomposed and decomposed)
/// as equal; SQLite and PostgreSQL do not, so text and JSON hash and compare by their UTF-8 bytes.
/// A single-column key keeps `rest` empty, which costs no allocation.
struct IndexKey: Hashable, Sendable {
    let first: DatabaseValue
    let rest: [DatabaseValue]

    /// The key of `columns` in `row`, or nil when one of them is NULL (NULLs never collide).
    init?(row: [DatabaseValue], columns: [Int]) {
        guard let head = columns.first else { return nil }
        let value = row[head]
        if value.isNull { return nil }
        first = value
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
        rest = values.count == 1 ? [] : Array(values[1...])
    }

    /// A one-column key for a lookup.
    init(_ value: DatabaseValue) {
        first = value
        rest = []
    }

    /// The key of a GROUP BY over `columns` (at least one) in `row`: NULLs included, as a group of their own.
    init(grouping row: [DatabaseValue], columns: [Int]) {
        first = row[columns[0]]
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
        guard a.rest.count == b.rest.count, Self.same(a.first, b.first) else { return false }
        for i in a.rest.indices where !Self.same(a.rest[i], b.rest[i]) { return false }
        return true
    }

    func hash(into hasher: inout Hasher) {
        Self.hash(first, into: &hasher)
        for v in rest { Self.hash(v, into: &hasher) }
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
