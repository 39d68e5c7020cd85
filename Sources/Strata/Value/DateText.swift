// DateText: the one fixed-width UTC text form of a Date used by text-based backends (SQLite).
import Foundation

/// Formats and parses `YYYY-MM-DD HH:MM:SS.ffffff` (UTC), which sorts lexically in time order.
///
/// Parsing also accepts what people, `sqlite3` and other tools write: a `T` separator, a trailing `Z` or a
/// UTC offset (`+02:00`, `-0530`, `+02`, read as the instant it names), no fraction, fewer fraction digits,
/// or a bare date.
public enum DateText {
    /// Whether `date` lies in 0001-01-01 00:00:00 … 9999-12-31 23:59:59.999999 UTC, the range this text form
    /// (and PostgreSQL's `timestamptz` text) writes and reads back; false for NaN and infinities.
    ///
    /// Strata refuses other dates on every driver with ``StrataError/invalidValue(table:column:reason:)``.
    @inline(__always)
    public static func isRepresentable(_ date: Date) -> Bool {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        // Both bounds are exact in a Double (multiples of 32); NaN fails both comparisons.
        return micros >= -62_135_596_800_000_000 && micros < 253_402_300_800_000_000
    }

    /// Formats a date as fixed-width UTC text with six fraction digits.
    ///
    /// A date outside ``isRepresentable(_:)`` (which Strata never binds) gives a description such as
    /// `invalid date (nan s since 1970)` instead of trapping.
    public static func format(_ date: Date) -> String {
        format(date, separator: " ", fractionDigits: 6)
    }

    /// Formats a date as UTC text with `separator` between date and time and `fractionDigits` (0…6) digits
    /// of the second's fraction, truncated; no fraction (and no `.`) when `fractionDigits` is 0.
    public static func format(_ date: Date, separator: Character, fractionDigits: Int) -> String {
        guard isRepresentable(date) else { return "invalid date (\(date.timeIntervalSince1970) s since 1970)" }
        let totalMicros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        var seconds = totalMicros / 1_000_000
        var micros = totalMicros % 1_000_000
        if micros < 0 {
            micros += 1_000_000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secOfDay = seconds % 86_400
        if secOfDay < 0 {
            secOfDay += 86_400
            days -= 1
        }
        let (y, m, d) = civil(fromDays: days)
        let text =
            pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + String(separator) + pad(secOfDay / 3600, 2) + ":"
            + pad(secOfDay % 3600 / 60, 2) + ":" + pad(secOfDay % 60, 2)
        let digits = min(max(fractionDigits, 0), 6)
        guard digits > 0 else { return text }
        return text + "." + (digits == 6 ? pad(micros, 6) : String(pad(micros, 6).prefix(digits)))
    }

    /// Parses the forms listed above; returns nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let u = Array(text.utf8)
        func num(_ from: Int, _ len: Int) -> Int64? {
            guard from + len <= u.count else { return nil }
            var v: Int64 = 0
            for i in from..<(from + len) {
                let c = u[i]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard u.count >= 10, let y = num(0, 4), u[4] == 45, let mo = num(5, 2), u[7] == 45, let d = num(8, 2),
            (1...12).contains(mo), (1...31).contains(d)
        else { return nil }
        var h: Int64 = 0
        var mi: Int64 = 0
        var s: Int64 = 0
        var micros: Int64 = 0
        var i = 10
        if i < u.count, u[i] == 32 || u[i] == 84 {  // ' ' or 'T'
            guard let hh = num(11, 2), u.count > 13, u[13] == 58, let mm = num(14, 2) else { return nil }
            h = hh
            mi = mm
            i = 16
            if i < u.count, u[i] == 58 {
                guard let ss = num(17, 2) else { return nil }
                s = ss
                i = 19
                if i < u.count, u[i] == 46 {  // '.'
                    i += 1
                    var digits = 0
                    while i < u.count, u[i] >= 48, u[i] <= 57 {
                        if digits < 6 {
                            micros = micros * 10 + Int64(u[i] - 48)
                            digits += 1
                        }
                        i += 1
                    }
                    guard digits > 0 else { return nil }
                    for _ in digits..<6 { micros *= 10 }
                }
            }
            guard h < 24, mi < 60, s < 61 else { return nil }
        }
        var offsetSeconds: Int64 = 0
        if i < u.count, u[i] == 90 {  // 'Z'
            i += 1
        } else if i > 10, i < u.count, u[i] == 43 || u[i] == 45 {  // '+' or '-' after a time: an offset
            let sign: Int64 = u[i] == 43 ? 1 : -1
            guard let oh = num(i + 1, 2), oh < 24 else { return nil }
            var om: Int64 = 0
            i += 3
            if i < u.count, u[i] == 58 { i += 1 }  // '+02:00' or '+0200'
            if i < u.count {
                guard let m2 = num(i, 2), m2 < 60 else { return nil }
                om = m2
                i += 2
            }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        }
        guard i == u.count else { return nil }
        let days = daysFromCivil(y, mo, d)
        let total = (days * 86_400 + h * 3600 + mi * 60 + s - offsetSeconds) * 1_000_000 + micros
        return Date(timeIntervalSince1970: Double(total) / 1_000_000)
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    private static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
