// SQLiteTableText: a table's own CREATE TABLE text, split into its definitions and edited one at a time, so that a
// rebuild keeps everything a step does not change.
import Strata

/// A `CREATE TABLE` statement as SQLite keeps it in `sqlite_schema`, split at the top-level commas of its column
/// list. Definitions keep their text byte for byte (comments, spacing, quoting) unless an edit changes them.
struct SQLiteTableText {
    /// The text before the opening parenthesis (`CREATE TABLE "t" `).
    var head: String
    /// Each column definition and table constraint, as written (with the spacing around it).
    var definitions: [String]
    /// The text after the closing parenthesis (` WITHOUT ROWID`, ` STRICT`).
    var tail: String

    /// The statement, edited.
    var sql: String { head + "(" + definitions.joined(separator: ",") + ")" + tail }

    /// Splits `sql`; nil when it is not a `CREATE TABLE … ( … )` (a table made by `CREATE TABLE … AS SELECT`
    /// has such a text too, so nil only for text SQLite would not have stored).
    init?(_ sql: String) {
        let s = Array(sql.unicodeScalars)
        var i = 0
        var depth = 0
        var open = 0
        var start = 0
        var parts: [String] = []
        while i < s.count {
            if let end = SQLiteTokens.skip(s, i) {
                i = end
                continue
            }
            switch s[i] {
            case "(":
                depth += 1
                if depth == 1 {
                    open = i
                    start = i + 1
                }
            case ")":
                depth -= 1
                if depth == 0 {
                    parts.append(SQLiteTokens.text(s[start..<i]))
                    head = SQLiteTokens.text(s[0..<open])
                    definitions = parts
                    tail = SQLiteTokens.text(s[(i + 1)...])
                    return
                }
            case "," where depth == 1:
                parts.append(SQLiteTokens.text(s[start..<i]))
                start = i + 1
            default: break
            }
            i += 1
        }
        return nil
    }

    /// The index of the definition of `column` (names compared as SQLite does, ASCII case folded).
    func columnIndex(_ column: String) -> Int? {
        definitions.firstIndex { SQLiteColumnText($0)?.name.lowercased() == column.lowercased() }
    }

    /// Edits the definition of `column`.
    ///
    /// - Throws: ``StrataError/unknownColumn(model:column:)`` when the text defines no such column.
    mutating func editColumn(_ column: String, table: String, _ edit: (inout SQLiteColumnText) throws -> Void) throws {
        guard let p = columnIndex(column), var c = SQLiteColumnText(definitions[p]) else {
            throw StrataError.unknownColumn(model: table, column: column)
        }
        try edit(&c)
        definitions[p] = c.text
    }

    /// Removes the definition of `column` (with its column constraints).
    mutating func removeColumn(_ column: String, table: String) throws {
        guard let p = columnIndex(column) else { throw StrataError.unknownColumn(model: table, column: column) }
        definitions.remove(at: p)
    }

    /// Removes every foreign key whose first column is `column` (as ``ForeignKey/column`` names a key of several
    /// columns): a table constraint `FOREIGN KEY (column …) …` and the column's own `REFERENCES …` clause.
    mutating func removeForeignKeys(on column: String, table: String) throws {
        definitions.removeAll { definition in
            let tokens = SQLiteTokens.tokens(Array(definition.unicodeScalars))
            var k = 0
            if tokens.first?.upper == "CONSTRAINT" { k = 2 }
            guard k + 2 < tokens.count, tokens[k].upper == "FOREIGN", tokens[k + 1].upper == "KEY",
                tokens[k + 2].kind == .group
            else { return false }
            let columns = SQLiteTokens.identifiers(inGroup: tokens[k + 2].text)
            return columns.first?.lowercased() == column.lowercased()
        }
        if columnIndex(column) != nil {
            try editColumn(column, table: table) { $0.remove(["REFERENCES"]) }
        }
    }
}

/// One column definition: its name, its declared type and its column constraints, each a span of the text.
struct SQLiteColumnText {
    /// The definition as written, with the edits made so far.
    private(set) var text: String
    /// The column's name, unquoted.
    let name: String

    private var scalars: [Unicode.Scalar] { Array(text.unicodeScalars) }

    /// Nil for a table constraint (`PRIMARY KEY (…)`, `UNIQUE (…)`, `CHECK (…)`, `FOREIGN KEY …`,
    /// `CONSTRAINT …`) or an empty definition.
    init?(_ text: String) {
        let tokens = SQLiteTokens.tokens(Array(text.unicodeScalars))
        guard let first = tokens.first,
            !(first.kind == .word && ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains(first.upper))
        else { return nil }
        self.text = text
        name = SQLiteTokens.unquote(first)
    }

