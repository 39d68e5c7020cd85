// JSONValidator: checks that text is one valid JSON value (RFC 8259), as PostgreSQL's jsonb input does.

/// A fast, allocation-free JSON syntax check over UTF-8 bytes.
enum JSONValidator {
    /// Nesting deeper than this is rejected (PostgreSQL limits depth through its stack too).
    static let maxDepth = 1000

    /// Whether `text` is exactly one JSON value, optionally surrounded by whitespace.
    static func isValid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var parser = Parser(bytes: bytes)
            parser.skipWhitespace()
            guard parser.value(depth: 0) else { return false }
            parser.skipWhitespace()
            return parser.position == bytes.count
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipWhitespace() {
            while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { position += 1 }
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < JSONValidator.maxDepth, let c = current else { return false }
            switch c {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            let start = word.utf8Start
            for i in 0..<count where bytes[position + i] != start[i] { return false }
            position += count
            return true
        }

        mutating func object(depth: Int) -> Bool {
            position += 1
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                position += 1
                return true
            }
            while true {
                guard current == UInt8(ascii: "\""), string() else { return false }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { return false }
                position += 1
                skipWhitespace()
                guard value(depth: depth + 1) else { return false }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","):
                    position += 1
                    skipWhitespace()
                case UInt8(ascii: "}"):
                    position += 1
                    return true
                default: return false
                }
            }
        }

        mutating func array(depth: Int) -> Bool {
            position += 1
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                position += 1
                return true
            }
            while true {
                guard value(depth: depth + 1) else { return false }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","):
                    position += 1
                    skipWhitespace()
                case UInt8(ascii: "]"):
                    position += 1
                    return true
                default: return false
                }
            }
        }

        mutating func string() -> Bool {
            position += 1
            while let c = current {
                position += 1
                switch c {
                case UInt8(ascii: "\""): return true
                case UInt8(ascii: "\\"):
                    guard let e = current else { return false }
                    position += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        for _ in 0..<4 {
                            guard let h = current, isHex(h) else { return false }
                            position += 1
                        }
                    default: return false
                    }
                case 0..<0x20: return false
                default: continue
                }
            }
            return false
        }

        mutating func number() -> Bool {
            if current == UInt8(ascii: "-") { position += 1 }
            guard let first = current, isDigit(first) else { return false }
            position += 1
            if first != UInt8(ascii: "0") { digits() }
            if current == UInt8(ascii: ".") {
                position += 1
                guard let d = current, isDigit(d) else { return false }
                digits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard let d = current, isDigit(d) else { return false }
                digits()
            }
            return true
        }

        mutating func digits() {
            while let c = current, isDigit(c) { position += 1 }
        }

        func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

        func isHex(_ c: UInt8) -> Bool {
            isDigit(c) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
                || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
        }
    }
}
