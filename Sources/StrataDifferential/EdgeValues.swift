// EdgeValues: the values the generator draws for each column type, edge cases first.
import Foundation
import Strata

/// Draws values of one ``ColumnType``: the boundaries where backends tend to differ, and random ones.
struct EdgeValues {
    /// Whether text may hold U+FFFE and U+FFFF.
    var noncharacters: Bool
    /// Whether queries may hold predicates every backend must refuse (wrong types, unknown columns).
    var mistyped = true
    /// Whether doubles may be ±infinity; without, the largest finite double of that sign stands in.
    var infinities = true
    /// The most integer digits of a decimal; a longer one keeps its last digits.
    var decimalIntegerDigits = 38

    static let integers: [Int64] = [.min, .max, .min + 1, .max - 1, 0, -1, 1, 2, 7, 42, -42, 1 << 53, (1 << 53) + 1]
    static let doubles: [Double] = [
        0, -0.0, 1, -1, 1.5, -2.5, 0.1, 0.2, 0.30000000000000004, 1e300, -1e-300, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
        9_007_199_254_740_992, 9_007_199_254_740_994, 123_456.789, .infinity, -.infinity, 2e299,
        9_223_372_036_854_775_807.0, -9_223_372_036_854_775_808.0,
    ]
    /// Text pieces: ASCII with the LIKE metacharacters, precomposed and combining accents, astral code points.
    static let texts: [String] = [
        "", "a", "A", "b", "ab", "abc", "Abc", "ABC", "z", "Z", "_", "%", "\\", "a_c", "a%c", "a\\c", "a\\%",
        "é", "e\u{301}", "É", "école", "ÉCOLE", "ß", "ſ", "K", "\u{212A}", "日本", "𝄞", "😀x", "\u{FFFD}",
        " ", "a b", "'", "\"", "\u{7F}", "\u{1}", "Ω", "ω", "İ", "ı",
    ]
    static let noncharacterTexts: [String] = ["\u{FFFE}", "\u{FFFF}", "a\u{FFFF}", "\u{FFFE}b"]
    static let decimals: [String] = [
        "0", "1", "-1", "1.5", "1.50", "-0.001", "0.1", "0.2", "0.3", "123456789012345678901234567890",
        "-123456789012345678901234567890", "12345678901234567890.1234567890", "0.000000000000000000000000000001",
        "99999999999999999999999999999.9", "12345678901234567.89", "12345678901234568",
        "12345678901234567890123456789012345678", "-9999999999999999999999999999999999999.9", "2.98", "10",
    ]
    static let uuids: [String] = [
        "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "7fffffff-ffff-ffff-ffff-ffffffffffff", "80000000-0000-0000-0000-000000000000",
        "0a0b0c0d-0e0f-1011-1213-141516171819", "A0B1C2D3-E4F5-4677-8899-AABBCCDDEEFF",
    ]
    /// Microseconds since 1970: pre-1970, the epoch, and either side of it.
    static let dates: [Int64] = [
        0, -1, 1, -1_000_000, 1_000_000, -86_400_000_000, 946_684_800_000_000, 946_684_799_999_999,
        -2_208_988_800_000_000, -2_208_988_799_999_999, 4_102_444_800_000_000, 1_700_000_000_123_456,
        -631_152_000_000_001, 951_782_400_000_000,
    ]
    static let jsons: [String] = [
        "{}", "[]", "null", "0", "1", "-1.5", "true", "false", "\"\"", "\"é\"", "{\"a\":1}",
        "{\"a\":1,\"b\":[true,null]}",
        "[1,2.5,\"x\"]", "{\"k\":{\"n\":\"𝄞\"}}", "[[],{}]",
        // Documents for JSON paths: each scalar type under the same keys, integers past 2^53 and Int64, doubles
        // written with and without a fraction, an object key that reads like an index.
        "{\"a\":\"x\",\"b\":[1,\"1\",false],\"d\":1.0,\"n\":9007199254740993,\"t\":true}",
        "{\"a\":2,\"b\":[2.5,null],\"d\":1,\"n\":-1,\"s\":\"\",\"t\":false}",
        "{\"0\":1,\"a\":1.5,\"d\":-0.5,\"n\":9223372036854775807,\"s\":\"é\",\"t\":null}",
        "{\"a\":true,\"k\":{\"n\":2},\"n\":92233720368547758070,\"s\":\"a\\\"b\"}",
    ]
    static let blobs: [[UInt8]] = [[], [0], [0, 0], [255], [1, 2, 3], [0, 255], [255, 0], [97, 98], [128]]