    /// The keywords that start a column constraint.
    private static let keywords: Set<String> = [
        "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED",
        "AS",
    ]

    /// The constraints: kind (`NOT NULL`, `NULL`, `DEFAULT`, `CHECK`, `COLLATE`, `REFERENCES`, `UNIQUE`,
    /// `PRIMARY`, `GENERATED`), the scalar range to remove it by, and its tokens.
    private func constraints() -> (tokens: [SQLiteTokens.Token], typeEnd: Int, items: [(String, Range<Int>, Int)]) {
        let tokens = SQLiteTokens.tokens(scalars)
        var bounds: [Int] = []
        for k in tokens.indices.dropFirst() where tokens[k].kind == .word && Self.keywords.contains(tokens[k].upper) {
            let u = tokens[k].upper
            let prev = tokens[k - 1].upper
            let prev2 = k > 1 ? tokens[k - 2].upper : ""
            let next = k + 1 < tokens.count ? tokens[k + 1].upper : ""
            if u == "NULL" && (prev == "NOT" || prev == "SET") { continue }
            if u == "DEFAULT" && prev == "SET" { continue }
            if u == "AS" && prev == "ALWAYS" { continue }
            if u == "NOT" && next == "DEFERRABLE" { continue }
            if prev2 == "CONSTRAINT" { continue }
            bounds.append(k)
        }
        var items: [(String, Range<Int>, Int)] = []
        for (n, b) in bounds.enumerated() {
            var kind = tokens[b].upper
            if kind == "CONSTRAINT" { kind = b + 2 < tokens.count ? tokens[b + 2].upper : "" }
            if kind == "NOT" { kind = "NOT NULL" }
            if kind == "AS" { kind = "GENERATED" }
            let range: Range<Int>
            if n + 1 < bounds.count {
                range = tokens[b].range.lowerBound..<tokens[bounds[n + 1]].range.lowerBound
            } else {
                let lastToken = tokens.count - 1
                range = tokens[b - 1].range.upperBound..<tokens[lastToken].range.upperBound
            }
            items.append((kind, range, b))
        }
        return (tokens, bounds.first ?? tokens.count, items)
    }

    /// Removes every constraint of these kinds (`NOT NULL`, `DEFAULT`, …) with its `CONSTRAINT name`.
    mutating func remove(_ kinds: Set<String>, where matches: ([SQLiteTokens.Token], Int) -> Bool = { _, _ in true }) {
        while true {
            let (tokens, _, items) = constraints()
            guard let item = items.last(where: { kinds.contains($0.0) && matches(tokens, $0.2) }) else { return }
            var s = scalars
            s.removeSubrange(item.1)
            text = SQLiteTokens.text(s[...])
        }
    }

    /// Removes the `CHECK (expression)` constraints whose expression is `expression` (spacing aside).
    mutating func removeCheck(_ expression: String) {
        let wanted = SQLiteTokens.squeezed(expression)
        remove(["CHECK"]) { tokens, k in
            var g = k + 1
            if tokens[k].upper == "CONSTRAINT" { g = k + 3 }
            guard g < tokens.count, tokens[g].kind == .group else { return false }
            return SQLiteTokens.squeezed(String(tokens[g].text.dropFirst().dropLast())) == wanted
        }
    }

    /// Removes the `COLLATE name` constraints of this collation.
    mutating func removeCollation(_ collation: String) {
        remove(["COLLATE"]) { tokens, k in
            let n = tokens[k].upper == "CONSTRAINT" ? k + 3 : k + 1
            return n < tokens.count && SQLiteTokens.unquote(tokens[n]).lowercased() == collation.lowercased()
        }
    }

    /// Adds a constraint after the last one (` NOT NULL`, ` DEFAULT 0`).
    mutating func append(_ clause: String) {
        let tokens = SQLiteTokens.tokens(scalars)
        guard let last = tokens.last else { return }
        var s = scalars
        s.insert(contentsOf: (" " + clause).unicodeScalars, at: last.range.upperBound)
        text = SQLiteTokens.text(s[...])
    }

