// Evaluator: evaluates a CompiledCondition over one row with SQL's three-valued logic.
import Strata

extension CompiledCondition {
    /// The condition's truth for `row`; only ``Truth/yes`` selects the row.
    ///
    /// - Throws: ``StrataError/typeMismatch(table:column:detail:)`` when a non-boolean value is used
    ///   as a condition or LIKE meets a value that is not text (PostgreSQL rejects both).
    func truth(_ row: [DatabaseValue]) throws(StrataError) -> Truth {
        switch self {
        case .compare(let op, let l, let r):
            return try Self.compare(op, l, r, row)
        case .and(let items):
            var result = Truth.yes
            for i in items.indices {
                switch try items[i].truth(row) {
                case .no: return .no
                case .unknown: result = .unknown
                case .yes: continue
                }
            }
            return result
        case .or(let items):
            var result = Truth.no
            for i in items.indices {
                switch try items[i].truth(row) {
                case .yes: return .yes
                case .unknown: result = .unknown
                case .no: continue
                }
            }
            return result
        case .constant(let b): return Truth(b)
        case .not(let e): return try e.truth(row).negated
        case .isNull(let e, let negated):
            if case .column(let i) = e { return Truth(row[i].isNull).negated(if: negated) }
            return Truth(try e.value(row).isNull).negated(if: negated)
        case .inList(let e, let list, let negated):
            if list.values.isEmpty { return Truth(negated) }
            if case .column(let i) = e { return Self.member(row[i], of: list).negated(if: negated) }
            return Self.member(try e.value(row), of: list).negated(if: negated)
        case .like(let e, let matcher, let negated):
            if case .column(let i) = e { return try Self.like(row[i], matcher).negated(if: negated) }
            return try Self.like(try e.value(row), matcher).negated(if: negated)
        case .between(let e, let low, let high, let negated):
            let atLeast = try Self.compare(.greaterOrEqual, e, low, row)
            if atLeast == .no { return Truth.no.negated(if: negated) }
            let atMost = try Self.compare(.lessOrEqual, e, high, row)
            let both: Truth = atMost == .no ? .no : (atLeast == .yes && atMost == .yes ? .yes : .unknown)
            return both.negated(if: negated)
        case .search(let e, let query):
            switch try e.value(row) {
            case .null: return .unknown
            case .text(let document): return Truth(query.matches(Self.searchTokens(document)))
            case let v:
                throw .typeMismatch(
                    table: nil, column: nil,
                    detail: "a full-text search needs a text document, got \(ColumnCoercion.kindName(v))")
            }
        case .operand(let o):
            if case .column(let i) = o { return try Self.condition(row[i]) }
            return try Self.condition(try o.value(row))
        }
    }

    /// `l op r`: unknown when either side is NULL.
    @inline(__always)
    private static func compare(_ op: ComparisonOperator, _ l: Operand, _ r: Operand, _ row: [DatabaseValue])
        throws(StrataError) -> Truth
    {
        switch l {
        case .column(let i):
            switch r {
            case .value(let v): return compared(op, row[i], v)
            case .column(let j): return compared(op, row[i], row[j])
            case .condition, .computed: return compared(op, row[i], try r.value(row))
            }
        case .value(let v):
            if case .column(let j) = r { return compared(op, v, row[j]) }
            return compared(op, v, try r.value(row))
        case .condition, .computed:
            return compared(op, try l.value(row), try r.value(row))
        }
    }

    @inline(__always)
    private static func compared(_ op: ComparisonOperator, _ a: DatabaseValue, _ b: DatabaseValue) -> Truth {
        if a.isNull || b.isNull { return .unknown }
        return Truth(holds(op, ValueOrder.compare(a, b)))
    }

    @inline(__always)
    static func holds(_ op: ComparisonOperator, _ order: Int) -> Bool {
        switch op {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }

    /// `x IN list`: true on a match; unknown when `x` is NULL or the list holds a NULL; else false.
    private static func member(_ x: DatabaseValue, of list: ValueList) -> Truth {
        if x.isNull { return .unknown }
        if let integers = list.integers, case .integer(let i) = x {
            return integers.contains(i) ? .yes : (list.containsNull ? .unknown : .no)
        }
        for v in list.values where !v.isNull && ValueOrder.equal(x, v) { return .yes }
        return list.containsNull ? .unknown : .no
    }

    private static func like(_ x: DatabaseValue, _ matcher: LikeMatcher) throws(StrataError) -> Truth {
        switch x {
        case .null: return .unknown
        case .text(let s), .json(let s): return Truth(matcher.matches(s))
        default:
            throw .typeMismatch(table: nil, column: nil, detail: "LIKE needs text, got \(ColumnCoercion.kindName(x))")
        }
    }

    /// A value used as a condition: a bool, NULL (unknown), or an integer (non-zero is true, as in SQLite).
    static func condition(_ x: DatabaseValue) throws(StrataError) -> Truth {
        switch x {
        case .null: return .unknown
        case .bool(let b): return Truth(b)
        case .integer(let i): return Truth(i != 0)
        default:
            throw .typeMismatch(
                table: nil, column: nil, detail: "a condition must be boolean, got \(ColumnCoercion.kindName(x))")
        }
    }
}

extension Operand {
    /// The operand's value for `row`; a nested condition yields `.bool` or NULL for unknown.
    func value(_ row: [DatabaseValue]) throws(StrataError) -> DatabaseValue {
        switch self {
        case .column(let i): return row[i]
        case .value(let v): return v
        case .condition(let nested): return try nested.condition.truth(row).databaseValue
        case .computed(let box): return try box.computed.value(row)
        }
    }
}

extension CompiledCondition {
    /// The tokens of a stored search document: Strata wrote them normalized and joined by single spaces, so the
    /// memory driver splits on spaces, as PostgreSQL's `string_to_array` and the padded LIKE of other backends do.
    static func searchTokens(_ document: String) -> Set<[UInt8]> {
        Set(document.utf8.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true).map(Array.init))
    }
}
