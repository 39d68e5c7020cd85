// DecimalText: strict parsing of decimal text, and the shortest decimal that round-trips a stored double.
import Foundation

/// Reads decimals from the text and floating-point forms other tools store them in.
///
/// Text must be a plain decimal number: an optional sign, digits with an optional fraction, an optional
/// exponent (`-12.50`, `1e-7`, `.5` is refused, as are `0,99`, `0.99 EUR`, `1 000` and empty text).
/// A double (SQLite REAL, PostgreSQL `double precision`, as Django and Rails write decimals there) reads
/// as the shortest decimal that turns back into the same double: `0.99`, not `0.98999999999999999`.
public enum DecimalText {
    /// The decimal `text` spells, or nil when it is not a plain decimal number.
    public static func parse(_ text: String) -> Decimal? {
        guard isPlainNumber(text) else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// The shortest decimal that round-trips `double`, or nil for NaN and the infinities.
    public static func decimal(from double: Double) -> Decimal? {
        guard double.isFinite else { return nil }
        // Swift's description of a Double is the shortest text that reads back as the same Double.
        return parse(double == 0 ? "0" : "\(double)")
    }

    private static func isPlainNumber(_ text: String) -> Bool {
        var u = Substring(text).utf8[...]
        if let c = u.first, c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { u = u.dropFirst() }
        func digits() -> Int {
            var n = 0
            while let c = u.first, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") {
                u = u.dropFirst()
                n += 1
            }
            return n
        }
        guard digits() > 0 else { return false }
        if u.first == UInt8(ascii: ".") {
            u = u.dropFirst()
            guard digits() > 0 else { return false }
        }
        if let c = u.first, c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            u = u.dropFirst()
            if let s = u.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { u = u.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return u.isEmpty
    }
}
