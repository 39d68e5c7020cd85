// DecimalDigits: the 38 significant digits a Decimal holds, and sums that stay within them or say so.
import Foundation

/// Strata's decimal limit: 38 significant digits (Foundation's `Decimal`), counted from the first non-zero digit
/// to the last. A sum whose exact value needs more is NaN here, and ``StrataError/arithmeticError(expression:reason:)``
/// once an aggregate decodes it, on every driver (PostgreSQL's `numeric` would keep them all). A driver whose
/// backend hands decimals back as text (MariaDB's `DECIMAL(65,30)`) reads one past ``limit`` as `Decimal.nan`.
public enum DecimalDigits {
    /// The most significant digits a decimal result may have.
    public static let limit = 38

    /// The reason in the arithmetic error for a result past ``limit``.
    package static let pastLimit = "decimal out of range: more than 38 significant digits"

    /// The significant digits of a decimal's text (`-0.00120` has 2), ignoring sign, point and exponent.
    public static func count(_ text: some StringProtocol) -> Int {
        var first: Int?
        var last = 0
        var position = 0
        for u in text.utf8 {
            if u == UInt8(ascii: "e") || u == UInt8(ascii: "E") { break }
            guard u >= UInt8(ascii: "0"), u <= UInt8(ascii: "9") else { continue }
            if u != UInt8(ascii: "0") {
                if first == nil { first = position }
                last = position
            }
            position += 1
        }
        guard let first else { return 0 }
        return last - first + 1
    }

    /// `a + b` exactly, or nil when the exact sum needs more than ``limit`` digits.
    package static func add(_ a: Decimal, _ b: Decimal) -> Decimal? {
        var result = Decimal()
        var x = a
        var y = b
        guard NSDecimalAdd(&result, &x, &y, .plain) == .noError, count(result.description) <= limit else {
            return nil
        }
        return result
    }
}
