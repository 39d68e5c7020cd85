// FuzzInput: reads typed choices (integers, strings, values) from a libFuzzer input, front to back.
import Foundation
import Strata

/// A cursor over the fuzz bytes; once they run out every read returns zero or empty, so any input
/// maps to one deterministic case.
public struct FuzzInput {
    /// The whole input.
    public let bytes: [UInt8]
    private var position = 0

    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    }

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether all bytes were read.
    public var isExhausted: Bool { position >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A number in `0..<bound` (bound ≥ 1).
    public mutating func choose(_ bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        let raw = bound <= 256 ? Int(byte()) : Int(byte()) << 8 | Int(byte())
        return raw % bound
    }

    public mutating func pick<T>(_ options: [T]) -> T { options[choose(options.count)] }

    public mutating func int64() -> Int64 {
        var v: UInt64 = 0
        for _ in 0..<8 { v = v << 8 | UInt64(byte()) }
        return Int64(bitPattern: v)
    }

    /// An integer that is often an edge case (0, ±1, the extremes) and otherwise any Int64.
    public mutating func interestingInt64() -> Int64 {
        switch choose(8) {
        case 0: return 0
        case 1: return 1
        case 2: return -1
        case 3: return .max
        case 4: return .min
        case 5: return Int64(Int8(bitPattern: byte()))
        default: return int64()
        }
    }

    public mutating func double() -> Double {
        switch choose(8) {
        case 0: return 0
        case 1: return -0.0
        case 2: return .infinity
        case 3: return -.infinity
        case 4: return .nan
        case 5: return Double(Int8(bitPattern: byte())) / 4
        default: return Double(bitPattern: UInt64(bitPattern: int64()))
        }
    }

    /// Raw bytes, up to `max` of them.
    public mutating func data(max: Int = 32) -> [UInt8] {
        let count = choose(max + 1)
        return (0..<count).map { _ in byte() }
    }

    /// A string of up to `max` Unicode scalars drawn mostly from characters that matter to SQL and
    /// Unicode handling (quotes, NUL, combining marks, noncharacters), decoded leniently.
    public mutating func string(max: Int = 16) -> String {
        let count = choose(max + 1)
        var out = String.UnicodeScalarView()
        for _ in 0..<count {
            let scalar: Unicode.Scalar
            switch choose(10) {
            case 0: scalar = pick(["\"", "'", "`", "\\", "?", "$", "%", "_", ";", "\0"])
            case 1: scalar = pick(["\u{301}", "\u{FFFE}", "\u{FFFF}", "\u{FFFD}", "\u{10FFFF}", "\u{200B}", "é", "ß"])
            case 2: scalar = pick([" ", "\n", "\t", "-", "/", "*", "(", ")", ",", "."])
            default: scalar = Unicode.Scalar(UInt8(32 + choose(95)))
            }
            out.append(scalar)
        }
        return String(out)
    }

    /// Up to `max` bytes decoded as UTF-8 with replacement: arbitrary, possibly malformed, text.
    public mutating func rawText(max: Int = 64) -> String {
        String(decoding: data(max: max), as: UTF8.self)
    }

    /// Any database value, including the awkward ones (NaN, infinities, NUL in text, empty blobs).
    public mutating func value() -> DatabaseValue {
        switch choose(11) {
        case 0: return .null
        case 1: return .bool(bool())
        case 2: return .integer(interestingInt64())
        case 3: return .double(double())
        case 4: return .text(string())
        case 5: return .blob(Data(data(max: 8)))
        case 6: return .date(Date(timeIntervalSince1970: Double(Int32(truncatingIfNeeded: int64()))))
        case 7: return .decimal(Decimal(Int(truncatingIfNeeded: interestingInt64())))
        case 8: return .uuid(UUID(uuid: (byte(), byte(), byte(), byte(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, byte())))
        case 9: return .json("{\"k\":\(choose(100))}")
        default: return .text(rawText(max: 16))
        }
    }
}
