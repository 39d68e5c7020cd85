// SQLScanner: splits rendered SQL into quoted identifiers, string literals, placeholders and bare words.

/// What rendered SQL is made of, read back by a scanner that knows only SQL's quoting rules.
struct ScannedSQL {
    var identifiers: [String] = []
    var literals: [String] = []
    /// `?` markers (SQLite) in order.
    var questionMarks = 0
    /// The numbers of `$n` markers (PostgreSQL), in order.
    var dollarNumbers: [Int] = []
    var words: [String] = []
}

enum SQLScanError: Error, CustomStringConvertible {
    case unterminated(String)
    case unexpected(Unicode.Scalar, at: Int)

    var description: String {
        switch self {
        case .unterminated(let what): return "unterminated \(what)"
        case .unexpected(let s, let at): return "unexpected \(s.debugDescription) outside quotes at scalar \(at)"
        }
    }
}

/// Scans `sql`: `"…"` identifiers (`""` inside), `'…'` literals (`''` inside), `?`, `$n`, words,
/// numbers and punctuation. Anything else outside quotes is an error: it would be text that leaked.
func scan(_ sql: String) throws(SQLScanError) -> ScannedSQL {
    let s = Array(sql.unicodeScalars)
    var out = ScannedSQL()
    var i = 0
    func quoted(_ q: Unicode.Scalar) throws(SQLScanError) -> String {
        var text = String.UnicodeScalarView()
        i += 1
        while true {
            guard i < s.count else { throw .unterminated(q == "\"" ? "identifier" : "literal") }
            if s[i] == q {
                if i + 1 < s.count, s[i + 1] == q {
                    text.append(q)
                    i += 2
                    continue
                }
                i += 1
                return String(text)
            }
            text.append(s[i])
            i += 1
        }
    }
    func isLetter(_ c: Unicode.Scalar) -> Bool { (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" }
    func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }
    while i < s.count {
        let c = s[i]
        if c == "\"" {
            out.identifiers.append(try quoted("\""))
        } else if c == "'" {
            out.literals.append(try quoted("'"))
        } else if c == "?" {
            out.questionMarks += 1
            i += 1
        } else if c == "$" {
            var n = 0
            i += 1
            guard i < s.count, isDigit(s[i]) else { throw .unexpected(c, at: i - 1) }
            while i < s.count, isDigit(s[i]) {
                n = n * 10 + Int(s[i].value - 48)
                i += 1
            }
            out.dollarNumbers.append(n)
        } else if isLetter(c) {
            var word = String.UnicodeScalarView()
            while i < s.count, isLetter(s[i]) || isDigit(s[i]) {
                word.append(s[i])
                i += 1
            }
            out.words.append(String(word))
        } else if isDigit(c) {
            // 42, 1.5, 1e-05, 5e+20
            while i < s.count,
                isDigit(s[i]) || s[i] == "." || s[i] == "e"
                    || ((s[i] == "-" || s[i] == "+") && s[i - 1] == "e")
            {
                i += 1
            }
        } else if " (),.=<>*-+".unicodeScalars.contains(c) {
            i += 1
        } else {
            throw .unexpected(c, at: i)
        }
    }
    return out
}
