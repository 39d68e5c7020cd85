// ComputedValue: arithmetic, concatenation, lower/upper and COALESCE compiled against a scope and evaluated per row.
import Strata

/// A scalar expression of the query AST, ready to evaluate over rows of one scope, with the same results and
/// errors as SQLite and PostgreSQL (see ``ArithmeticOperator``).
indirect enum ComputedValue: Sendable {
    case operand(Operand)
    case arithmetic(ArithmeticOperator, ComputedValue, ComputedValue, text: String)
    case concat(ComputedValue, ComputedValue)
    case caseMapped(ComputedValue, upper: Bool)
    case coalesce([ComputedValue])
    case jsonPath(ComputedValue, JSONPath)
    case searchRank(ComputedValue, SearchQuery)

    /// Compiles `node` over `scope`; subqueries must have been resolved to values first.
    init(_ node: SQLExpression.Node, scope: borrowing ColumnScope) throws(StrataError) {
        switch node {
        case .arithmetic(let op, let l, let r):
            self = .arithmetic(
                op, try ComputedValue(l, scope: scope), try ComputedValue(r, scope: scope),
                text: Self.describe(node))
        case .concat(let l, let r):
            self = .concat(try ComputedValue(l, scope: scope), try ComputedValue(r, scope: scope))
        case .caseMapped(let e, let upper): self = .caseMapped(try ComputedValue(e, scope: scope), upper: upper)
        case .coalesce(let items):
            var out: [ComputedValue] = []
            for item in items { out.append(try ComputedValue(item, scope: scope)) }
            self = .coalesce(out)
        case .jsonPath(let e, let path): self = .jsonPath(try ComputedValue(e, scope: scope), path)
        case .searchRank(let e, let query): self = .searchRank(try ComputedValue(e, scope: scope), query)
        default:
            self = .operand(try Operand(node, scope: scope))
        }
    }

    /// The value for `row`.
    ///
    /// - Throws: ``StrataError/arithmeticError(expression:reason:)`` for division by zero and overflow,
    ///   ``StrataError/typeMismatch(table:column:detail:)`` for operands of the wrong kind (as PostgreSQL).
    func value(_ row: [DatabaseValue]) throws(StrataError) -> DatabaseValue {
        switch self {
        case .operand(let o): return try o.value(row)
        case .arithmetic(let op, let l, let r, let text):
            return try Self.arithmetic(op, try l.value(row), try r.value(row), text: text)
        case .concat(let l, let r):
            let a = try l.value(row)
            let b = try r.value(row)
            switch (a, b) {
            case (.null, _), (_, .null): return .null
            case (.text(let x), .text(let y)): return .text(x + y)
            default:
                throw .typeMismatch(
                    table: nil, column: nil,
                    detail: "|| needs text, got \(ColumnCoercion.kindName(a)) and \(ColumnCoercion.kindName(b))")
            }
        case .caseMapped(let e, let upper):
            let v = try e.value(row)
            switch v {
            case .null: return .null
            case .text(let s): return .text(Self.asciiMapped(s, upper: upper))
            default:
                throw .typeMismatch(
                    table: nil, column: nil,
                    detail: "\(upper ? "upper" : "lower") needs text, got \(ColumnCoercion.kindName(v))")
            }
        case .coalesce(let items):
            for item in items {
                let v = try item.value(row)
                if !v.isNull { return v }
            }
            return .null
        case .jsonPath(let e, let path):
            switch try e.value(row) {
            case .null: return .null
            case .json(let text), .text(let text): return JSONPathReader.value(in: text, at: path)
            case let v:
                throw .typeMismatch(
                    table: nil, column: nil,
                    detail: "a JSON path needs a JSON column, got \(ColumnCoercion.kindName(v))")
            }
        case .searchRank(let e, let query):
            switch try e.value(row) {
            case .null: return .integer(0)  // no term is in a NULL document: SQL's sum of CASE terms is 0 too
            case .text(let document):
                return .integer(Int64(query.rank(CompiledCondition.searchTokens(document))))
            case let v:
                throw .typeMismatch(
                    table: nil, column: nil,
                    detail: "a search rank needs a text document, got \(ColumnCoercion.kindName(v))")
            }
        }
    }

    static func arithmetic(_ op: ArithmeticOperator, _ a: DatabaseValue, _ b: DatabaseValue, text: String)
        throws(StrataError) -> DatabaseValue
    {
        let result: Result<DatabaseValue, CheckedArithmetic.Failure>
        switch (a, b) {
        case (.null, _), (_, .null): return .null
        case (.integer(let x), .integer(let y)): result = CheckedArithmetic.integer(op, x, y).map { .integer($0) }
        case (.integer(let x), .double(let y)): result = CheckedArithmetic.double(op, Double(x), y).map { .double($0) }
        case (.double(let x), .integer(let y)): result = CheckedArithmetic.double(op, x, Double(y)).map { .double($0) }
        case (.double(let x), .double(let y)): result = CheckedArithmetic.double(op, x, y).map { .double($0) }
        default:
            throw .typeMismatch(
                table: nil, column: nil,
                detail:
                    "\(op.rawValue) needs numbers, got \(ColumnCoercion.kindName(a)) and \(ColumnCoercion.kindName(b))")
        }
        switch result {
        case .success(.double(let d)) where d.isNaN: return .null  // NaN from an expression is NULL (README)
        case .success(let v): return v
        case .failure(let f) where f == CheckedArithmetic.remainderOfDouble:
            throw .typeMismatch(table: nil, column: nil, detail: f.reason)
        case .failure(let f): throw .arithmeticError(expression: text, reason: f.reason)
        }
    }

    /// ASCII letters folded, every other scalar kept (SQLite's `lower`/`upper`, PostgreSQL's under "C").
    static func asciiMapped(_ s: String, upper: Bool) -> String {
        var out = String.UnicodeScalarView()
        for scalar in s.unicodeScalars {
            let v = scalar.value
            if upper, v >= 0x61, v <= 0x7A, let u = Unicode.Scalar(v - 32) {
                out.append(u)
            } else if !upper, v >= 0x41, v <= 0x5A, let l = Unicode.Scalar(v + 32) {
                out.append(l)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// The expression as SQL-like text without values (`views + ?`), for error messages.
    static func describe(_ node: SQLExpression.Node) -> String {
        switch node {
        case .column(let c): return c
        case .joinedColumn(let t, let c): return t + "." + c
        case .value: return "?"
        case .arithmetic(let op, let l, let r): return "(\(describe(l)) \(op.rawValue) \(describe(r)))"
        case .concat(let l, let r): return "(\(describe(l)) || \(describe(r)))"
        case .caseMapped(let e, let upper): return (upper ? "upper(" : "lower(") + describe(e) + ")"
        case .coalesce(let items): return "COALESCE(" + items.map(describe).joined(separator: ", ") + ")"
        case .scalarSubquery(let s): return "(SELECT … FROM \(s.table))"
        case .jsonPath(let e, let path): return path.text(after: describe(e))
        default: return "…"
        }
    }
}

/// A boxed computed value, for an ``Operand`` that is one.
final class ComputedBox: Sendable {
    let computed: ComputedValue
    init(_ computed: ComputedValue) { self.computed = computed }
}
