// SQLiteDecimalSum: `strata_decimal_sum`, an exact SUM over Decimal columns (stored as text), on every connection.
import CSQLite
import Foundation
import Strata

/// SQLite's own `SUM` reads decimal text as a double (`0.1 + 0.2` ≠ `0.3`, 18 digits lost); this aggregate adds
/// the values as `Decimal`s, as PostgreSQL's `numeric` and the memory driver do, and returns the exact text.
/// NULLs are skipped; no values give NULL; a value that is not a decimal is an error; a sum past 38 significant
/// digits is the text `NaN` (``DecimalDigits``), though a partial sum may pass them on the way (``SQLiteWideSum``). `strata_decimal_check(sum)`, HAVING's guard on such a sum
/// (``SQLiteDialect/decimalSumGuard(_:)``), is 1, or fails the statement with an arithmetic error for `NaN`.
enum SQLiteDecimalSum {
    static let name = "strata_decimal_sum"
    /// The guard HAVING reads each decimal sum through.
    static let checkName = "strata_decimal_check"

    static func register(on db: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        // A window function too (a running decimal sum): Strata's frames never drop a row, so the inverse only
        // marks the sum invalid.
        sqlite3_create_window_function(db, name, 1, flags, nil, step, final, value, inverse, nil)
        sqlite3_create_function_v2(db, checkName, 1, flags, nil, check, nil, nil, nil)
    }

    /// 1 for a sum within 38 digits (or NULL); the arithmetic error ``SQLiteErrors`` maps for `NaN`.
    private static let check: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        { ctx, argc, argv in
            guard let ctx, let argv, argc == 1, let value = argv[0] else { return }
            if sqlite3_value_type(value) == SQLITE_TEXT, sqlite3_value_bytes(value) == 3,
                let text = sqlite3_value_text(value), text[0] == UInt8(ascii: "N"), text[1] == UInt8(ascii: "a"),
                text[2] == UInt8(ascii: "N")
            {
                return sqlite3_result_error(ctx, SQLiteArithmetic.errorPrefix + DecimalDigits.pastLimit, -1)
            }
            sqlite3_result_int64(ctx, 1)
        }

    /// The running state, in SQLite's zero-filled aggregate context (all zero bits: no values, a zero sum).
    private struct Accumulator {
        var sum: Decimal
        var count: Int64
        var invalid: Bool
        /// The exact sum once a partial sum passed 38 significant digits (``SQLiteWideSum``).
        var wide: Unmanaged<SQLiteWideSum>?
    }

    private static func accumulator(_ ctx: OpaquePointer, create: Bool) -> UnsafeMutablePointer<Accumulator>? {
        let size = create ? Int32(MemoryLayout<Accumulator>.stride) : 0
        return sqlite3_aggregate_context(ctx, size)?.bindMemory(to: Accumulator.self, capacity: 1)
    }

    private static let step: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
        ctx, _, argv in
        guard let ctx, let argv, let value = argv[0] else { return }
        guard let acc = accumulator(ctx, create: true) else { return sqlite3_result_error_nomem(ctx) }
        let type = sqlite3_value_type(value)
        if type == SQLITE_NULL { return }
        let d: Decimal?
        switch type {
        case SQLITE_INTEGER: d = Decimal(sqlite3_value_int64(value))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(value))
            let text = sqlite3_value_text(value).map {
                String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
            }
            d = text.flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
        default: d = nil
        }
        guard let d else {
            acc.pointee.invalid = true
            return
        }
        acc.pointee.count += 1
        SQLiteWideSum.add(d, to: &acc.pointee.sum, wide: &acc.pointee.wide)
    }

    private static let inverse: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        {
            ctx, _, _ in
            guard let ctx, let acc = accumulator(ctx, create: true) else { return }
            acc.pointee.invalid = true
        }

    /// A window's running value: the sum so far.
    private static let value: @convention(c) (OpaquePointer?) -> Void = { ctx in
        guard let ctx else { return }
        result(ctx, accumulator(ctx, create: false))
    }

    /// The sum, and the release of its wide part.
    private static let final: @convention(c) (OpaquePointer?) -> Void = { ctx in
        guard let ctx else { return }
        let acc = accumulator(ctx, create: false)
        result(ctx, acc)
        if let acc { SQLiteWideSum.release(&acc.pointee.wide) }
    }

    private static func result(_ ctx: OpaquePointer, _ acc: UnsafeMutablePointer<Accumulator>?) {
        guard let acc, acc.pointee.count > 0 || acc.pointee.invalid else { return sqlite3_result_null(ctx) }
        if acc.pointee.invalid { return sqlite3_result_error(ctx, "strata_decimal_sum: a value is not a decimal", -1) }
        // Past 38 significant digits: NaN, which the aggregate's decoding reports as an arithmetic error.
        let sum = SQLiteWideSum.value(acc.pointee.sum, acc.pointee.wide)
        let text = sum.isNaN ? "NaN" : sum.description
        sqlite3_result_text(ctx, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }
}
