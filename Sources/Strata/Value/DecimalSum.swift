// DecimalSum: an exact running sum of decimals whose partial sums may pass 38 significant digits.
import Foundation

/// An exact running sum of `Decimal`s, as PostgreSQL's `numeric` keeps one: only the total is held to
/// ``DecimalDigits/limit``. The sum stays in a `Decimal` while every partial sum fits in 38 significant digits,
/// and moves to a ``WideDecimal`` the first time one does not, so `x + (-10^29) + 10^29` is `x` on every driver
/// rather than an error for the value on the way.
package struct DecimalSum: Sendable {
    private var total = Decimal(0)
    private var wide: WideDecimal?

    package init() {}

    /// Adds one value exactly (a NaN makes the sum NaN).
    package mutating func add(_ d: Decimal) {
        if wide != nil {
            wide?.add(d)
        } else {
            wide = Self.add(d, to: &total)
        }
    }

    /// The fast path of a sum held as a `Decimal` (also SQLite's, whose aggregate context holds one): `total + d`
    /// into `total` when it fits in 38 significant digits, else `total` unchanged and the exact sum returned.
    package static func add(_ d: Decimal, to total: inout Decimal) -> WideDecimal? {
        if let sum = DecimalDigits.add(total, d) {
            total = sum
            return nil
        }
        var wide = WideDecimal(total)
        wide.add(d)
        return wide
    }

    /// The sum, or `Decimal.nan` when it needs more than 38 significant digits (or is NaN).
    package var value: Decimal { wide.map { $0.decimal ?? .nan } ?? total }

    /// The nearest double to the exact sum.
    package var double: Double { wide?.double ?? AggregateNumber.double(total) }
}

