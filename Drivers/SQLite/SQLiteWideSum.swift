// SQLiteWideSum: a decimal aggregate's exact sum once a partial sum passes 38 significant digits.
import Foundation
import Strata

/// The part of a decimal sum or average that SQLite's zero-filled aggregate context cannot hold: the exact
/// ``WideDecimal`` a sum becomes the first time a partial sum needs more than 38 significant digits (rare; the
/// common path stays a `Decimal` in the context). The context keeps it as a retained reference, nil (zero bits)
/// until then, which the function's final call releases (SQLite calls it for every context a step created, an
/// error or a reset included); a window's value calls only read it.
final class SQLiteWideSum {
    private var sum: WideDecimal

    private init(_ sum: WideDecimal) { self.sum = sum }

    /// Adds `d` to the sum held in `decimal`, or in `wide` once a partial sum has passed 38 digits.
    static func add(_ d: Decimal, to decimal: inout Decimal, wide: inout Unmanaged<SQLiteWideSum>?) {
        if let wide {
            wide.takeUnretainedValue().sum.add(d)
        } else if let sum = DecimalSum.add(d, to: &decimal) {
            wide = Unmanaged.passRetained(SQLiteWideSum(sum))
        }
    }

    /// The exact sum, or `Decimal.nan` past 38 significant digits.
    static func value(_ decimal: Decimal, _ wide: Unmanaged<SQLiteWideSum>?) -> Decimal {
        guard let wide else { return decimal }
        return wide.takeUnretainedValue().sum.decimal ?? .nan
    }

    /// The nearest double to the exact sum.
    static func double(_ decimal: Decimal, _ wide: Unmanaged<SQLiteWideSum>?) -> Double {
        guard let wide else { return AggregateNumber.double(decimal) }
        return wide.takeUnretainedValue().sum.double
    }

    /// Releases the wide sum, if there is one (the final call).
    static func release(_ wide: inout Unmanaged<SQLiteWideSum>?) {
        wide?.release()
        wide = nil
    }
}
