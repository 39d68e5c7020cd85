// SQLiteLike: LIKE matched code point for code point over the stored UTF-8 bytes, NUL and noncharacters included.
import CSQLite
import Foundation

/// Strata's `like(pattern, text)` and `like(pattern, text, escape)`, registered on every connection, which
/// SQLite then calls for `text LIKE pattern [ESCAPE e]`.
///
/// SQLite's built-in LIKE reads its operands as C strings, so it stops at a NUL (`like "\0"` matches `""`),
/// and reads U+FFFE, U+FFFF and ill-formed UTF-8 as U+FFFD, so it matched rows that the memory driver and
/// PostgreSQL do not. This one reads the bytes with their length (`sqlite3_value_bytes`) and compares code
/// points exactly, with the memory driver's rules (`LikeMatcher`): `%` any run, `_` one code point, the escape
/// makes the next code point literal, a pattern ending in a lone escape is an error, no length limit, and
/// O(text × pattern) at worst. Ill-formed UTF-8 (written by another tool) reads as Swift's `String(decoding:)`
/// reads it, one U+FFFD per maximal ill-formed subpart, so a row matches exactly when the String Strata hands
/// back would match on the memory driver. Case-insensitive LIKE is rendered `lower(x) LIKE lower(p)`, and
/// SQLite's `lower` folds ASCII bytes only and keeps every other byte, NUL included.
///
/// Overriding `like` turns off SQLite's LIKE optimization (a `LIKE 'abc%'` on an indexed column no longer
/// becomes an index range; SQLite applies it to its built-in function only). Strata chose exact matches: a
/// LIKE is a scan with this filter. The pattern is compiled once per statement (`sqlite3_set_auxdata`).
enum SQLiteLike {
    /// Registers the function on `db` (for 2 and 3 arguments), replacing the built-in one.
    static func register(on db: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        for argc: Int32 in [2, 3] {
            sqlite3_create_function_v2(db, "like", argc, flags, nil, function, nil, nil, nil)
        }
    }

    private static let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        { ctx, argc, argv in
            guard let ctx, let argv, let patternValue = argv[0], let textValue = argv[1] else { return }
            // NULL in, NULL out (no result set), like the built-in.
            guard sqlite3_value_type(patternValue) != SQLITE_NULL, sqlite3_value_type(textValue) != SQLITE_NULL
            else { return }
            guard let text = bytes(of: textValue) else { return sqlite3_result_error_nomem(ctx) }
            // SQLite keeps auxiliary data only while its argument stays the same (a literal or a bound value
            // during one run), so a pattern compiled with both the pattern and the escape still attached is
            // current. Read it without retaining: SQLite holds it for the whole call.
            if let cached = sqlite3_get_auxdata(ctx, 0), argc == 2 || sqlite3_get_auxdata(ctx, 2) != nil {
                let matched = Unmanaged<LikePattern>.fromOpaque(cached)._withUnsafeGuaranteedRef { $0.matches(text) }
                return sqlite3_result_int(ctx, matched ? 1 : 0)
            }
            var escape: UInt32?
            if argc == 3 {
                guard let escapeValue = argv[2], sqlite3_value_type(escapeValue) != SQLITE_NULL else { return }
                guard let e = singleScalar(bytes(of: escapeValue)) else {
                    return sqlite3_result_error(ctx, "ESCAPE expression must be a single character", -1)
                }
                escape = e
            }
            guard let patternBytes = bytes(of: patternValue) else { return sqlite3_result_error_nomem(ctx) }
            let pattern = LikePattern(patternBytes, escape: escape)
            // PostgreSQL refuses it (22025) and the memory driver too: the same invalidQuery everywhere.
            if pattern.isMalformed { return sqlite3_result_error(ctx, malformedMessage, -1) }
            // The text's bytes may move once other values are read: read them again.
            guard let current = bytes(of: textValue) else { return sqlite3_result_error_nomem(ctx) }
            sqlite3_result_int(ctx, pattern.matches(current) ? 1 : 0)
            // SQLite may release it at once; `pattern` is not used after this.
            sqlite3_set_auxdata(ctx, 0, Unmanaged.passRetained(pattern).toOpaque(), release)
            if argc == 3, let marker = UnsafeMutableRawPointer(bitPattern: 1) {
                sqlite3_set_auxdata(ctx, 2, marker, nil)
            }
        }

    /// The message for a pattern that ends in a lone escape, which ``SQLiteErrors`` maps to `invalidQuery`.
    static let malformedMessage = "LIKE pattern must not end with escape character"

    private static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { p in
        if let p { Unmanaged<LikePattern>.fromOpaque(p).release() }
    }

    /// A value's text as UTF-8 bytes with its length (never as a C string); nil only when SQLite is out of memory.
    private static func bytes(of value: OpaquePointer) -> UnsafeBufferPointer<UInt8>? {
        // sqlite3_value_text before sqlite3_value_bytes, as SQLite documents.
        guard let p = sqlite3_value_text(value) else { return nil }
        return UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(value)))
    }

    /// The one code point of `bytes`, or nil when there are none or several.
    private static func singleScalar(_ bytes: UnsafeBufferPointer<UInt8>?) -> UInt32? {
        guard let bytes, !bytes.isEmpty else { return nil }
        let (scalar, next) = UTF8Scalars.decode(bytes, at: 0)
        return next == bytes.count ? scalar : nil
    }
}

