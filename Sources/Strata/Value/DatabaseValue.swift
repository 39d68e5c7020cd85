// DatabaseValue: the one value type that crosses the line between the core and every driver.
import Foundation

/// A value as the core hands it to a driver and a driver hands it back.
///
/// The cases carry the *meaning* of a value (a date, a UUID, JSON), not one backend's storage
/// class, so each driver can pick its natural column type: SQLite stores a date as fixed-width
/// UTC text, PostgreSQL as `timestamptz`, the memory driver as the `Date` itself.
public enum DatabaseValue: Sendable, Hashable {
    /// SQL NULL: no value; never equal to anything in a condition, not even NULL.
    case null
    /// A boolean: `BOOLEAN` on PostgreSQL, the integer 0 or 1 on SQLite.
    case bool(Bool)
    /// A 64-bit signed integer (`INTEGER` on SQLite, `BIGINT` on PostgreSQL).
    case integer(Int64)
    /// A 64-bit IEEE 754 floating-point number (`REAL`, `DOUBLE PRECISION`).
    case double(Double)
    /// Unicode text, compared and sorted by code point on every driver.
    case text(String)
    /// Raw bytes (`BLOB` on SQLite, `BYTEA` on PostgreSQL).
    case blob(Data)
    /// A date, always rounded to the microsecond (see ``DatabaseValue/roundedToMicroseconds(_:)``).
    case date(Date)
    /// An exact decimal number: `NUMERIC` on PostgreSQL, text under a numeric collation on SQLite.
    case decimal(Decimal)
    /// A UUID: `UUID` on PostgreSQL, lowercase hyphenated text on SQLite.
    case uuid(UUID)
    /// JSON text, encoded with sorted keys so every backend stores the same bytes.
    case json(String)

    /// Whether this is SQL NULL.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short description for error messages: the kind of value and, for text, at most 40 characters.
    public var summary: String {
        switch self {
        case .null: return "NULL"
        case .bool(let b): return "bool \(b)"
        case .integer(let i): return "integer \(i)"
        case .double(let d): return "double \(d)"
        case .text(let s): return "text \"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .blob(let d): return "blob of \(d.count) bytes"
        case .date(let d): return "date \(DateText.format(d))"
        case .decimal(let d): return "decimal \(d)"
        case .uuid(let u): return "uuid \(u.uuidString.lowercased())"
        case .json(let j): return "json \(j.count > 40 ? String(j.prefix(40)) + "…" : j)"
        }
    }

    /// Rounds a date to the nearest microsecond since 1970, the precision every driver keeps.
    public static func roundedToMicroseconds(_ date: Date) -> Date {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        return Date(timeIntervalSince1970: micros / 1_000_000)
    }
}
