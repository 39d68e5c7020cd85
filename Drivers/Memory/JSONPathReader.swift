// JSONPathReader: the memory driver's own reading of the scalar at a JSON path in stored JSON text.
import Strata

/// Reads the value at a ``JSONPath`` from JSON text, typed as the path asks, with the results SQLite's
/// `json_type`/`json_extract` and PostgreSQL's jsonb operators give (see ``JSONPath``): NULL for a missing key, an
/// index past the end, a step into a scalar, JSON `null`, or a value of another JSON type.
enum JSONPathReader {
    /// The value at `path` in `text`, or NULL.
    static func value(in text: String, at path: JSONPath) -> DatabaseValue {
        var text = text
        return text.withUTF8 { bytes in
            var scanner = Scanner(bytes: bytes)
            scanner.skipWhitespace()
            for step in path.steps {
                guard scanner.descend(step) else { return .null }
            }
            return scanner.scalar(path.type)
        }
    }

    /// A cursor over JSON text that the write path has validated (`JSONValidator`); malformed input reads as NULL.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipWhitespace() {
            while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { position += 1 }
        }

        mutating func expect(_ c: UInt8) -> Bool {
            skipWhitespace()
            guard current == c else { return false }
            position += 1
            skipWhitespace()
            return true
        }

        /// Moves from a value to its member `step`; false when the value has none.
        mutating func descend(_ step: JSONPath.Step) -> Bool {
            switch step {
            case .key(let key):
                guard current == UInt8(ascii: "{") else { return false }
                position += 1
                skipWhitespace()
                if current == UInt8(ascii: "}") { return false }
                var found = false
                var foundPosition = 0
                var key = key
                let keyIsASCII = key.utf8.allSatisfy { $0 < 0x80 }
                while true {
                    let matches = key.withUTF8 { name(equals: $0, isASCII: keyIsASCII) }
                    guard let matches, expect(UInt8(ascii: ":")) else { return false }
                    // A key written twice: the last one counts, as in PostgreSQL's jsonb (Strata writes each once).
                    if matches {
                        found = true
                        foundPosition = position
                    }
                    guard skipValue(depth: 0) else { return false }
                    skipWhitespace()
                    if current == UInt8(ascii: ",") {
                        position += 1
                        skipWhitespace()
                        continue
                    }
                    break
                }
                position = foundPosition
                return found
            case .index(let index):
                guard current == UInt8(ascii: "[") else { return false }
                position += 1
                skipWhitespace()
                if current == UInt8(ascii: "]") { return false }
                var n = 0
                while n < index {
                    guard skipValue(depth: 0) else { return false }
                    skipWhitespace()
                    guard current == UInt8(ascii: ",") else { return false }
                    position += 1
                    skipWhitespace()
                    n += 1
                }
                return true
            }
        }

        /// The value here as `type`, or NULL when it is of another JSON type.
        mutating func scalar(_ type: JSONPath.ValueType) -> DatabaseValue {
            guard let c = current else { return .null }
            switch type {
            case .text:
                guard c == UInt8(ascii: "\""), let s = string() else { return .null }
                return .text(s)
            case .bool:
                if c == UInt8(ascii: "t") { return .bool(true) }
                if c == UInt8(ascii: "f") { return .bool(false) }
                return .null
            case .integer:
                return integer().map(DatabaseValue.integer) ?? .null
            case .double:
                guard let literal = number(), let d = Double(literal.text) else { return .null }
                return .double(d == 0 ? 0 : d)  // -0 reads as 0, as SQLite's CAST and PostgreSQL's float8 compare
            }
        }

        /// The integer literal here, read digit by digit (as `Int64(text)` reads the literal ``number()`` gives, with
        /// no String built); nil for a fraction, an exponent, a malformed literal or one past Int64.
        mutating func integer() -> Int64? {
            let start = position
            var p = position
            let negative = p < bytes.count && bytes[p] == UInt8(ascii: "-")
            if negative { p += 1 }
            var value: Int64 = 0
            var digits = 0
            var valid = true
            while p < bytes.count {
                let c = bytes[p]
                if c >= 0x30 && c <= 0x39 {
                    // Accumulated negatively, so Int64.min reads too.
                    let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
                    let (next, o2) = shifted.subtractingReportingOverflow(Int64(c - 0x30))
                    if o1 || o2 { valid = false }
                    value = next
                    digits += 1
                } else if c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || c == UInt8(ascii: ".")
                    || c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
                {
                    valid = false  // a fraction, an exponent, or a sign inside: not an Int64 literal
                } else {
                    break
                }
                p += 1
            }
            position = p
            guard p > start, valid, digits > 0 else { return nil }
            if negative { return value }
            let (positive, overflow) = (0 as Int64).subtractingReportingOverflow(value)
            return overflow ? nil : positive
        }

        /// The number literal here, and whether it has a fraction or an exponent.
        mutating func number() -> (text: String, isFraction: Bool)? {
            let start = position
            var isFraction = false
            while let c = current {
                if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                    isFraction = true
                } else if !(c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || (c >= 0x30 && c <= 0x39)) {
                    break
                }
                position += 1
            }
            guard position > start, bytes[start] == UInt8(ascii: "-") || (bytes[start] >= 0x30 && bytes[start] <= 0x39)
            else { return nil }
            return (String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self), isFraction)
        }

        /// Skips one value; false on malformed text.
        mutating func skipValue(depth: Int) -> Bool {
            guard depth < JSONValidator.maxDepth, let c = current else { return false }
            switch c {
            case UInt8(ascii: "\""): return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = c == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                position += 1
                skipWhitespace()
                if current == close {
                    position += 1
                    return true
                }
                while true {
                    if close == UInt8(ascii: "}") {
                        guard skipString(), expect(UInt8(ascii: ":")) else { return false }
                    }
                    guard skipValue(depth: depth + 1) else { return false }
                    skipWhitespace()
                    if current == UInt8(ascii: ",") {
                        position += 1
                        skipWhitespace()
                        continue
                    }
                    guard current == close else { return false }
                    position += 1
                    return true
                }
            default:
                let start = position
                while let b = current, b != UInt8(ascii: ","), b != UInt8(ascii: "}"), b != UInt8(ascii: "]"),
                    b != 0x20, b != 0x09, b != 0x0A, b != 0x0D
                {
                    position += 1
                }
                return position > start
            }
        }

        /// The end of the string here (the position past its closing quote) when it holds no escape, else nil.
        private func plainStringEnd() -> Int? {
            var p = position + 1
            while p < bytes.count {
                let c = bytes[p]
                if c == UInt8(ascii: "\"") { return p + 1 }
                if c == UInt8(ascii: "\\") { return nil }
                p += 1
            }
            return nil
        }

        /// Moves past the string here; false when there is none or it is malformed (as ``string()`` would be nil).
        mutating func skipString() -> Bool {
            guard current == UInt8(ascii: "\"") else { return false }
            if let end = plainStringEnd() {
                position = end
                return true
            }
            return string() != nil
        }

        /// Reads the member name here and says whether it is the key whose UTF-8 bytes are `key`, as
        /// `string() == key` would (Swift's equality of Strings, canonical equivalence included), without building
        /// a String when the name has no escape and both are ASCII or their bytes are equal. Nil when malformed.
        mutating func name(equals key: UnsafeBufferPointer<UInt8>, isASCII keyIsASCII: Bool) -> Bool? {
            guard current == UInt8(ascii: "\""), let end = plainStringEnd() else {
                return string().map { $0 == String(decoding: key, as: UTF8.self) }
            }
            let start = position + 1
            position = end
            let name = UnsafeBufferPointer(rebasing: bytes[start..<end - 1])
            if Self.sameBytes(name, key) { return true }
            if keyIsASCII && Self.isASCII(name) { return false }
            return String(decoding: name, as: UTF8.self) == String(decoding: key, as: UTF8.self)
        }

        /// Whether `a` and `b` hold the same bytes, compared by index (the generic `elementsEqual` walked two
        /// iterators: about a tenth of a query's instructions on `json-path`).
        @inline(__always)
        static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
            guard a.count == b.count else { return false }
            var i = 0
            while i < a.count {
                if a[i] != b[i] { return false }
                i += 1
            }
            return true
        }

        /// Whether every byte of `bytes` is ASCII.
        @inline(__always)
        static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            var i = 0
            while i < bytes.count {
                if bytes[i] >= 0x80 { return false }
                i += 1
            }
            return true
        }

        /// The string here, its escapes decoded; nil when there is none or it is malformed.
        mutating func string() -> String? {
            guard current == UInt8(ascii: "\"") else { return nil }
            if let end = plainStringEnd() {
                let start = position + 1
                position = end
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end - 1]), as: UTF8.self)
            }
            position += 1
            var out: [UInt8] = []
            while let c = current {
                position += 1
                switch c {
                case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let e = current else { return nil }
                    position += 1
                    switch e {
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let unit = hex4() else { return nil }
                        var scalarValue = UInt32(unit)
                        if unit >= 0xD800 && unit < 0xDC00, current == UInt8(ascii: "\\"),
                            position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u")
                        {
                            position += 2
                            guard let low = hex4() else { return nil }
                            scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                        }
                        let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: out.append(e)  // `"`, `\`, `/`
                    }
                default: out.append(c)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt16? {
            guard position + 4 <= bytes.count else { return nil }
            var v: UInt16 = 0
            for _ in 0..<4 {
                let c = bytes[position]
                let d: UInt16
                switch c {
                case 0x30...0x39: d = UInt16(c - 0x30)
                case 0x41...0x46: d = UInt16(c - 0x41 + 10)
                case 0x61...0x66: d = UInt16(c - 0x61 + 10)
                default: return nil
                }
                v = v << 4 | d
                position += 1
            }
            return v
        }
    }
}