/// A compiled LIKE pattern over code points: literal scalars, `_` and `%` (see ``SQLiteLike``).
final class LikePattern {
    /// A code point (at most 0x10FFFF), or one of the two markers below.
    private let tokens: [UInt32]
    let escape: UInt32?
    /// Ends in a lone escape: an error (``SQLiteLike/malformedMessage``).
    let isMalformed: Bool
    private static let anyRun: UInt32 = 0xFFFF_FFFF
    private static let one: UInt32 = 0xFFFF_FFFE

    init(_ pattern: UnsafeBufferPointer<UInt8>, escape: UInt32?) {
        var tokens: [UInt32] = []
        tokens.reserveCapacity(pattern.count)
        var escaping = false
        var i = 0
        while i < pattern.count {
            let (c, next) = UTF8Scalars.decode(pattern, at: i)
            i = next
            if escaping {
                tokens.append(c)
                escaping = false
            } else if c == escape {
                escaping = true
            } else if c == 0x25 {  // %, and %% is %
                if tokens.last != Self.anyRun { tokens.append(Self.anyRun) }
            } else if c == 0x5F {  // _
                tokens.append(Self.one)
            } else {
                tokens.append(c)
            }
        }
        self.tokens = tokens
        self.escape = escape
        self.isMalformed = escaping
    }

    /// The first byte of the literal `token`'s UTF-8 form, where a match of it must start; nil for `_`, `%` and
    /// U+FFFD (which ill-formed bytes also read as). A byte below 0x80 or from 0xC0 is never inside a code point
    /// or an ill-formed subpart (those continue with 0x80–0xBF only), so the skip lands on a code point.
    @inline(__always)
    private static func firstByte(_ token: UInt32) -> UInt8? {
        switch token {
        case 0..<0x80: return UInt8(token)
        case 0x80..<0x800: return UInt8(0xC0 | token >> 6)
        case 0xFFFD: return nil
        case 0x800..<0x10000: return UInt8(0xE0 | token >> 12)
        case 0x10000...0x10FFFF: return UInt8(0xF0 | token >> 18)
        default: return nil
        }
    }

    /// Whether the whole of `text` matches: greedy, retrying from the latest `%` one code point further on a
    /// mismatch (the memory driver's `LikeMatcher`, over bytes).
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        if isMalformed { return false }
        return tokens.withUnsafeBufferPointer { tokens in
            let end = text.count
            var s = 0
            var p = 0
            var star = -1
            var starText = 0
            while s < end {
                if p < tokens.count {
                    let t = tokens[p]
                    if t == Self.anyRun {
                        star = p
                        p += 1
                        // `%` then an ASCII literal: skip to that byte, which only ever starts a code point.
                        // `%` then a literal: skip to the next byte that can start it (see `firstByte`).
                        if p < tokens.count, let byte = Self.firstByte(tokens[p]), let base = text.baseAddress {
                            guard let found = memchr(base + s, Int32(byte), end - s) else { return false }
                            s = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                        }
                        starText = s
                        continue
                    }
                    let (c, next) = UTF8Scalars.decode(text, at: s)
                    if t == Self.one || t == c {
                        p += 1
                        s = next
                        continue
                    }
                }
                guard star >= 0 else { return false }
                // Let the latest `%` take one more code point and try again from there.
                p = star
                s = UTF8Scalars.decode(text, at: starText).next
            }
            while p < tokens.count && tokens[p] == Self.anyRun { p += 1 }
            return p == tokens.count
        }
    }
}

/// UTF-8 decoding one code point at a time, with ill-formed bytes read the way Swift's `String(decoding:as:)`
/// repairs them: each maximal subpart of an ill-formed sequence (Unicode 15, §3.9, U+FFFD substitution) is
/// one U+FFFD.
enum UTF8Scalars {
    /// The code point starting at byte `i` (< `bytes.count`) and the index of the next one.
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (scalar: UInt32, next: Int) {
        let b0 = bytes[i]
        if b0 < 0x80 { return (UInt32(b0), i + 1) }
        return decodeMultibyte(bytes, at: i)
    }

    /// Table 3-7 of the Unicode standard: the well-formed sequences, the second byte's range depending on the
    /// first.
    private static func decodeMultibyte(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (scalar: UInt32, next: Int) {
        let b0 = bytes[i]
        let continuations: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        var value: UInt32
        switch b0 {
        case 0xC2...0xDF:
            continuations = 1
            value = UInt32(b0 & 0x1F)
        case 0xE0...0xEF:
            continuations = 2
            value = UInt32(b0 & 0x0F)
            if b0 == 0xE0 { low = 0xA0 }
            if b0 == 0xED { high = 0x9F }  // no surrogates
        case 0xF0...0xF4:
            continuations = 3
            value = UInt32(b0 & 0x07)
            if b0 == 0xF0 { low = 0x90 }
            if b0 == 0xF4 { high = 0x8F }  // nothing past U+10FFFF
        default:
            return (0xFFFD, i + 1)
        }
        var j = i + 1
        for k in 0..<continuations {
            guard j < bytes.count else { return (0xFFFD, j) }
            let c = bytes[j]
            guard c >= (k == 0 ? low : 0x80), c <= (k == 0 ? high : 0xBF) else { return (0xFFFD, j) }
            value = value << 6 | UInt32(c & 0x3F)
            j += 1
        }
        return (value, j)
    }
}