    /// A non-NULL value of `type`.
    func value(_ type: ColumnType, _ rng: inout SplitMix64) -> DatabaseValue {
        let fresh = rng.chance(0.3)
        switch type {
        case .integer:
            return .integer(fresh ? Int64(bitPattern: rng.next()) >> Int64(rng.below(64)) : rng.pick(Self.integers))
        case .double:
            if fresh {
                let d = Double(bitPattern: rng.next())
                return .double(d.isFinite ? d : Double(Int64(rng.below(2000)) - 1000) / 8)
            }
            let d = rng.pick(Self.doubles)
            if !infinities && d.isInfinite {
                return .double(d < 0 ? -.greatestFiniteMagnitude : .greatestFiniteMagnitude)
            }
            return .double(d)
        case .text:
            return .text(text(&rng))
        case .blob:
            if fresh { return .blob(Data((0..<rng.below(6)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })) }
            return .blob(Data(rng.pick(Self.blobs)))
        case .bool:
            return .bool(rng.chance(0.5))
        case .date:
            let micros =
                fresh
                ? Int64(rng.below(6_000_000)) * 1_000_000_007 - 2_000_000_000_000_000 + Int64(rng.below(1_000_000))
                : rng.pick(Self.dates)
            return .date(Self.date(micros: micros))
        case .decimal:
            let text = Self.limited(fresh ? Self.randomDecimal(&rng) : rng.pick(Self.decimals), decimalIntegerDigits)
            return .decimal(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0)
        case .uuid:
            if fresh {
                var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                bytes[6] = bytes[6] & 0x0F | 0x40
                return .uuid(
                    UUID(
                        uuid: (
                            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
                            bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                        )))
            }
            return .uuid(
                UUID(uuidString: rng.pick(Self.uuids)) ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .json:
            return .json(rng.pick(Self.jsons))
        }
    }

    /// Text made of one to three pieces (NUL never: every driver refuses it).
    func text(_ rng: inout SplitMix64) -> String {
        let pool = noncharacters && rng.chance(0.1) ? Self.noncharacterTexts : Self.texts
        var s = rng.pick(pool)
        for _ in 0..<rng.below(3) { s += rng.pick(Self.texts) }
        return s
    }

    /// A date at exactly `micros` microseconds since 1970.
    static func date(micros: Int64) -> Date {
        DatabaseValue.roundedToMicroseconds(Date(timeIntervalSince1970: Double(micros) / 1_000_000))
    }

    /// A decimal of up to 30 significant digits with a random scale.
    /// `text` with at most `digits` integer digits: a longer integer part keeps its last `digits`.
    static func limited(_ text: String, _ digits: Int) -> String {
        let sign = text.hasPrefix("-") ? "-" : ""
        let body = text.dropFirst(sign.count)
        let whole = body.prefix { $0 != "." }
        guard whole.count > digits else { return text }
        return sign + String(whole.suffix(max(1, digits))) + body.dropFirst(whole.count)
    }

    static func randomDecimal(_ rng: inout SplitMix64) -> String {
        let digits = 1 + rng.below(30)
        var s = rng.chance(0.3) ? "-" : ""
        var body = ""
        for i in 0..<digits { body += String(i == 0 ? 1 + rng.below(9) : rng.below(10)) }
        let scale = rng.below(digits + 1)
        if scale == 0 { return s + body }
        let cut = body.index(body.endIndex, offsetBy: -scale)
        let whole = body[..<cut]
        s += (whole.isEmpty ? "0" : String(whole)) + "." + body[cut...]
        return s
    }
}
