// SQLExpression: a boolean or scalar SQL expression in the query AST, as plain Sendable values.

/// An expression of the query AST: a column, a bound value, or an operation over expressions.
///
/// A public struct over a package-visible indirect enum, so the tree can grow without breaking
/// the API while the renderer and the memory driver switch over it exhaustively.
public struct SQLExpression: Sendable, Hashable {
    package indirect enum Node: Sendable, Hashable {
        case column(String)
        /// A column of a joined table, by its alias.
        case joinedColumn(table: String, name: String)
        case value(DatabaseValue)
        case constant(Bool)
        case compare(ComparisonOperator, Node, Node)
        case and([Node])
        case or([Node])
        case not(Node)
        case isNull(Node, negated: Bool)
        case inList(Node, [DatabaseValue], negated: Bool)
        case like(Node, pattern: String, caseInsensitive: Bool, negated: Bool)
        case between(Node, low: Node, high: Node, negated: Bool)
        case unsafeRaw(String, [DatabaseValue])
        /// `lhs op rhs` over numbers, checked by ``ArithmeticOperator``'s one rule.
        case arithmetic(ArithmeticOperator, Node, Node)
        /// `lhs || rhs` over text; NULL when either side is.
        case concat(Node, Node)
        /// `lower(e)`, or `upper(e)` when `upper`: ASCII letters only, on every backend.
        case caseMapped(Node, upper: Bool)
        /// `COALESCE(a, b, …)`: the first operand that is not NULL.
        case coalesce([Node])
        /// `e [NOT] IN (SELECT column …)`: the subquery selects exactly one column.
        case inSubquery(Node, Select, negated: Bool)
        /// `(SELECT column … LIMIT 1)`: the first row's value, or NULL when the subquery has no row.
        case scalarSubquery(Select)
        /// `[NOT] EXISTS (SELECT … WHERE inner = outer AND … AND filter)`: whether the subquery has a row matching
        /// the enclosing statement's row on every column pair of the ``Correlation``; TRUE or FALSE, never unknown.
        case correlatedExists(Select, Correlation, negated: Bool)
        /// An expression whose type the typed API knows and the backend may not see (a COALESCE over
        /// decimal columns): SQLite compares and sorts a `.decimal` one through its decimal collation.
        case typed(Node, ColumnType)
        /// The scalar at a path inside a JSON column, read as the path's type; NULL where it is not there as one.
        case jsonPath(Node, JSONPath)
        /// Whether the search document in a column matches a full-text query (see ``SearchQuery``).
        case search(Node, SearchQuery)
        /// How many of a full-text query's distinct terms the search document in a column holds: an integer, the
        /// portable rank (see ``SearchQuery/rank(_:)``).
        case searchRank(Node, SearchQuery)
        /// A value a prepared query binds when it runs (see ``QueryParameter``); refused by the core's statement
        /// check anywhere else, so no driver is handed one.
        case parameter(ParameterSlot)
    }

    package let node: Node

    package init(_ node: Node) { self.node = node }

    /// A column of the queried table.
    public static func column(_ name: String) -> SQLExpression { SQLExpression(.column(name)) }
    /// A column of a joined table (`table` is the join's alias), or of the main table when `table` is nil.
    public static func column(_ name: String, table: String?) -> SQLExpression {
        SQLExpression(table.map { .joinedColumn(table: $0, name: name) } ?? .column(name))
    }

    /// The same expression with every main-table column moved to the joined table `alias`.
    package func qualified(as alias: String) -> SQLExpression { SQLExpression(node.qualified(as: alias)) }
    /// A value, always bound as a parameter.
    public static func value(_ value: DatabaseValue) -> SQLExpression { SQLExpression(.value(value)) }
    /// TRUE or FALSE.
    public static func constant(_ value: Bool) -> SQLExpression { SQLExpression(.constant(value)) }

    /// `lhs op rhs`; comparing with NULL becomes `IS [NOT] NULL` for `==` and `!=`.
    public static func compare(_ op: ComparisonOperator, _ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        if case .value(.null) = rhs.node, op == .equal || op == .notEqual {
            return SQLExpression(.isNull(lhs.node, negated: op == .notEqual))
        }
        return SQLExpression(.compare(op, lhs.node, rhs.node))
    }

    /// All of the expressions (TRUE when empty).
    public static func and(_ items: [SQLExpression]) -> SQLExpression {
        var flat: [Node] = []
        for item in items {
            if case .and(let inner) = item.node { flat += inner } else { flat.append(item.node) }
        }
        return flat.isEmpty ? .constant(true) : flat.count == 1 ? SQLExpression(flat[0]) : SQLExpression(.and(flat))
    }

    /// Any of the expressions (FALSE when empty).
    public static func or(_ items: [SQLExpression]) -> SQLExpression {
        var flat: [Node] = []
        for item in items {
            if case .or(let inner) = item.node { flat += inner } else { flat.append(item.node) }
        }
        return flat.isEmpty ? .constant(false) : flat.count == 1 ? SQLExpression(flat[0]) : SQLExpression(.or(flat))
    }

