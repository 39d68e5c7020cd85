// CompiledCondition: an SQLExpression compiled against one table: columns resolved to positions, LIKE patterns parsed.
import Strata

/// An expression of the query AST, ready to evaluate over rows of one table.
///
/// Only `NOT` is boxed; comparisons take ``Operand``s, so the common shapes (`column op value`,
/// `column IN (…)`, `column LIKE …`) evaluate without touching the heap.
enum CompiledCondition: Sendable {
    /// A value used as a condition (a bool column, a bound bool).
    case operand(Operand)
    case constant(Bool)
    case compare(ComparisonOperator, Operand, Operand)
    case and([CompiledCondition])
    case or([CompiledCondition])
    indirect case not(CompiledCondition)
    case isNull(Operand, negated: Bool)
    case inList(Operand, ValueList, negated: Bool)
    case like(Operand, LikeMatcher, negated: Bool)
    case between(Operand, low: Operand, high: Operand, negated: Bool)
    /// A full-text match over a search document column (tokens split on spaces, as Strata stored them).
    case search(Operand, SearchQuery)

    /// Compiles `node` for `table`.
    ///
    /// - Throws: ``StrataError/unknownColumn(model:column:)`` for a column the table lacks (even when
    ///   it has no rows, as SQL fails at prepare time); ``StrataError/unsupported(feature:driver:)``
    ///   for raw SQL outside the subset ``RawCondition`` reads.
    init(_ node: SQLExpression.Node, table: MemoryTable) throws(StrataError) {
        try self.init(node, scope: ColumnScope(table))
    }

    /// Compiles `node` over the rows of `scope` (a table, or a table and its joins).
    init(_ node: SQLExpression.Node, scope: borrowing ColumnScope) throws(StrataError) {
        switch node {
        case .value(let v):
            // A constant in a condition's place is checked now, not per row: whether it is a condition does not
            // depend on the rows, so `p` and `NOT p` fail alike even when an index leaves no row to evaluate
            // (PostgreSQL refuses it when planning).
            _ = try Self.condition(v)
            self = .operand(.value(v))
        case .column, .joinedColumn:
            let operand = try Operand(node, scope: scope)
            // A column in a condition's place is checked by its type now, not per row, as a constant is: a date
            // column holds no condition whatever its rows, so `p` and `NOT p` fail alike even when an index leaves
            // no row to evaluate (found by the FuzzMemoryCondition target: `id AND d AND id IN ()`).
            if case .column(let p) = operand, scope.type(at: p) != .bool, scope.type(at: p) != .integer {
                let names = scope.names(at: p)
                throw .typeMismatch(
                    table: names.table, column: names.column,
                    detail: "a condition must be boolean, got a \(scope.type(at: p).rawValue) column")
            }
            self = .operand(operand)
        case .concat, .caseMapped:
            // Always text, whatever the rows: refused now for the same reason.
            throw .typeMismatch(table: nil, column: nil, detail: "a condition must be boolean, got text")
        case .constant(let b): self = .constant(b)
        case .compare(let op, let l, let r):
            self = .compare(op, try Operand(l, scope: scope), try Operand(r, scope: scope))
        case .and(let items):
            var out: [CompiledCondition] = []
            for item in items { out.append(try CompiledCondition(item, scope: scope)) }
            self = .and(out)
        case .or(let items):
            var out: [CompiledCondition] = []
            for item in items { out.append(try CompiledCondition(item, scope: scope)) }
            self = .or(out)
        case .not(let e): self = .not(try CompiledCondition(e, scope: scope))
        case .isNull(let e, let negated): self = .isNull(try Operand(e, scope: scope), negated: negated)
        case .inList(let e, let values, let negated):
            self = .inList(try Operand(e, scope: scope), ValueList(values), negated: negated)
        case .like(let e, let pattern, let caseInsensitive, let negated):
            let operand = try Operand(e, scope: scope)
            // A column that is not text is refused now, not per row (PostgreSQL refuses `bigint ~~ text` when
            // planning): `p` and `NOT p` then fail alike even when an index leaves no row to evaluate (found by
            // the FuzzMemoryCondition target).
            if case .column(let p) = operand, scope.type(at: p) != .text, scope.type(at: p) != .json {
                throw .typeMismatch(
                    table: nil, column: nil, detail: "LIKE needs text, got \(scope.type(at: p).rawValue)")
            }
            self = .like(operand, LikeMatcher(pattern: pattern, caseInsensitive: caseInsensitive), negated: negated)
        case .between(let e, let low, let high, let negated):
            self = .between(
                try Operand(e, scope: scope), low: try Operand(low, scope: scope),
                high: try Operand(high, scope: scope), negated: negated)
        case .unsafeRaw(let sql, let binds):
            self = try CompiledCondition(RawCondition.parse(sql, binds), scope: scope)
        case .arithmetic, .coalesce, .jsonPath, .searchRank:
            self = .operand(try Operand(node, scope: scope))
        case .typed(let e, _): self = try CompiledCondition(e, scope: scope)
        case .search(let e, let query): self = .search(try Operand(e, scope: scope), query)
        case .inSubquery, .scalarSubquery, .correlatedExists:
            throw .invalidQuery("a subquery the memory driver did not resolve")
        case .parameter(let slot): throw .unboundParameter(slot.name)
        }
    }
}

/// A scalar inside a condition: a column of the row, a bound value, or a nested condition's truth.
enum Operand: Sendable {
    case column(Int)
    case value(DatabaseValue)
    /// A boolean expression used as a value: TRUE, FALSE or NULL (unknown).
    case condition(NestedCondition)
    /// A computed value: arithmetic, concatenation, lower/upper, COALESCE.
    case computed(ComputedBox)

    init(_ node: SQLExpression.Node, scope: borrowing ColumnScope) throws(StrataError) {
        switch node {
        case .column(let name): self = .column(try scope.position(of: name))
        case .joinedColumn(let alias, let name): self = .column(try scope.position(of: name, in: alias))
        // -0.0 is bound as 0.0 on every driver (PostgreSQL sends "0").
        case .value(.double(let d)) where d == 0: self = .value(.double(0))
        case .value(let v): self = .value(v)
        // The memory driver holds decimals as decimals: the type a node carries for other backends changes nothing.
        case .typed(let e, _): self = try Operand(e, scope: scope)
        case .arithmetic, .concat, .caseMapped, .coalesce, .jsonPath, .searchRank:
            self = .computed(ComputedBox(try ComputedValue(node, scope: scope)))
        default: self = .condition(NestedCondition(try CompiledCondition(node, scope: scope)))
        }
    }
}

/// A boxed condition, for the rare boolean expression used as an operand.
final class NestedCondition: Sendable {
    let condition: CompiledCondition
    init(_ condition: CompiledCondition) { self.condition = condition }
}

/// The values of an `IN (…)` list, with a hash set of its integers for long lists.
struct ValueList: Sendable {
    let values: [DatabaseValue]
    let containsNull: Bool
    /// Set when every non-NULL value is an integer and the list is long enough to be worth hashing.
    let integers: Set<Int64>?

    init(_ values: [DatabaseValue]) {
        self.values = values
        containsNull = values.contains(where: \.isNull)
        var ints: Set<Int64> = []
        var allIntegers = values.count >= 8
        for v in values where allIntegers {
            switch v {
            case .integer(let i): ints.insert(i)
            case .null: continue
            default: allIntegers = false
            }
        }
        integers = allIntegers ? ints : nil
    }
}
