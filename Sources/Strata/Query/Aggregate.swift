// Aggregate: the aggregate calls, select items and HAVING conditions of a grouped SELECT, as plain values.
import Foundation

/// One aggregate call in a SELECT: `COUNT(*)`, `COUNT([DISTINCT] c)`, `SUM(c)`, `AVG(c)`, `MIN(c)`, `MAX(c)`.
///
/// Every driver gives the same answer: an empty input gives NULL (0 for a count); `AVG` is a double;
/// `SUM` over integers is an integer, and a total past Int64 is ``StrataError/arithmeticError(expression:reason:)``;
/// `SUM` over decimals is exact.
public struct Aggregate: Sendable, Hashable {
    /// The aggregate function.
    public enum Function: String, Sendable, Hashable, CaseIterable {
        case count, sum, avg, min, max
    }

    /// The function called: count, sum, avg, min or max.
    public var function: Function
    /// The argument, or nil for `COUNT(*)`.
    public var column: ColumnRef?
    /// Whether only distinct non-NULL values count (`COUNT(DISTINCT c)`).
    public var distinct: Bool
    /// The argument column's type: how a dialect spells the call and how a result decodes.
    public var type: ColumnType?

    /// An aggregate call.
    ///
    /// - Parameters:
    ///   - function: the function to call.
    ///   - column: its argument, or nil for `COUNT(*)`.
    ///   - distinct: whether only distinct non-NULL values count (`COUNT(DISTINCT c)`).
    ///   - type: the argument column's type, which picks the dialect's spelling and the result's decoding.
    public init(_ function: Function, _ column: ColumnRef? = nil, distinct: Bool = false, type: ColumnType? = nil) {
        self.function = function
        self.column = column
        self.distinct = distinct
        self.type = type
    }

    /// `COUNT(*)`.
    public static let countAll = Aggregate(.count)

    /// How the call reads in messages: `sum(order.amount)`, `count(*)`.
    public var summary: String {
        guard let column else { return function.rawValue + "(*)" }
        let name = column.table.map { $0 + "." + column.name } ?? column.name
        return function.rawValue + "(" + (distinct ? "distinct " : "") + name + ")"
    }

    /// The result as the Swift type every driver agrees on: an integer for a count and for a sum of integers
    /// (a decimal total past Int64 is an error), a double for an average and for a sum of doubles, an exact
    /// decimal for a sum of decimals; MIN and MAX as read (their column's type decodes them).
    ///
    /// - Throws: ``StrataError/arithmeticError(expression:reason:)`` for an integer sum past Int64;
    ///   ``StrataError/decodingFailed(model:column:value:expected:)`` for a value of no numeric kind.
    public func normalize(_ value: DatabaseValue, model: String) throws(StrataError) -> DatabaseValue {
        if value.isNull { return function == .count ? .integer(0) : .null }
        switch (function, type) {
        case (.count, _), (.sum, .integer?):
            switch value {
            case .integer: return value
            case .decimal(let d):
                guard let i = AggregateNumber.int64(exactly: d) else {
                    throw .arithmeticError(expression: model + "." + summary, reason: "integer overflow: past Int64")
                }
                return .integer(i)
            case .double(let d):
                guard let i = Int64(exactly: d) else {
                    throw .arithmeticError(expression: model + "." + summary, reason: "integer overflow: past Int64")
                }
                return .integer(i)
            default: break
            }
        case (.avg, _), (.sum, .double?):
            switch value {
            case .double: return value
            case .integer(let i): return .double(Double(i))
            case .decimal(let d): return .double(AggregateNumber.double(d))
            case .text(let s): if let d = Double(s) { return .double(d) }
            default: break
            }
        case (.sum, .decimal?):
            switch value {
            case .decimal(let d) where d.isNaN:
                throw .arithmeticError(expression: model + "." + summary, reason: DecimalDigits.pastLimit)
            case .decimal: return value
            case .integer(let i): return .decimal(Decimal(i))
            case .text("NaN"):
                throw .arithmeticError(expression: model + "." + summary, reason: DecimalDigits.pastLimit)
            case .text(let s): if let d = AggregateNumber.decimal(s) { return .decimal(d) }
            default: break
            }
        default:
            return value
        }
        throw .decodingFailed(model: model, column: summary, value: value.summary, expected: "number")
    }
}

/// One item of a SELECT's list: a column (grouped, or of every row), an aggregate, or a window function.
public enum SelectItem: Sendable, Hashable {
    /// A column's value: a grouped column, or a column of every row when nothing is aggregated.
    case column(ColumnRef)
    /// An aggregate call's value for each group (or the whole result).
    case aggregate(Aggregate)
    /// A window function's value for each row of a SELECT that is not grouped (see ``WindowFunction``).
    case window(WindowFunction)
    /// A value computed for each row of a SELECT that is not grouped (a JSON path's value, see ``JSONPath``).
    case expression(SQLExpression)

    /// The aggregate whose types the item's value follows: the aggregate itself, or a running aggregate's.
    public var aggregateRule: Aggregate? {
        switch self {
        case .aggregate(let a): a
        case .window(let w): w.aggregate
        case .column, .expression: nil
        }
    }
}

/// A HAVING condition: comparisons of aggregates (or grouped columns) with bound values, joined by AND, OR, NOT.
public struct HavingCondition: Sendable, Hashable {
    /// The condition's tree.
    public indirect enum Node: Sendable, Hashable {
        /// `item op value`; NULL on either side is unknown, so the group is left out.
        case compare(ComparisonOperator, SelectItem, DatabaseValue)
        /// `item IS NULL`, or `IS NOT NULL` when `negated`.
        case isNull(SelectItem, negated: Bool)
        /// All of the conditions (`a AND b …`).
        case and([Node])
        /// Any of the conditions (`a OR b …`).
        case or([Node])
        /// The negation of a condition (`NOT a`); unknown stays unknown.
        case not(Node)
    }

    /// The condition's tree.
    public var node: Node

    /// A HAVING condition over this tree.
    ///
    /// - Parameter node: the condition's tree.
    public init(_ node: Node) { self.node = node }

    /// The aggregates the condition reads.
    public var items: [SelectItem] {
        func walk(_ n: Node) -> [SelectItem] {
            switch n {
            case .compare(_, let item, _), .isNull(let item, _): return [item]
            case .and(let all), .or(let all): return all.flatMap(walk)
            case .not(let inner): return walk(inner)
            }
        }
        return walk(node)
    }

    /// The decimal sums the condition reads, once each, in order: each is read for every group before the
    /// condition, and one past 38 significant digits is an arithmetic error on every driver (issue 25).
    package var decimalSums: [Aggregate] {
        var out: [Aggregate] = []
        for case .aggregate(let a) in items where a.function == .sum && a.type == .decimal && !out.contains(a) {
            out.append(a)
        }
        return out
    }
}
