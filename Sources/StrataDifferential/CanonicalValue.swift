// CanonicalValue: a value read back from any backend, in the one form that compares exactly across backends.
import Foundation
import Strata

/// A result value decoded by its column's type, as a model would decode it, then made comparable.
///
/// What differs only in storage (SQLite's 0/1 for a bool, its text for a date, decimal or UUID; PostgreSQL's
/// JSONB spacing) is decoded away; everything else is kept exactly: doubles by bit pattern (so -0.0 is not
/// 0.0), text by Unicode scalars (so "é" is not "e\u{301}"), dates to the microsecond, decimals by value.
public enum CanonicalValue: Sendable, Hashable, Comparable, CustomStringConvertible {
    case null
    case integer(Int64)
    case double(UInt64)
    case text([Unicode.Scalar])
    case blob([UInt8])
    case bool(Bool)
    /// Microseconds since 1970.
    case date(Int64)
    /// The decimal's digits without trailing fraction zeros.
    case decimal(String)
    case uuid(String)
    /// JSON re-encoded with sorted keys.
    case json(String)
    /// A value that does not decode as its column's type: the kind and a summary.
    case undecodable(String)

    /// Decodes `value`, read from a column of `type`.
    public init(_ value: DatabaseValue, type: ColumnType) {
        if value.isNull {
            self = .null
            return
        }
        do {
            switch type {
            case .integer: self = .integer(try Int64(databaseValue: value))
            case .double: self = .double(try Double(databaseValue: value).bitPattern)
            case .text: self = .text(Array(try String(databaseValue: value).unicodeScalars))
            case .blob: self = .blob(Array(try Data(databaseValue: value)))
            case .bool: self = .bool(try Bool(databaseValue: value))
            case .date:
                let d = try Date(databaseValue: value)
                self = .date(Int64((d.timeIntervalSince1970 * 1_000_000).rounded()))
            case .decimal: self = .decimal(Self.digits(try Decimal(databaseValue: value)))
            case .uuid: self = .uuid(try UUID(databaseValue: value).uuidString.lowercased())
            case .json:
                switch value {
                case .json(let s), .text(let s): self = Self.canonicalJSON(s)
                default: self = .undecodable(value.summary)
                }
            }
        } catch {
            self = .undecodable(value.summary)
        }
    }

    /// The key two values of a unique column collide on (what `=` calls equal on every backend).
    var uniquenessKey: CanonicalValue {
        if case .double(let bits) = self, Double(bitPattern: bits) == 0 { return .double(0) }
        return self
    }

    private static func canonicalJSON(_ text: String) -> CanonicalValue {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let again = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]),
            let canonical = String(data: again, encoding: .utf8)
        else { return .undecodable("json \(text)") }
        return .json(canonical)
    }

    private static func digits(_ d: Decimal) -> String {
        var s = d.description
        if s.contains("."), !s.contains("e"), !s.contains("E") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s == "-0" ? "0" : s
    }

    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .double(let bits): return "\(Double(bitPattern: bits))"
        case .text(let s):
            var view = String.UnicodeScalarView()
            view.append(contentsOf: s)
            return String(String(view).debugDescription)
        case .blob(let b): return "x'" + b.map { String(format: "%02x", $0) }.joined() + "'"
        case .bool(let b): return String(b)
        case .date(let micros): return DateText.format(Date(timeIntervalSince1970: Double(micros) / 1_000_000))
        case .decimal(let d): return d
        case .uuid(let u): return u
        case .json(let j): return "json " + j
        case .undecodable(let s): return "undecodable(\(s))"
        }
    }

    /// An arbitrary but fixed order, used only to sort multisets before comparing them.
    public static func < (lhs: CanonicalValue, rhs: CanonicalValue) -> Bool {
        String(reflecting: lhs) < String(reflecting: rhs)
    }
}
