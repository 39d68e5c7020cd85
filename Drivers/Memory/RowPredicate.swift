// RowPredicate: a CompiledCondition turned into closures, with fast paths for the common shapes.
import Strata

/// A condition as a closure over a row, built once per statement.
///
/// `column op value`, `column IS NULL`, `column IN (…)`, `column LIKE …`, a bool column, and AND, OR
/// and NOT of those get closures that read the row in place; any other shape falls back to the
/// general evaluator (``CompiledCondition/truth(_:)``), with the same results.
struct RowPredicate {
    typealias Evaluate = ([DatabaseValue]) throws(StrataError) -> Truth

    let evaluate: Evaluate

    init(_ condition: CompiledCondition) { evaluate = Self.make(condition) }

    private static func make(_ condition: CompiledCondition) -> Evaluate {
        switch condition {
        case .compare(let op, .column(let i), .value(let v)): return compare(op, column: i, value: v)
        case .compare(let op, .value(let v), .column(let i)): return compare(op.mirrored, column: i, value: v)
        case .and(let items) where !items.isEmpty:
            return items.dropFirst().reduce(make(items[0])) { lhs, item in and(lhs, make(item)) }
        case .or(let items) where !items.isEmpty:
            return items.dropFirst().reduce(make(items[0])) { lhs, item in or(lhs, make(item)) }
        case .not(let inner):
            let e = make(inner)
            return { row throws(StrataError) in try e(row).negated }
        case .constant(let b):
            let t = Truth(b)
            return { _ in t }
        case .isNull(.column(let i), let negated):
            return { row in Truth(row[i].isNull).negated(if: negated) }
        case .operand(.column(let i)):
            return { row throws(StrataError) in
                if case .bool(let b) = row[i] { return Truth(b) }
                return try condition.truth(row)
            }
        default:
            return { row throws(StrataError) in try condition.truth(row) }
        }
    }

    /// `column op value`, specialized on the value's kind; other kinds in the row take the general order.
    private static func compare(_ op: ComparisonOperator, column i: Int, value v: DatabaseValue) -> Evaluate {
        switch v {
        case .null:
            return { _ in .unknown }
        case .integer(let c):
            return { row in
                if case .integer(let x) = row[i] {
                    return Truth(CompiledCondition.holds(op, x < c ? -1 : (x == c ? 0 : 1)))
                }
                return general(op, row[i], v)
            }
        case .text(let c):
            return { row in
                if case .text(let x) = row[i] {
                    return Truth(CompiledCondition.holds(op, ValueOrder.compareUTF8(x, c)))
                }
                return general(op, row[i], v)
            }
        case .bool(let c):
            return { row in
                if case .bool(let x) = row[i] { return Truth(CompiledCondition.holds(op, x == c ? 0 : (x ? 1 : -1))) }
                return general(op, row[i], v)
            }
        default:
            return { row in general(op, row[i], v) }
        }
    }

    @inline(__always)
    private static func general(_ op: ComparisonOperator, _ x: DatabaseValue, _ v: DatabaseValue) -> Truth {
        if x.isNull { return .unknown }
        return Truth(CompiledCondition.holds(op, ValueOrder.compare(x, v)))
    }

    private static func and(_ lhs: @escaping Evaluate, _ rhs: @escaping Evaluate) -> Evaluate {
        { row throws(StrataError) in
            let a = try lhs(row)
            if a == .no { return .no }
            let b = try rhs(row)
            if b == .no { return .no }
            return a == .yes && b == .yes ? .yes : .unknown
        }
    }

    private static func or(_ lhs: @escaping Evaluate, _ rhs: @escaping Evaluate) -> Evaluate {
        { row throws(StrataError) in
            let a = try lhs(row)
            if a == .yes { return .yes }
            let b = try rhs(row)
            if b == .yes { return .yes }
            return a == .no && b == .no ? .no : .unknown
        }
    }
}

extension ComparisonOperator {
    /// The operator with its operands swapped: `v < column` is `column > v`.
    var mirrored: ComparisonOperator {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }
}