    /// Replaces the declared type (the words between the name and the first constraint) by `type`.
    mutating func replaceType(with type: String) {
        let (tokens, typeEnd, _) = constraints()
        var s = scalars
        if typeEnd > 1 {
            s.replaceSubrange(
                tokens[1].range.lowerBound..<tokens[typeEnd - 1].range.upperBound, with: type.unicodeScalars)
        } else {
            s.insert(contentsOf: (" " + type).unicodeScalars, at: tokens[0].range.upperBound)
        }
        text = SQLiteTokens.text(s[...])
    }
}

/// SQLite's lexical rules, as far as splitting a definition needs them.
enum SQLiteTokens {
    /// A word, a quoted name or string, a parenthesized group (whole), or any other character.
    struct Token {
        enum Kind { case word, quoted, group, other }
        var kind: Kind
        var range: Range<Int>
        var text: String
        var upper: String { kind == .word ? text.uppercased() : "" }
    }

    static func text(_ s: ArraySlice<Unicode.Scalar>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: s)
        return String(view)
    }

    /// The index just after the quoted text or comment starting at `i`, or nil when none starts there.
    static func skip(_ s: [Unicode.Scalar], _ i: Int) -> Int? {
        let c = s[i]
        if c == "'" || c == "\"" || c == "`" {
            var j = i + 1
            while j < s.count {
                if s[j] == c {
                    if j + 1 < s.count && s[j + 1] == c {
                        j += 2
                        continue
                    }
                    return j + 1
                }
                j += 1
            }
            return s.count
        }
        if c == "[" { return (s[(i + 1)...].firstIndex(of: "]") ?? s.count - 1) + 1 }
        if c == "-" && i + 1 < s.count && s[i + 1] == "-" { return s[i...].firstIndex(of: "\n") ?? s.count }
        if c == "/" && i + 1 < s.count && s[i + 1] == "*" {
            var j = i + 2
            while j + 1 < s.count && !(s[j] == "*" && s[j + 1] == "/") { j += 1 }
            return min(j + 2, s.count)
        }
        return nil
    }

    private static func isWord(_ c: Unicode.Scalar) -> Bool {
        c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "$" || c == "." || c.value > 127
    }

    /// The tokens of a definition; comments and spacing are left out (their text stays in the definition).
    static func tokens(_ s: [Unicode.Scalar]) -> [Token] {
        var out: [Token] = []
        var i = 0
        while i < s.count {
            let c = s[i]
            if c.properties.isWhitespace {
                i += 1
            } else if (c == "-" && i + 1 < s.count && s[i + 1] == "-")
                || (c == "/" && i + 1 < s.count && s[i + 1] == "*")
            {
                i = skip(s, i) ?? i + 1
            } else if let end = skip(s, i) {
                out.append(Token(kind: .quoted, range: i..<end, text: text(s[i..<end])))
                i = end
            } else if c == "(" {
                var depth = 0
                var j = i
                while j < s.count {
                    if let end = skip(s, j) {
                        j = end
                        continue
                    }
                    if s[j] == "(" { depth += 1 }
                    if s[j] == ")" {
                        depth -= 1
                        if depth == 0 { break }
                    }
                    j += 1
                }
                let end = min(j + 1, s.count)
                out.append(Token(kind: .group, range: i..<end, text: text(s[i..<end])))
                i = end
            } else if isWord(c) {
                var j = i
                while j < s.count && isWord(s[j]) { j += 1 }
                out.append(Token(kind: .word, range: i..<j, text: text(s[i..<j])))
                i = j
            } else {
                out.append(Token(kind: .other, range: i..<(i + 1), text: String(c)))
                i += 1
            }
        }
        return out
    }

    /// A name as SQLite reads it: quotes removed (doubled quotes undoubled), brackets removed.
    static func unquote(_ t: Token) -> String {
        guard t.kind == .quoted, let first = t.text.unicodeScalars.first else { return t.text }
        var inner = String(t.text.dropFirst())
        if first == "[" { return String(inner.dropLast()) }
        if inner.unicodeScalars.last == first { inner = String(inner.dropLast()) }
        let q = String(first)
        return inner.replacingOccurrences(of: q + q, with: q)
    }

    /// The names listed in a parenthesized group (`("a", b)`), unquoted.
    static func identifiers(inGroup group: String) -> [String] {
        let inner = Array(group.unicodeScalars.dropFirst().dropLast())
        return tokens(inner).filter { $0.kind == .word || $0.kind == .quoted }.map(unquote)
    }

    /// Text with its runs of spacing made one space, for comparing expressions.
    static func squeezed(_ s: String) -> String {
        s.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
