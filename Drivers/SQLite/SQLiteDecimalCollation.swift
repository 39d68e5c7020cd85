// SQLiteDecimalCollation: compares Decimal columns (stored as exact text) as numbers, on every connection.
import CSQLite
import Foundation

/// The `strata_decimal` collation: decimal text compares by numeric value (`"9.5" < "10"`, `"1.0" = "1.00"`).
///
/// Decimal columns declare it, so `=`, `<`, `ORDER BY` and unique indexes on them agree with PostgreSQL's
/// `numeric` and the memory driver. Text that is not a number sorts after every number, bytewise.
enum SQLiteDecimalCollation {
    static let name = "strata_decimal"

    static func register(on db: OpaquePointer) {
        sqlite3_create_collation_v2(db, name, SQLITE_UTF8, nil, compare, nil)
    }

    private static let compare:
        @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?)
            -> Int32 = { _, lengthA, a, lengthB, b in
                let textA = text(a, lengthA)
                let textB = text(b, lengthB)
                let posix = Locale(identifier: "en_US_POSIX")
                switch (Decimal(string: textA, locale: posix), Decimal(string: textB, locale: posix)) {
                case (let x?, let y?): return x < y ? -1 : (x == y ? 0 : 1)
                case (.some, nil): return -1
                case (nil, .some): return 1
                case (nil, nil):
                    if textA.utf8.elementsEqual(textB.utf8) { return 0 }
                    return textA.utf8.lexicographicallyPrecedes(textB.utf8) ? -1 : 1
                }
            }

    private static func text(_ p: UnsafeRawPointer?, _ length: Int32) -> String {
        guard let p, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: Int(length)), as: UTF8.self)
    }
}