/// An exact decimal of any size: ±magnitude × 10^exponent, the magnitude in base-10^18 limbs, least significant
/// first, without leading zero limbs (zero is no limbs). A `Decimal` spans exponents -128…127 with 38 digits, so
/// a sum of them needs at most about 300 digits: seventeen limbs.
package struct WideDecimal: Sendable {
    private static let base: UInt64 = 1_000_000_000_000_000_000
    private var negative = false
    private var limbs: [UInt64] = []
    private var exponent = 0
    private var isNaN = false

    package init(_ d: Decimal) { add(d) }

    /// Adds `d` exactly.
    package mutating func add(_ d: Decimal) {
        if isNaN { return }
        guard !d.isNaN, let (sign, digits, power) = Self.parts(of: d.description) else {
            isNaN = true
            return
        }
        if digits.isEmpty { return }
        var other = Self.limbs(of: digits)
        if limbs.isEmpty {
            (negative, limbs, exponent) = (sign, other, power)
            return
        }
        if power < exponent {
            Self.scale(&limbs, by: exponent - power)
            exponent = power
        } else if power > exponent {
            Self.scale(&other, by: power - exponent)
        }
        if sign == negative {
            Self.add(&limbs, other)
            return
        }
        switch Self.compare(limbs, other) {
        case 0: limbs = []
        case 1: Self.subtract(&limbs, other)
        default:
            Self.subtract(&other, limbs)
            (negative, limbs) = (sign, other)
        }
    }

    /// The value as `Decimal`, or nil when it needs more than 38 significant digits (or a `Decimal`'s exponent
    /// cannot hold it, or it is NaN).
    package var decimal: Decimal? {
        if isNaN { return nil }
        guard let (text, digits) = scientific else { return Decimal(0) }
        guard digits <= DecimalDigits.limit else { return nil }
        return AggregateNumber.decimal(text)
    }

    /// The nearest double (`Double(String)` rounds correctly).
    package var double: Double {
        if isNaN { return .nan }
        guard let (text, _) = scientific else { return 0 }
        return Double(text) ?? .nan
    }

    /// `-1234e-7`: the significant digits and the power of ten, with their count; nil for zero.
    private var scientific: (text: String, digits: Int)? {
        guard let top = limbs.last else { return nil }
        var text = String(top)
        for limb in limbs.dropLast().reversed() {
            let part = String(limb)
            text += String(repeating: "0", count: 18 - part.count) + part
        }
        var power = exponent
        while text.hasSuffix("0") {
            text.removeLast()
            power += 1
        }
        let digits = text.count
        return ((negative ? "-" : "") + text + "e" + String(power), digits)
    }

    /// A decimal's text (`-0.0120`, `1e5`) as its sign, its digits without leading or trailing zeros (empty for
    /// zero) and the power of ten they are multiplied by; nil for text that is not a decimal.
    private static func parts(of text: String) -> (negative: Bool, digits: [UInt8], power: Int)? {
        var negative = false
        var digits: [UInt8] = []
        var fraction = 0
        var seenPoint = false
        var power = 0
        var bytes = text.utf8[...]
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") {
            negative = bytes.first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        while let u = bytes.first {
            bytes = bytes.dropFirst()
            switch u {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if !(digits.isEmpty && u == UInt8(ascii: "0")) { digits.append(u - UInt8(ascii: "0")) }
                if seenPoint { fraction += 1 }
            case UInt8(ascii: "."):
                guard !seenPoint else { return nil }
                seenPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard let p = Int(String(decoding: bytes, as: UTF8.self)) else { return nil }
                power = p
                bytes = bytes[bytes.endIndex...]
            default: return nil
            }
        }
        power -= fraction
        while digits.last == 0 {
            digits.removeLast()
            power += 1
        }
        return (negative, digits, power)
    }

    /// Decimal digits (most significant first) as limbs.
    private static func limbs(of digits: [UInt8]) -> [UInt64] {
        var limbs: [UInt64] = []
        limbs.reserveCapacity(digits.count / 18 + 1)
        var end = digits.count
        while end > 0 {
            let start = max(0, end - 18)
            var limb: UInt64 = 0
            for d in digits[start..<end] { limb = limb * 10 + UInt64(d) }
            limbs.append(limb)
            end = start
        }
        return limbs
    }

    /// Multiplies a magnitude by 10^k.
    private static func scale(_ limbs: inout [UInt64], by k: Int) {
        var k = k
        if k >= 18 {
            limbs.insert(contentsOf: repeatElement(0, count: k / 18), at: 0)
            k %= 18
        }
        guard k > 0 else { return }
        var factor: UInt64 = 1
        for _ in 0..<k { factor *= 10 }
        var carry: UInt64 = 0
        for i in limbs.indices {
            let product = limbs[i].multipliedFullWidth(by: factor)
            let (low, overflow) = product.low.addingReportingOverflow(carry)
            let (q, r) = base.dividingFullWidth((product.high + (overflow ? 1 : 0), low))
            limbs[i] = r
            carry = q
        }
        if carry > 0 { limbs.append(carry) }
    }

    /// `a += b` for magnitudes.
    private static func add(_ a: inout [UInt64], _ b: [UInt64]) {
        if a.count < b.count { a.append(contentsOf: repeatElement(0, count: b.count - a.count)) }
        var carry: UInt64 = 0
        for i in a.indices {
            let sum = a[i] + (i < b.count ? b[i] : 0) + carry
            (a[i], carry) = sum >= base ? (sum - base, 1) : (sum, 0)
            if carry == 0 && i >= b.count { break }
        }
        if carry > 0 { a.append(carry) }
    }

    /// `a -= b` for magnitudes with `a > b`.
    private static func subtract(_ a: inout [UInt64], _ b: [UInt64]) {
        var borrow: UInt64 = 0
        for i in a.indices {
            let s = (i < b.count ? b[i] : 0) + borrow
            (a[i], borrow) = a[i] >= s ? (a[i] - s, 0) : (a[i] + base - s, 1)
            if borrow == 0 && i >= b.count { break }
        }
        while a.last == 0 { a.removeLast() }
    }

    /// -1, 0 or 1 as the magnitude `a` is less than, equal to or greater than `b`.
    private static func compare(_ a: [UInt64], _ b: [UInt64]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for i in a.indices.reversed() where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
        return 0
    }
}
