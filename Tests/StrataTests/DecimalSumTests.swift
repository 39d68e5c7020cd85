// DecimalSumTests: exact decimal sums whose partial sums pass 38 significant digits.
import Foundation
import Testing

@testable import Strata

@Suite("Decimal sums past 38 digits on the way")
struct DecimalSumTests {
    private func dec(_ text: String) -> Decimal {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
    }

    @Test("a partial sum past 38 digits comes back to the exact total (fuzz seed 1981972441)")
    func fuzzCase() {
        let x = dec("52323863884.3797783103250637441")
        let big = dec("123456789012345678901234567890")
        var sum = DecimalSum()
        for d in [x, -big, big] { sum.add(d) }
        #expect(sum.value == x)
        #expect(sum.double == Double("52323863884.3797783103250637441"))
        sum.add(dec("0.1"))
        #expect(sum.value == dec("52323863884.4797783103250637441"))
        sum.add(-big)
        #expect(sum.value.isNaN, "a total of 49 digits is past the limit")
        #expect(sum.double == Double("-123456789012345678848910704005.5202216896749362559"))
    }

    @Test("the extremes of Decimal's exponents add exactly")
    func extremes() {
        var wide = WideDecimal(dec("1e127"))
        wide.add(dec("1e-128"))
        #expect(wide.decimal == nil, "256 significant digits")
        #expect(wide.double == 1e127)
        wide.add(dec("-1e127"))
        #expect(wide.decimal == dec("1e-128"))
        wide.add(dec("-1e-128"))
        #expect(wide.decimal == 0)
        #expect(wide.double == 0)
        wide.add(dec("-0.5"))
        #expect(wide.decimal == dec("-0.5"))
        wide.add(.nan)
        #expect(wide.decimal == nil)
        #expect(wide.double.isNaN)
    }

    @Test("random sums equal the exact sum in 128-bit integers, in any order")
    func random() {
        var generator = SplitMix(seed: 0x5EED_DEC1)
        for round in 0..<300 {
            let count = Int(generator.next() % 40) + 1
            var values: [(digits: Int64, power: Int)] = []
            for _ in 0..<count {
                let magnitude = Int64(generator.next() % 1_000_000_000_000)
                let sign: Int64 = generator.next() % 2 == 0 ? 1 : -1
                values.append((sign * magnitude, Int(generator.next() % 17) - 8))
            }
            // The oracle: every value as an integer number of 10^-8, summed in 128 bits.
            var exact: Int128 = 0
            for v in values {
                var scaled = Int128(v.digits)
                for _ in 0..<(v.power + 8) { scaled *= 10 }
                exact += scaled
            }
            let expected = dec(String(exact) + "e-8")
            let decimals = values.map { dec(String($0.digits) + "e" + String($0.power)) }
            var wide = WideDecimal(0)
            for d in decimals { wide.add(d) }
            var backwards = DecimalSum()
            for d in decimals.reversed() { backwards.add(d) }
            #expect(wide.decimal == expected, "round \(round)")
            #expect(backwards.value == expected, "round \(round), backwards")
            #expect(wide.double == Double(String(exact) + "e-8"), "round \(round), as a double")
        }
    }
}

/// A small seeded generator (SplitMix64), so a failure repeats (shared by the tests of this target that generate
/// inputs).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
