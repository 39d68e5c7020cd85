// RawTransactionControl: what a raw SQL statement does to the transaction, read from its first words.

/// A raw statement that begins or ends a transaction or a savepoint, by its first keyword (after blanks and
/// comments): `BEGIN` or `START`; `COMMIT` or `END`; `ROLLBACK` or `ABORT` (`ROLLBACK TO` is a savepoint's);
/// `SAVEPOINT`, `RELEASE`, and PostgreSQL's `PREPARE TRANSACTION`. Nil for any other statement.
package enum RawTransactionControl: Equatable {
    case begin, commit, rollback, savepoint

    package init?(_ sql: String) {
        let words = Self.firstWords(sql, 3)
        guard let first = words.first else { return nil }
        switch first {
        case "BEGIN", "START": self = .begin
        case "COMMIT", "END": self = .commit
        case "ROLLBACK", "ABORT":
            // ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name
            let rest = words.dropFirst().drop { $0 == "WORK" || $0 == "TRANSACTION" }
            self = rest.first == "TO" ? .savepoint : .rollback
        case "SAVEPOINT", "RELEASE": self = .savepoint
        case "PREPARE" where words.dropFirst().first == "TRANSACTION": self = .commit
        default: return nil
        }
    }

    /// Up to `count` leading words of `sql`, upper-cased, skipping blanks, `--` and `/* */` comments and `;`.
    package static func firstWords(_ sql: String, _ count: Int) -> [String] {
        var words: [String] = []
        var i = sql.utf8.startIndex
        let u = sql.utf8
        while i < u.endIndex, words.count < count {
            let c = u[i]
            if c == UInt8(ascii: "-"), u.index(after: i) < u.endIndex, u[u.index(after: i)] == UInt8(ascii: "-") {
                while i < u.endIndex, u[i] != UInt8(ascii: "\n") { i = u.index(after: i) }
            } else if c == UInt8(ascii: "/"), u.index(after: i) < u.endIndex, u[u.index(after: i)] == UInt8(ascii: "*")
            {
                i = u.index(i, offsetBy: 2)
                while i < u.endIndex {
                    if u[i] == UInt8(ascii: "*"), u.index(after: i) < u.endIndex,
                        u[u.index(after: i)] == UInt8(ascii: "/")
                    {
                        i = u.index(i, offsetBy: 2)
                        break
                    }
                    i = u.index(after: i)
                }
            } else if Self.isLetter(c) {
                let start = i
                while i < u.endIndex, Self.isLetter(u[i]) || u[i] == UInt8(ascii: "_") { i = u.index(after: i) }
                words.append(String(decoding: u[start..<i], as: UTF8.self).uppercased())
            } else if c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\n")
                || c == UInt8(ascii: "\r") || c == UInt8(ascii: ";")
            {
                i = u.index(after: i)
            } else {
                break  // a statement that starts with anything else controls no transaction
            }
        }
        return words
    }

    private static func isLetter(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }
}
