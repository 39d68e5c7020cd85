// SQLiteNumbers: the sums, averages and mixed comparison that make SQLite follow Strata's numeric rules.
import CSQLite
import Foundation
import Strata

/// Functions registered on every connection, which the SQLite dialect renders (README: numeric rules).
///
/// - `strata_int_sum(n)` sums integers in 128 bits, so only the total must fit Int64 (SQLite's SUM fails when a
///   running total passes it); a total past Int64 is a marker that `strata_int_value(…)` turns into an arithmetic
///   error where the sum is used, so a group HAVING drops does not fail the query (as on PostgreSQL).
/// - `strata_double_sum(x)` adds in row order with PostgreSQL's float8 overflow check; NaN is NULL.
/// - `strata_int_avg`, `strata_double_avg`, `strata_decimal_avg`: the exact sum read as the nearest double,
///   divided by the count (PostgreSQL's `CAST(SUM(x) AS DOUBLE PRECISION) / COUNT(x)`).
/// - `strata_compare(a, b)`: -1, 0, 1 or NULL; an integer against a double compares as two doubles.
enum SQLiteNumbers {
    static let compareName = "strata_compare"
    static let intValueName = "strata_int_value"
    /// The text a 128-bit integer sum past Int64 ends as, until `strata_int_value` reads it.
    private static let pastInt64 = "strata: integer sum past Int64"

    private enum Mode: Int, CaseIterable {
        case intSum = 1, intAvg, doubleSum, doubleAvg, decimalAvg

        var name: String {
            switch self {
            case .intSum: "strata_int_sum"
            case .intAvg: "strata_int_avg"
            case .doubleSum: "strata_double_sum"
            case .doubleAvg: "strata_double_avg"
            case .decimalAvg: "strata_decimal_avg"
            }
        }
    }

    static func register(on db: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        for mode in Mode.allCases {
            // Window functions too (a running sum or average): the value so far is the final value of the rows
            // stepped; Strata's frames never drop a row, so the inverse only reports that one did.
            sqlite3_create_window_function(
                db, mode.name, 1, flags, UnsafeMutableRawPointer(bitPattern: mode.rawValue), step, final, value,
                inverse, nil)
        }
        sqlite3_create_function_v2(db, intValueName, 1, flags, nil, intValue, nil, nil, nil)
        sqlite3_create_function_v2(db, compareName, 2, flags, nil, compare, nil, nil, nil)
    }

    /// The aggregate call the dialect renders for `function` over a column of `type`, or nil for SQLite's own.
    static func call(_ function: Aggregate.Function, over type: ColumnType?, argument: String, window: String)
        -> String?
    {
        let mode: Mode
        switch (function, type) {
        case (.sum, .integer?): return intValueName + "(" + Mode.intSum.name + "(" + argument + ")" + window + ")"
        case (.sum, .double?): mode = .doubleSum
        case (.avg, .integer?): mode = .intAvg
        case (.avg, .double?): mode = .doubleAvg
        case (.avg, .decimal?): mode = .decimalAvg
        default: return nil
        }
        return mode.name + "(" + argument + ")" + window
    }

    /// The running state, in SQLite's zero-filled, 8-byte aligned aggregate context.
    private struct Accumulator {
        var high: Int64  // the 128-bit integer total, in two halves (Int128 wants 16-byte alignment)
        var low: UInt64
        var double: Double
        var decimal: Decimal
        var count: Int64
        var failure: Int32  // 0 none, 1 not a number, 2 double overflow, 3 a frame dropped a row
        var wide: Unmanaged<SQLiteWideSum>?  // a decimal sum once a partial sum passed 38 digits

        var integer: Int128 {
            get { Int128(high) << 64 | Int128(low) }
            set {
                high = Int64(truncatingIfNeeded: newValue >> 64)
                low = UInt64(truncatingIfNeeded: newValue)
            }
        }
    }

    private static func accumulator(_ ctx: OpaquePointer, create: Bool) -> UnsafeMutablePointer<Accumulator>? {
        let size = create ? Int32(MemoryLayout<Accumulator>.stride) : 0
        return sqlite3_aggregate_context(ctx, size)?.bindMemory(to: Accumulator.self, capacity: 1)
    }

    private static func mode(_ ctx: OpaquePointer) -> Mode? { Mode(rawValue: Int(bitPattern: sqlite3_user_data(ctx))) }

