// ValueConversion: how a column's stored values become another type when a migration changes it.
import Foundation

/// The conversions a type change applies to existing values, done in Swift so every driver converts alike.
///
/// | to | from |
/// |---|---|
/// | `text` | integers, doubles, booleans (`true`/`false`), dates (UTC `YYYY-MM-DD HH:MM:SS.ffffff`), decimals, UUIDs, JSON |
/// | `integer` | integral doubles and decimals in range, booleans (0, 1), text holding a base-10 integer |
/// | `double` | integers, decimals, text holding a finite number |
/// | `bool` | integers 0 and 1, text `true`/`false`/`0`/`1` |
/// | `decimal` | integers, finite doubles, text holding a number |
/// | `date`, `uuid`, `json` | text in the type's own format |
/// | `blob` | text (its UTF-8 bytes) |
///
/// Anything else, such as text `"abc"` to `integer`, is refused with
/// ``StrataError/typeMismatch(table:column:detail:)`` before anything changes.
public enum ValueConversion {
    /// A stored value read back as the column's type (SQLite hands booleans back as integers and dates,
    /// decimals and UUIDs as text).
    public static func normalize(_ value: DatabaseValue, as type: ColumnType) -> DatabaseValue {
        switch (value, type) {
        case (.integer(let i), .bool) where i == 0 || i == 1: return .bool(i == 1)
        case (.text(let s), .date): return DateText.parse(s).map(DatabaseValue.date) ?? value
        case (.text(let s), .decimal): return Decimal(string: s).map(DatabaseValue.decimal) ?? value
        case (.text(let s), .uuid): return UUID(uuidString: s).map(DatabaseValue.uuid) ?? value
        case (.text(let s), .json): return .json(s)
        default: return value
        }
    }

    /// `value` (already normalized) as a value of `type`, or nil when it does not convert. NULL stays NULL.
    public static func convert(_ value: DatabaseValue, to type: ColumnType) -> DatabaseValue? {
        if value.isNull { return .null }
        switch type {
        case .text: return toText(value).map(DatabaseValue.text)
        case .integer: return toInteger(value).map(DatabaseValue.integer)
        case .double:
            switch value {
            case .double: return value
            case .integer(let i): return .double(Double(i))
            case .decimal(let d): return .double(NSDecimalNumber(decimal: d).doubleValue)
            case .text(let s): return Double(s).flatMap { $0.isFinite ? .double($0) : nil }
            default: return nil
            }
        case .bool:
            switch value {
            case .bool: return value
            case .integer(let i) where i == 0 || i == 1: return .bool(i == 1)
            case .text(let s):
                return ["true": true, "1": true, "false": false, "0": false][s].map(DatabaseValue.bool)
            default: return nil
            }
        case .decimal:
            switch value {
            case .decimal: return value
            case .integer(let i): return .decimal(Decimal(i))
            case .double(let d) where d.isFinite: return .decimal(Decimal(d))
            case .text(let s): return strictDecimal(s).map(DatabaseValue.decimal)
            default: return nil
            }
        case .date:
            if case .date = value { return value }
            if case .text(let s) = value { return DateText.parse(s).map(DatabaseValue.date) }
            return nil
        case .uuid:
            if case .uuid = value { return value }
            if case .text(let s) = value { return UUID(uuidString: s).map(DatabaseValue.uuid) }
            return nil
        case .json:
            switch value {
            case .json: return value
            case .text(let s):
                let valid = (try? JSONSerialization.jsonObject(with: Data(s.utf8), options: .fragmentsAllowed)) != nil
                return valid ? .json(s) : nil
            default: return nil
            }
        case .blob:
            switch value {
            case .blob: return value
            case .text(let s): return .blob(Data(s.utf8))
            default: return nil
            }
        }
    }

    private static func toText(_ value: DatabaseValue) -> String? {
        switch value {
        case .text(let s), .json(let s): return s
        case .integer(let i): return String(i)
        case .double(let d): return d.isFinite ? "\(d)" : nil
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return DateText.format(d)
        case .decimal(let d): return "\(d)"
        case .uuid(let u): return u.uuidString.lowercased()
        case .null, .blob: return nil
        }
    }

    private static func toInteger(_ value: DatabaseValue) -> Int64? {
        switch value {
        case .integer(let i): return i
        case .bool(let b): return b ? 1 : 0
        case .text(let s): return Int64(s)
        case .double(let d):
            guard d.rounded() == d, d >= -9.223_372_036_854_775_808e18, d < 9.223_372_036_854_775_808e18 else {
                return nil
            }
            return Int64(d)
        case .decimal(let d):
            guard let i = Int64(exactly: NSDecimalNumber(decimal: d).doubleValue), Decimal(i) == d else { return nil }
            return i
        default: return nil
        }
    }

    /// A decimal only when the whole text is a number (`Decimal(string:)` alone accepts `"12abc"` as 12).
    private static func strictDecimal(_ s: String) -> Decimal? {
        guard !s.isEmpty, Double(s) != nil, let d = Decimal(string: s) else { return nil }
        return d
    }
}
