// AggregateSum: SUM and AVG in memory: integers exactly (past Int64 an error), doubles, decimals exactly.
import Foundation
import Strata

/// The sum of a group's non-NULL values, by the column's type.
struct AggregateSum {
    let values: [DatabaseValue]
    let type: ColumnType
    let expression: String

    init(_ values: [DatabaseValue], type: ColumnType, expression: String) {
        self.values = values
        self.type = type
        self.expression = expression
    }

    /// The sum (an integer, double or decimal) or, with `average`, the mean as a double: the exact sum read as the
    /// nearest double, divided by the count (README: numeric rules). A double sum that overflows is an error, one
    /// that is NaN (`inf + -inf`) is NULL; a decimal sum past 38 significant digits is NaN (an error once decoded).
    func result(average: Bool) throws(StrataError) -> DatabaseValue {
        let n = Double(values.count)
        switch type {
        case .integer:
            // 128 bits cannot overflow on any number of Int64s a table can hold; only the total must fit.
            var total: Int128 = 0
            for v in values { total += Int128(try integer(v)) }
            if average { return try checked(.divide, Double(total), n) }
            guard let sum = Int64(exactly: total) else {
                throw .arithmeticError(expression: expression, reason: "integer overflow: past Int64")
            }
            return .integer(sum)
        case .decimal:
            var total = Decimal(0)
            var exact = true
            for v in values {
                let d: Decimal
                switch v {
                case .decimal(let x): d = x
                case .integer(let i): d = Decimal(i)
                default: throw .typeMismatch(table: nil, column: expression, detail: "\(v.summary) is not a decimal")
                }
                if exact, let sum = DecimalDigits.add(total, d) {
                    total = sum
                } else {
                    exact = false
                    total += d
                }
            }
            if average { return try checked(.divide, AggregateNumber.double(total), n) }
            return .decimal(exact ? total : .nan)
        default:
            var total = 0.0
            for v in values {
                switch v {
                case .double(let d): total = try checkedDouble(.add, total, d)
                case .integer(let i): total = try checkedDouble(.add, total, Double(i))
                default: throw .typeMismatch(table: nil, column: expression, detail: "\(v.summary) is not a number")
                }
            }
            return average ? try checked(.divide, total, n) : (total.isNaN ? .null : .double(total))
        }
    }

    /// `a op b` with PostgreSQL's float8 checks, as a value (NaN as NULL).
    private func checked(_ op: ArithmeticOperator, _ a: Double, _ b: Double) throws(StrataError) -> DatabaseValue {
        let r = try checkedDouble(op, a, b)
        return r.isNaN ? .null : .double(r)
    }

    private func checkedDouble(_ op: ArithmeticOperator, _ a: Double, _ b: Double) throws(StrataError) -> Double {
        switch CheckedArithmetic.double(op, a, b) {
        case .success(let r): return r
        case .failure(let f): throw .arithmeticError(expression: expression, reason: f.reason)
        }
    }

    private func integer(_ v: DatabaseValue) throws(StrataError) -> Int64 {
        guard case .integer(let i) = v else {
            throw .typeMismatch(table: nil, column: expression, detail: "\(v.summary) is not an integer")
        }
        return i
    }
}
