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

    /// The sum (an integer, double or decimal) or, with `average`, the mean as a double.
    func result(average: Bool) throws(StrataError) -> DatabaseValue {
        let n = Double(values.count)
        switch type {
        case .integer:
            // 128 bits cannot overflow on any number of Int64s a table can hold; only the total must fit.
            var total: Int128 = 0
            for v in values { total += Int128(try integer(v)) }
            if average { return .double(Double(total) / n) }
            guard let sum = Int64(exactly: total) else {
                throw .arithmeticError(expression: expression, reason: "integer overflow: past Int64")
            }
            return .integer(sum)
        case .decimal:
            var total = Decimal(0)
            for v in values {
                switch v {
                case .decimal(let d): total += d
                case .integer(let i): total += Decimal(i)
                default: throw .typeMismatch(table: nil, column: expression, detail: "\(v.summary) is not a decimal")
                }
            }
            if average { return .double(AggregateNumber.double(total / Decimal(values.count))) }
            return .decimal(total)
        default:
            var total = 0.0
            for v in values {
                switch v {
                case .double(let d): total += d
                case .integer(let i): total += Double(i)
                default: throw .typeMismatch(table: nil, column: expression, detail: "\(v.summary) is not a number")
                }
            }
            return .double(average ? total / n : total)
        }
    }

    private func integer(_ v: DatabaseValue) throws(StrataError) -> Int64 {
        guard case .integer(let i) = v else {
            throw .typeMismatch(table: nil, column: expression, detail: "\(v.summary) is not an integer")
        }
        return i
    }
}