    /// `NOT (e)`: true where `e` is false; NULL (unknown) stays NULL, so the row is left out.
    public static func not(_ e: SQLExpression) -> SQLExpression { SQLExpression(.not(e.node)) }

    /// `e IS NULL`, or `e IS NOT NULL` when `negated`; true or false, never unknown.
    public static func isNull(_ e: SQLExpression, negated: Bool = false) -> SQLExpression {
        SQLExpression(.isNull(e.node, negated: negated))
    }

    /// `e IN (…)`; an empty list matches nothing, and `NOT IN ()` everything, on every backend.
    public static func inList(_ e: SQLExpression, _ values: [DatabaseValue], negated: Bool = false) -> SQLExpression {
        SQLExpression(.inList(e.node, values, negated: negated))
    }

    /// `e LIKE pattern ESCAPE '\'`: `%` any run, `_` one character, `\` escapes; case-sensitive
    /// unless `caseInsensitive` (which folds ASCII letters only, the same on every backend).
    public static func like(
        _ e: SQLExpression, _ pattern: String, caseInsensitive: Bool = false,
        negated: Bool = false
    ) -> SQLExpression {
        SQLExpression(.like(e.node, pattern: pattern, caseInsensitive: caseInsensitive, negated: negated))
    }

    /// `e BETWEEN low AND high` (both ends included), or `NOT BETWEEN` when `negated`.
    public static func between(
        _ e: SQLExpression, _ low: SQLExpression, _ high: SQLExpression,
        negated: Bool = false
    ) -> SQLExpression {
        SQLExpression(.between(e.node, low: low.node, high: high.node, negated: negated))
    }

    /// A raw SQL fragment; `?` marks each bound value. Never paste user input into `sql`.
    public static func unsafeRaw(_ sql: String, _ binds: [DatabaseValue]) -> SQLExpression {
        SQLExpression(.unsafeRaw(sql, binds))
    }

    /// Escapes `%`, `_` and `\` so that `text` matches itself literally inside a LIKE pattern.
    public static func escapeLike(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == "_" || scalar == "\\" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}

/// A binary comparison.
public enum ComparisonOperator: String, Sendable, Hashable {
    /// `=`: equal; comparing with a NULL value renders `IS NULL`.
    case equal = "="
    /// `<>`: not equal; comparing with a NULL value renders `IS NOT NULL`.
    case notEqual = "<>"
    /// `<`: less than (text by code point, dates by time).
    case less = "<"
    /// `<=`: less than or equal.
    case lessOrEqual = "<="
    /// `>`: greater than.
    case greater = ">"
    /// `>=`: greater than or equal.
    case greaterOrEqual = ">="
}

extension SQLExpression.Node {
    func qualified(as alias: String) -> Self {
        switch self {
        case .column(let name): return .joinedColumn(table: alias, name: name)
        case .joinedColumn, .value, .constant, .unsafeRaw, .parameter: return self
        case .compare(let op, let l, let r): return .compare(op, l.qualified(as: alias), r.qualified(as: alias))
        case .and(let items): return .and(items.map { $0.qualified(as: alias) })
        case .or(let items): return .or(items.map { $0.qualified(as: alias) })
        case .not(let e): return .not(e.qualified(as: alias))
        case .isNull(let e, let negated): return .isNull(e.qualified(as: alias), negated: negated)
        case .inList(let e, let values, let negated): return .inList(e.qualified(as: alias), values, negated: negated)
        case .like(let e, let pattern, let ci, let negated):
            return .like(e.qualified(as: alias), pattern: pattern, caseInsensitive: ci, negated: negated)
        case .between(let e, let low, let high, let negated):
            return .between(
                e.qualified(as: alias), low: low.qualified(as: alias), high: high.qualified(as: alias),
                negated: negated)
        case .arithmetic(let op, let l, let r): return .arithmetic(op, l.qualified(as: alias), r.qualified(as: alias))
        case .concat(let l, let r): return .concat(l.qualified(as: alias), r.qualified(as: alias))
        case .caseMapped(let e, let upper): return .caseMapped(e.qualified(as: alias), upper: upper)
        case .coalesce(let items): return .coalesce(items.map { $0.qualified(as: alias) })
        case .inSubquery(let e, let s, let negated): return .inSubquery(e.qualified(as: alias), s, negated: negated)
        case .scalarSubquery: return self
        case .correlatedExists(let s, let c, let negated):
            return .correlatedExists(s, c.outer(in: alias), negated: negated)
        case .typed(let e, let type): return .typed(e.qualified(as: alias), type)
        case .jsonPath(let e, let path): return .jsonPath(e.qualified(as: alias), path)
        case .search(let e, let query): return .search(e.qualified(as: alias), query)
        case .searchRank(let e, let query): return .searchRank(e.qualified(as: alias), query)
        }
    }
}
