// RawConditionText: prints an AST condition as the raw SQL subset the memory driver parses, to fuzz that parser.
import Strata

/// Spells a condition as `unsafeRaw` text with `?` binds, in the subset ``RawCondition`` reads back, so the
/// generator can send the same predicate as raw SQL: the SQL backends run the text, the memory driver its parse.
enum RawConditionText {
    /// The text and binds of `node`, or nil when it holds something the subset cannot spell (a case-insensitive
    /// LIKE, raw SQL already). In a SELECT with joins, pass the main table: its columns are then qualified with it,
    /// as the renderer qualifies them (a bare name that a joined table also has is ambiguous in SQL).
    static func print(_ node: SQLExpression.Node, mainTable: String? = nil) -> (sql: String, binds: [DatabaseValue])? {
        var binds: [DatabaseValue] = []
        let qualified = mainTable.map { SQLExpression(node).qualified(as: $0).node } ?? node
        guard let sql = text(qualified, &binds) else { return nil }
        return (sql, binds)
    }

    private static func quoted(_ name: String) -> String {
        var out = "\""
        for s in name.unicodeScalars {
            if s == "\"" { out += "\"" }
            out.unicodeScalars.append(s)
        }
        return out + "\""
    }

    private static func text(_ node: SQLExpression.Node, _ binds: inout [DatabaseValue]) -> String? {
        switch node {
        case .column(let c): return quoted(c)
        case .joinedColumn(let t, let c): return quoted(t) + "." + quoted(c)
        case .value(let v):
            binds.append(v)
            return "?"
        case .constant(let b): return b ? "TRUE" : "FALSE"
        case .compare(let op, let l, let r):
            guard let a = text(l, &binds), let b = text(r, &binds) else { return nil }
            return "(" + a + " " + op.rawValue + " " + b + ")"
        case .and(let items), .or(let items):
            let isAnd: Bool
            if case .and = node { isAnd = true } else { isAnd = false }
            if items.isEmpty { return isAnd ? "TRUE" : "FALSE" }
            var parts: [String] = []
            for item in items {
                guard let t = text(item, &binds) else { return nil }
                parts.append(t)
            }
            return "(" + parts.joined(separator: isAnd ? " AND " : " OR ") + ")"
        case .not(let e): return text(e, &binds).map { "(NOT " + $0 + ")" }
        case .isNull(let e, let negated):
            return text(e, &binds).map { "(" + $0 + (negated ? " IS NOT NULL)" : " IS NULL)") }
        case .inList(let e, let values, let negated):
            if values.isEmpty { return negated ? "TRUE" : "FALSE" }
            guard let t = text(e, &binds) else { return nil }
            binds += values
            return "(" + t + (negated ? " NOT IN (" : " IN (")
                + Array(repeating: "?", count: values.count).joined(separator: ", ")
                + "))"
        case .like(let e, let pattern, let caseInsensitive, let negated):
            guard !caseInsensitive, let t = text(e, &binds) else { return nil }
            binds.append(.text(pattern))
            return "(" + t + (negated ? " NOT LIKE ?" : " LIKE ?") + " ESCAPE '\\')"
        case .between(let e, let low, let high, let negated):
            guard let t = text(e, &binds), let l = text(low, &binds), let h = text(high, &binds) else { return nil }
            return "(" + t + (negated ? " NOT BETWEEN " : " BETWEEN ") + l + " AND " + h + ")"
        case .unsafeRaw, .parameter: return nil
        case .arithmetic, .concat, .caseMapped, .coalesce, .inSubquery, .scalarSubquery, .correlatedExists, .typed,
            .jsonPath, .search, .searchRank:
            return nil  // outside the raw subset the memory driver parses
        }
    }
}
