// RawCondition: parses the common SQL subset of an `unsafeRaw` condition into the AST, for drivers without SQL.

/// Reads a raw SQL condition (`where(unsafeRaw:)`, ``Condition/unsafeRaw(_:_:)``) as an AST node, so a backend
/// that evaluates the AST itself (the memory driver) runs it too.
///
/// The subset: comparisons (`= <> != < <= > >=`), `AND`, `OR`, `NOT`, parentheses, `[NOT] IN (…)` of values,
/// `[NOT] LIKE` a text value (with `ESCAPE '\'` or none: `\` escapes, as in Strata's own LIKE),
/// `[NOT] BETWEEN … AND …`, `IS [NOT] NULL`, bare (folded to lower case, as PostgreSQL does) and double-quoted
/// column names, `table.column` for a joined table, `?` for each bound value, integer, decimal and `'text'`
/// literals, `TRUE`, `FALSE` and `NULL`. Keywords are case-insensitive.
///
/// ```swift
/// let node = try RawCondition.parse("last_name = ? AND (age > ? OR age IS NULL)", [.text("Li"), .integer(30)])
/// ```
///
/// Comparing with `NULL` (`x = NULL`) stays a comparison, unknown for every row, as in SQL.
package enum RawCondition {
    /// The AST of `sql` with `binds` in place of its `?` markers.
    ///
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` naming the first token outside the subset;
    ///   ``StrataError/invalidQuery(_:)`` when the markers and values do not match or the text is not a
    ///   condition (an unclosed parenthesis, a missing operand).
    package static func parse(_ sql: String, _ binds: [DatabaseValue], driver: String = "memory")
        throws(StrataError) -> SQLExpression.Node
    {
        var parser = Parser(tokens: try Lexer.tokens(sql, driver: driver), binds: binds, driver: driver)
        let node = try parser.expression()
        guard parser.at(.end) else { throw parser.unexpected() }
        guard parser.used == binds.count else { throw .invalidQuery("raw SQL has fewer ? than bound values") }
        return node
    }

    enum Token: Equatable {
        case word(String)  // a keyword or a bare identifier, as written
        case quoted(String)  // a "quoted identifier"
        case text(String)  // a 'string literal'
        case number(String)
        case symbol(String)  // ( ) , . ? and operators
        case end

        var spelling: String {
            switch self {
            case .word(let w): return w
            case .quoted(let q): return "\"" + q + "\""
            case .text(let t): return "'" + t + "'"
            case .number(let n): return n
            case .symbol(let s): return s
            case .end: return "end of text"
            }
        }
    }

    enum Lexer {
        static func tokens(_ sql: String, driver: String) throws(StrataError) -> [Token] {
            let scalars = Array(sql.unicodeScalars)
            var out: [Token] = []
            var i = 0
            func isWordStart(_ s: Unicode.Scalar) -> Bool { s == "_" || s.properties.isAlphabetic }
            func isWord(_ s: Unicode.Scalar) -> Bool { isWordStart(s) || ("0"..."9").contains(s) || s == "$" }
            while i < scalars.count {
                let s = scalars[i]
                if s.properties.isWhitespace {
                    i += 1
                } else if s == "'" || s == "\"" {
                    var body = String.UnicodeScalarView()
                    var j = i + 1
                    var closed = false
                    while j < scalars.count {
                        if scalars[j] == s {
                            if j + 1 < scalars.count && scalars[j + 1] == s {
                                body.append(s)
                                j += 2
                                continue
                            }
                            closed = true
                            break
                        }
                        body.append(scalars[j])
                        j += 1
                    }
                    guard closed else {
                        throw .invalidQuery("raw SQL has an unclosed \(s == "'" ? "string" : "quote")")
                    }
                    out.append(s == "'" ? .text(String(body)) : .quoted(String(body)))
                    i = j + 1
                } else if ("0"..."9").contains(s)
                    || (s == "." && i + 1 < scalars.count && ("0"..."9").contains(scalars[i + 1]))
                {
                    var j = i
                    var text = String.UnicodeScalarView()
                    while j < scalars.count, ("0"..."9").contains(scalars[j]) || scalars[j] == "." {
                        text.append(scalars[j])
                        j += 1
                    }
                    if j < scalars.count, scalars[j] == "e" || scalars[j] == "E" {
                        text.append(scalars[j])
                        j += 1
                        if j < scalars.count, scalars[j] == "+" || scalars[j] == "-" {
                            text.append(scalars[j])
                            j += 1
                        }
                        while j < scalars.count, ("0"..."9").contains(scalars[j]) {
                            text.append(scalars[j])
                            j += 1
                        }
                    }
                    if j < scalars.count, isWord(scalars[j]) {
                        throw .unsupported(feature: "raw SQL token '\(String(text))\(scalars[j])'", driver: driver)
                    }
                    out.append(.number(String(text)))
                    i = j
                } else if isWordStart(s) {
                    var j = i
                    var text = String.UnicodeScalarView()
                    while j < scalars.count, isWord(scalars[j]) {
                        text.append(scalars[j])
                        j += 1
                    }
                    out.append(.word(String(text)))
                    i = j
                } else {
                    let two = i + 1 < scalars.count ? String(s) + String(scalars[i + 1]) : ""
                    if ["<=", ">=", "<>", "!=", "||", "::", "==", "->"].contains(two) {
                        out.append(.symbol(two))
                        i += 2
                    } else {
                        out.append(.symbol(String(s)))
                        i += 1
                    }
                }
            }
            out.append(.end)
            return out
        }
    }

    struct Parser {
        let tokens: [Token]
        let binds: [DatabaseValue]
        let driver: String
        var position = 0
        var used = 0

        init(tokens: [Token], binds: [DatabaseValue], driver: String) {
            self.tokens = tokens
            self.binds = binds
            self.driver = driver
        }

        var current: Token { tokens[position] }

        func at(_ token: Token) -> Bool { current == token }

        func isKeyword(_ keyword: String) -> Bool {
            if case .word(let w) = current { return w.uppercased() == keyword }
            return false
        }

        mutating func accept(_ keyword: String) -> Bool {
            guard isKeyword(keyword) else { return false }
            position += 1
            return true
        }

        mutating func accept(symbol: String) -> Bool {
            guard current == .symbol(symbol) else { return false }
            position += 1
            return true
        }

        mutating func expect(symbol: String) throws(StrataError) {
            guard accept(symbol: symbol) else { throw unexpected() }
        }

        /// The error for the current token: unsupported when it is outside the subset, invalid when it is
        /// out of place (an operator where an operand belongs, the text ending early).
        func unexpected() -> StrataError {
            switch current {
            case .end: return .invalidQuery("raw SQL condition ends too early")
            case .symbol(let s) where [")", ",", "?"].contains(s):
                return .invalidQuery("raw SQL condition has '\(s)' out of place")
            default: return .unsupported(feature: "raw SQL token '\(current.spelling)'", driver: driver)
            }
        }

        static let keywords: Set<String> = [
            "AND", "OR", "NOT", "IN", "LIKE", "BETWEEN", "IS", "NULL", "TRUE", "FALSE", "ESCAPE",
        ]

        mutating func expression() throws(StrataError) -> SQLExpression.Node {
            var items = [try conjunction()]
            while accept("OR") { items.append(try conjunction()) }
            return items.count == 1 ? items[0] : .or(items)
        }

        mutating func conjunction() throws(StrataError) -> SQLExpression.Node {
            var items = [try negation()]
            while accept("AND") { items.append(try negation()) }
            return items.count == 1 ? items[0] : .and(items)
        }

        mutating func negation() throws(StrataError) -> SQLExpression.Node {
            if accept("NOT") { return .not(try negation()) }
            return try predicate()
        }

        mutating func predicate() throws(StrataError) -> SQLExpression.Node {
            let left = try operand()
            if case .symbol(let s) = current, let op = Self.comparison(s) {
                position += 1
                return .compare(op, left, try operand())
            }
            if accept("IS") {
                let negated = accept("NOT")
                guard accept("NULL") else { throw unexpected() }
                return .isNull(left, negated: negated)
            }
            let negated = accept("NOT")
            if accept("IN") { return try inList(left, negated: negated) }
            if accept("LIKE") { return try like(left, negated: negated) }
            if accept("BETWEEN") {
                let low = try operand()
                guard accept("AND") else { throw unexpected() }
                return .between(left, low: low, high: try operand(), negated: negated)
            }
            if negated { throw unexpected() }
            return left
        }

        static func comparison(_ s: String) -> ComparisonOperator? {
            switch s {
            case "=": return .equal
            case "<>", "!=": return .notEqual
            case "<": return .less
            case "<=": return .lessOrEqual
            case ">": return .greater
            case ">=": return .greaterOrEqual
            default: return nil
            }
        }

        mutating func inList(_ left: SQLExpression.Node, negated: Bool) throws(StrataError) -> SQLExpression.Node {
            try expect(symbol: "(")
            var values: [DatabaseValue] = []
            repeat {
                guard case .value(let v) = try operand() else {
                    throw .unsupported(feature: "raw SQL IN list of anything but values", driver: driver)
                }
                values.append(v)
            } while accept(symbol: ",")
            try expect(symbol: ")")
            return .inList(left, values, negated: negated)
        }

        mutating func like(_ left: SQLExpression.Node, negated: Bool) throws(StrataError) -> SQLExpression.Node {
            let start = current
            guard case .value(.text(let pattern)) = try operand() else {
                throw .unsupported(feature: "raw SQL LIKE pattern '\(start.spelling)' that is not text", driver: driver)
            }
            if accept("ESCAPE") {
                guard case .text(let escape) = current, escape == "\\" else { throw unexpected() }
                position += 1
            }
            return .like(left, pattern: pattern, caseInsensitive: false, negated: negated)
        }

        mutating func operand() throws(StrataError) -> SQLExpression.Node {
            let token = current
            switch token {
            case .symbol("("):
                position += 1
                let inner = try expression()
                try expect(symbol: ")")
                return inner
            case .symbol("?"):
                position += 1
                guard used < binds.count else { throw .invalidQuery("raw SQL has more ? than bound values") }
                used += 1
                return .value(binds[used - 1])
            case .symbol("-"):
                position += 1
                guard case .number(let n) = current else { throw unexpected() }
                position += 1
                return .value(try number("-" + n))
            case .number(let n):
                position += 1
                return .value(try number(n))
            case .text(let t):
                position += 1
                return .value(.text(t))
            case .quoted(let name):
                position += 1
                return try qualified(name)
            case .word(let w):
                let upper = w.uppercased()
                if upper == "NULL" || upper == "TRUE" || upper == "FALSE" {
                    position += 1
                    return .value(upper == "NULL" ? .null : .bool(upper == "TRUE"))
                }
                if Self.keywords.contains(upper) || tokens[position + 1] == .symbol("(") { throw unexpected() }
                position += 1
                return try qualified(Self.folded(w))
            default:
                throw unexpected()
            }
        }

        /// `name` or `name.column`: a column of the main table, or of the joined table `name`.
        mutating func qualified(_ name: String) throws(StrataError) -> SQLExpression.Node {
            guard accept(symbol: ".") else { return .column(name) }
            switch current {
            case .quoted(let column):
                position += 1
                return .joinedColumn(table: name, name: column)
            case .word(let column) where !Self.keywords.contains(column.uppercased()):
                position += 1
                return .joinedColumn(table: name, name: Self.folded(column))
            default:
                throw unexpected()
            }
        }

        /// A bare identifier as PostgreSQL reads it: ASCII letters in lower case.
        static func folded(_ word: String) -> String {
            var out = String.UnicodeScalarView()
            for s in word.unicodeScalars {
                out.append(("A"..."Z").contains(s) ? Unicode.Scalar(s.value + 32) ?? s : s)
            }
            return String(out)
        }

        func number(_ text: String) throws(StrataError) -> DatabaseValue {
            if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let i = Int64(text) {
                return .integer(i)
            }
            guard let d = Double(text), d.isFinite else {
                throw .unsupported(feature: "raw SQL number '\(text)'", driver: driver)
            }
            return .double(d)
        }
    }
}
