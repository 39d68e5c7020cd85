// DateFormat: how a column stores dates, for tables other tools wrote (text forms, Unix times, julian days).
import Foundation

/// The storage form of a `Date` column, declared on the column: `@Column(dateFormat: .unixMilliseconds)`.
///
/// Without a declaration a date is stored in Strata's own form (``strata``): fixed-width UTC text with six
/// fraction digits on SQLite, `timestamptz` on PostgreSQL. A column declaring another form is stored as that
/// text or number on every driver (a TEXT, BIGINT or DOUBLE column), and every value Strata binds to it (a
/// saved model, `where(\.d == d)`, `between`, `set(_:to:)`, timestamps) is written in that form, so
/// comparisons and ordering follow time. The forms mirror GRDB's date strategies:
///
/// | case | stored as | example |
/// |---|---|---|
/// | `strata` | Strata's default | `2009-01-01 10:00:00.000000` (SQLite) |
/// | `iso8601` | text | `2009-01-01T10:00:00Z` |
/// | `iso8601WithFraction` | text, milliseconds | `2009-01-01T10:00:00.250Z` |
/// | `sqlDateTime` | text (SQLite's `datetime()`) | `2009-01-01 10:00:00` |
/// | `unixSeconds` | integer | `1230804000` |
/// | `unixMilliseconds` | integer | `1230804000250` |
/// | `julianDay` | double | `2454833.9166666665` |
///
/// Reading is lenient within the form's kind: a text form reads any ISO 8601 text (a space or `T`, any
/// fraction, `Z` or an offset such as `+02:00`, a bare date); a number form reads integers and doubles.
/// Forms that keep whole seconds (or milliseconds) round a written date down to them.
public enum DateFormat: String, Sendable, Hashable, CaseIterable {
    /// Strata's own form, the default: fixed-width UTC text with microseconds on SQLite, `timestamptz` on PostgreSQL.
    case strata
    /// ISO 8601 text in UTC with whole seconds, such as `2009-01-01T10:00:00Z`.
    case iso8601
    /// ISO 8601 text in UTC with milliseconds, such as `2009-01-01T10:00:00.250Z`.
    case iso8601WithFraction
    /// SQLite's `datetime()` text in UTC with whole seconds, such as `2009-01-01 10:00:00`.
    case sqlDateTime
    /// Whole seconds since 1970-01-01 00:00:00 UTC, as an integer.
    case unixSeconds
    /// Whole milliseconds since 1970-01-01 00:00:00 UTC, as an integer.
    case unixMilliseconds
    /// Days since noon UTC on November 24, 4714 BC (the Julian day number), as a double.
    case julianDay

    /// The column type a migration creates for a column in this form.
    public var columnType: ColumnType {
        switch self {
        case .strata: return .date
        case .iso8601, .iso8601WithFraction, .sqlDateTime: return .text
        case .unixSeconds, .unixMilliseconds: return .integer
        case .julianDay: return .double
        }
    }

    /// The stored form of a value: a ``DatabaseValue/date(_:)`` becomes this form's text or number; anything
    /// else (NULL, a date already stored) is returned as it is.
    public func stored(_ value: DatabaseValue) -> DatabaseValue {
        guard case .date(let date) = value, self != .strata, DateText.isRepresentable(date) else { return value }
        let seconds = date.timeIntervalSince1970
        switch self {
        case .strata: return value
        case .iso8601: return .text(DateText.format(date, separator: "T", fractionDigits: 0) + "Z")
        case .iso8601WithFraction: return .text(DateText.format(date, separator: "T", fractionDigits: 3) + "Z")
        case .sqlDateTime: return .text(DateText.format(date, separator: " ", fractionDigits: 0))
        case .unixSeconds: return .integer(Self.floor(Int64((seconds * 1_000_000).rounded()), 1_000_000))
        case .unixMilliseconds: return .integer(Self.floor(Int64((seconds * 1_000_000).rounded()), 1000))
        case .julianDay: return .double(seconds / 86_400 + Self.unixEpochJulianDay)
        }
    }

    /// The date a stored value holds in this form, as ``DatabaseValue/date(_:)``; a value that is no date in
    /// this form is returned as it is (and then fails to decode with the column named).
    public func read(_ value: DatabaseValue) -> DatabaseValue {
        switch (self, value) {
        case (.strata, _), (_, .null), (_, .date): return value
        case (.iso8601, .text(let s)), (.iso8601WithFraction, .text(let s)), (.sqlDateTime, .text(let s)):
            return DateText.parse(s).map { .date($0) } ?? value
        case (.unixSeconds, .integer(let i)): return .date(Date(timeIntervalSince1970: Double(i)))
        case (.unixSeconds, .double(let d)): return .date(Date(timeIntervalSince1970: d))
        case (.unixMilliseconds, .integer(let i)):
            return .date(Date(timeIntervalSince1970: Double(i / 1000) + Double(i % 1000) / 1000))
        case (.unixMilliseconds, .double(let d)): return .date(Date(timeIntervalSince1970: d / 1000))
        case (.julianDay, .double(let d)): return .date(Self.date(julianDay: d))
        case (.julianDay, .integer(let i)): return .date(Self.date(julianDay: Double(i)))
        default: return value
        }
    }

    /// The julian day of 1970-01-01 00:00:00 UTC.
    static let unixEpochJulianDay = 2_440_587.5

    /// `a / b` rounded toward negative infinity (dates before 1970 round down too).
    private static func floor(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return a % b < 0 ? q - 1 : q
    }

    private static func date(julianDay: Double) -> Date {
        // Rounded to the millisecond, the precision a julian day (a double of about 2.4 million) keeps.
        Date(timeIntervalSince1970: (((julianDay - unixEpochJulianDay) * 86_400) * 1000).rounded() / 1000)
    }
}
