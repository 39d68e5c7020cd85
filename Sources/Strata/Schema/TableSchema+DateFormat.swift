// TableSchema+DateFormat: writes dates in the form a column declares, in binds, assignments and columns.
import Foundation

extension TableColumn {
    /// This column with dates stored in `format` (a TEXT, BIGINT or DOUBLE column; see ``DateFormat``).
    ///
    /// ```swift
    /// TableColumn(\Invoice.issuedAt, "issued_at").storing(dates: .unixMilliseconds)
    /// ```
    public func storing(dates format: DateFormat) -> TableColumn {
        var copy = self
        copy.dateFormat = format
        copy.type = format.columnType
        copy.schemaDefault = schemaDefault.map(format.stored)
        copy.backfill = backfill.map(format.stored)
        return copy
    }
}

extension TableSchema {
    /// Whether column `column` holds text (so ordering it names the dialect's code-point collation).
    func isText(_ column: String?) -> Bool {
        columns.first { $0.name == column }?.type == .text
    }

    /// Whether column `column` cannot hold NULL: a non-optional column or the primary key (so ordering it needs no
    /// `NULLS` clause on any backend).
    func isNeverNull(_ column: String?) -> Bool {
        columns.first { $0.name == column }.map { !$0.isNullable || $0.isPrimaryKey } ?? false
    }

    /// `value` in the form column `column` stores dates in (the value itself for other columns).
    public func stored(_ value: DatabaseValue, column: String) -> DatabaseValue {
        guard case .date = value, let format = columns.first(where: { $0.name == column })?.dateFormat else {
            return value
        }
        return format.stored(value)
    }

    /// `expression` (a condition on column `column` alone) with each date value in the column's stored form,
    /// so `where(\.d == d)` and `between` compare like with like.
    func storingDates(_ expression: SQLExpression, column: String) -> SQLExpression {
        guard let index = index(of: column) else { return expression }
        return storingDates(expression, columnAt: index)
    }

    /// `storingDates(_:column:)` for the column at `index`, found already (a query's key path lookup).
    func storingDates(_ expression: SQLExpression, columnAt index: Int) -> SQLExpression {
        guard let format = columns[index].dateFormat, format != .strata else { return expression }
        return SQLExpression(expression.node.storingDates(format))
    }
}

extension SQLExpression.Node {
    /// The node with each bound date written in `format`.
    fileprivate func storingDates(_ format: DateFormat) -> Self {
        switch self {
        case .value(let v): return .value(format.stored(v))
        case .parameter(var slot):
            slot.dateFormat = format
            return .parameter(slot)
        case .compare(let op, let l, let r): return .compare(op, l.storingDates(format), r.storingDates(format))
        case .inList(let e, let values, let negated): return .inList(e, values.map(format.stored), negated: negated)
        case .between(let e, let low, let high, let negated):
            return .between(e, low: low.storingDates(format), high: high.storingDates(format), negated: negated)
        case .not(let e): return .not(e.storingDates(format))
        case .and(let items): return .and(items.map { $0.storingDates(format) })
        case .or(let items): return .or(items.map { $0.storingDates(format) })
        default: return self
        }
    }
}

extension QueryBuilder {
    /// The current time, to the microsecond, for timestamps a bulk write sets.
    static func now() -> Date { DatabaseValue.roundedToMicroseconds(Date()) }
}
