// LikeMatcher: SQL LIKE with ESCAPE '\' over Unicode scalars, in linear space and without exponential backtracking.

/// A compiled LIKE pattern: `%` any run (empty too), `_` exactly one Unicode scalar (SQLite and
/// PostgreSQL count characters as code points), `\` makes the next character literal.
///
/// Case-sensitive; the case-insensitive form folds ASCII `A`–`Z` only, on both sides, the way
/// SQLite's `lower()` and the ORM-wide rule do (`É` and `é` stay different).
struct LikeMatcher: Sendable, Hashable {
    enum Token: Sendable, Hashable {
        case literal(Unicode.Scalar)
        case one
        case anyRun
    }

    let tokens: [Token]
    let caseInsensitive: Bool
    /// A pattern ending in a lone `\` matches nothing; compiling a condition refuses such a pattern first
    /// (`LikePattern.validate`), as every driver does.
    let isMalformed: Bool

    init(pattern: String, caseInsensitive: Bool) {
        var tokens: [Token] = []
        var escaping = false
        for scalar in pattern.unicodeScalars {
            if escaping {
                tokens.append(.literal(caseInsensitive ? Self.fold(scalar) : scalar))
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "%" {
                if tokens.last != .anyRun { tokens.append(.anyRun) }  // %% is %
            } else if scalar == "_" {
                tokens.append(.one)
            } else {
                tokens.append(.literal(caseInsensitive ? Self.fold(scalar) : scalar))
            }
        }
        self.tokens = tokens
        self.caseInsensitive = caseInsensitive
        self.isMalformed = escaping
    }

    /// Whether the whole of `text` matches.
    ///
    /// Greedy matching that, on a mismatch, retries from the most recent `%` one scalar further:
    /// O(text × pattern) at worst, never exponential.
    func matches(_ text: String) -> Bool {
        if isMalformed { return false }
        let scalars = text.unicodeScalars
        var s = scalars.startIndex
        var p = 0
        var star: Int?
        var starText = s
        while s != scalars.endIndex {
            if p < tokens.count {
                switch tokens[p] {
                case .anyRun:
                    star = p
                    starText = s
                    p += 1
                    continue
                case .one:
                    p += 1
                    s = scalars.index(after: s)
                    continue
                case .literal(let c):
                    let t = caseInsensitive ? Self.fold(scalars[s]) : scalars[s]
                    if t == c {
                        p += 1
                        s = scalars.index(after: s)
                        continue
                    }
                }
            }
            guard let star else { return false }
            p = star + 1
            starText = scalars.index(after: starText)
            s = starText
        }
        while p < tokens.count, tokens[p] == .anyRun { p += 1 }
        return p == tokens.count
    }

    /// ASCII lowercase; every other scalar unchanged.
    @inline(__always)
    static func fold(_ c: Unicode.Scalar) -> Unicode.Scalar {
        guard c.value >= 0x41 && c.value <= 0x5A, let lower = Unicode.Scalar(c.value + 0x20) else { return c }
        return lower
    }
}