    private static let step: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
        ctx, _, argv in
        guard let ctx, let argv, let value = argv[0], let mode = mode(ctx) else { return }
        guard let acc = accumulator(ctx, create: true) else { return sqlite3_result_error_nomem(ctx) }
        let type = sqlite3_value_type(value)
        if type == SQLITE_NULL || acc.pointee.failure != 0 { return }
        acc.pointee.count += 1
        switch mode {
        case .intSum, .intAvg:
            guard type == SQLITE_INTEGER else { return acc.pointee.failure = 1 }
            acc.pointee.integer += Int128(sqlite3_value_int64(value))
        case .doubleSum, .doubleAvg:
            guard type == SQLITE_INTEGER || type == SQLITE_FLOAT else { return acc.pointee.failure = 1 }
            switch CheckedArithmetic.double(.add, acc.pointee.double, sqlite3_value_double(value)) {
            case .success(let r): acc.pointee.double = r
            case .failure: acc.pointee.failure = 2
            }
        case .decimalAvg:
            let d: Decimal?
            switch type {
            case SQLITE_INTEGER: d = Decimal(sqlite3_value_int64(value))
            case SQLITE_TEXT: d = text(value).flatMap { AggregateNumber.decimal($0) }
            default: d = nil
            }
            guard let d else { return acc.pointee.failure = 1 }
            SQLiteWideSum.add(d, to: &acc.pointee.decimal, wide: &acc.pointee.wide)
        }
    }

    /// A window's running value: the result of the rows stepped so far.
    private static let value: @convention(c) (OpaquePointer?) -> Void = { ctx in
        guard let ctx, let mode = mode(ctx) else { return }
        result(ctx, mode, accumulator(ctx, create: false))
    }

    /// The result, and the release of a decimal sum's wide part.
    private static let final: @convention(c) (OpaquePointer?) -> Void = { ctx in
        guard let ctx, let mode = mode(ctx) else { return }
        let acc = accumulator(ctx, create: false)
        result(ctx, mode, acc)
        if let acc { SQLiteWideSum.release(&acc.pointee.wide) }
    }

    private static func result(_ ctx: OpaquePointer, _ mode: Mode, _ acc: UnsafeMutablePointer<Accumulator>?) {
        guard let acc, acc.pointee.count > 0 else { return sqlite3_result_null(ctx) }
        switch acc.pointee.failure {
        case 1: return sqlite3_result_error(ctx, SQLiteArithmetic.typeErrorPrefix + "\(mode.name) needs numbers", -1)
        case 2:
            return sqlite3_result_error(
                ctx, SQLiteArithmetic.errorPrefix + CheckedArithmetic.doubleOverflow.reason, -1)
        case 3: return sqlite3_result_error(ctx, "\(mode.name): a window frame that drops rows", -1)
        default: break
        }
        let total: Double
        switch mode {
        case .intSum:
            if let sum = Int64(exactly: acc.pointee.integer) { return sqlite3_result_int64(ctx, sum) }
            return sqlite3_result_text(ctx, pastInt64, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        case .doubleSum: return sqlite3_result_double(ctx, acc.pointee.double)  // NaN becomes NULL
        case .intAvg: total = Double(acc.pointee.integer)
        case .doubleAvg: total = acc.pointee.double
        case .decimalAvg: total = SQLiteWideSum.double(acc.pointee.decimal, acc.pointee.wide)
        }
        switch CheckedArithmetic.double(.divide, total, Double(acc.pointee.count)) {
        case .success(let r): sqlite3_result_double(ctx, r)
        case .failure(let f): sqlite3_result_error(ctx, SQLiteArithmetic.errorPrefix + f.reason, -1)
        }
    }

    /// A window frame dropped a row: Strata writes none that do, so this is only reported.
    private static let inverse: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        {
            ctx, _, _ in
            guard let ctx, let acc = accumulator(ctx, create: true) else { return }
            acc.pointee.failure = 3
        }

    /// `strata_int_value(sum)`: the sum, or an arithmetic error for a total past Int64.
    private static let intValue: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        { ctx, _, argv in
            guard let ctx, let argv, let value = argv[0] else { return }
            if sqlite3_value_type(value) == SQLITE_TEXT, text(value) == pastInt64 {
                return sqlite3_result_error(ctx, SQLiteArithmetic.errorPrefix + "integer overflow: past Int64", -1)
            }
            sqlite3_result_value(ctx, value)
        }

    /// `strata_compare(a, b)`: NULL when either is NULL; numbers numerically (an integer and a double as two
    /// doubles, decimal text exactly against an integer); otherwise SQLite's class order, text bytewise.
    private static let compare: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        { ctx, _, argv in
            guard let ctx, let argv, let a = argv[0], let b = argv[1] else { return }
            let ta = sqlite3_value_type(a)
            let tb = sqlite3_value_type(b)
            if ta == SQLITE_NULL || tb == SQLITE_NULL { return sqlite3_result_null(ctx) }
            sqlite3_result_int(ctx, Int32(order(a, ta, b, tb)))
        }

    private static func order(_ a: OpaquePointer, _ ta: Int32, _ b: OpaquePointer, _ tb: Int32) -> Int {
        let numbers: Set<Int32> = [SQLITE_INTEGER, SQLITE_FLOAT]
        switch (numbers.contains(ta), numbers.contains(tb)) {
        case (true, true):
            if ta == SQLITE_INTEGER && tb == SQLITE_INTEGER {
                return sign(sqlite3_value_int64(a), sqlite3_value_int64(b))
            }
            return sign(sqlite3_value_double(a), sqlite3_value_double(b))
        case (true, false): return tb == SQLITE_TEXT ? numberAgainstText(a, ta, b) : -1
        case (false, true): return ta == SQLITE_TEXT ? -numberAgainstText(b, tb, a) : 1
        case (false, false):
            if ta != tb { return ta == SQLITE_TEXT ? -1 : 1 }
            let x = bytes(a, ta == SQLITE_TEXT)
            let y = bytes(b, tb == SQLITE_TEXT)
            return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
        }
    }

    /// A number against text: against the decimal it spells (an integer exactly, a double as doubles), or
    /// before text that is not a number.
    private static func numberAgainstText(_ n: OpaquePointer, _ tn: Int32, _ t: OpaquePointer) -> Int {
        guard let s = text(t), let d = AggregateNumber.decimal(s) else { return -1 }
        if tn == SQLITE_INTEGER {
            let x = Decimal(sqlite3_value_int64(n))
            return x < d ? -1 : (x == d ? 0 : 1)
        }
        return sign(sqlite3_value_double(n), AggregateNumber.double(d))
    }

    private static func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }

    private static func text(_ value: OpaquePointer) -> String? {
        let count = Int(sqlite3_value_bytes(value))
        return sqlite3_value_text(value).map {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    private static func bytes(_ value: OpaquePointer, _ isText: Bool) -> [UInt8] {
        let pointer = isText ? UnsafeRawPointer(sqlite3_value_text(value)) : sqlite3_value_blob(value)
        let count = Int(sqlite3_value_bytes(value))
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
