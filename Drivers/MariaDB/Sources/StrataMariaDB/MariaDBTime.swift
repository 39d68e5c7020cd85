// MariaDBTime: a Date as a UTC MYSQL_TIME to the microsecond, and back, without a Calendar.
import CMariaDB
import Foundation

enum MariaDBTime {
    /// The UTC date and time of `date`, rounded to the microsecond.
    static func time(of date: Date) -> MYSQL_TIME {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let (seconds, fraction) = floorDivide(micros, 1_000_000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        var t = MYSQL_TIME()
        t.year = UInt32(clamping: year)
        t.month = UInt32(month)
        t.day = UInt32(day)
        t.hour = UInt32(secondOfDay / 3600)
        t.minute = UInt32(secondOfDay % 3600 / 60)
        t.second = UInt32(secondOfDay % 60)
        t.second_part = UInt(fraction)
        t.time_type = MYSQL_TIMESTAMP_DATETIME
        return t
    }

    /// The instant a UTC MYSQL_TIME names (a DATE reads as its midnight).
    static func date(of t: MYSQL_TIME) -> Date {
        let days = self.days(fromCivil: Int64(t.year), Int64(t.month), Int64(t.day))
        let seconds = days * 86_400 + Int64(t.hour) * 3600 + Int64(t.minute) * 60 + Int64(t.second)
        let micros = seconds * 1_000_000 + Int64(t.second_part)
        return Date(timeIntervalSince1970: Double(micros) / 1_000_000)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    /// Year, month and day of the proleptic Gregorian calendar for days since 1970-01-01 (H. Hinnant's algorithm).
    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    private static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
