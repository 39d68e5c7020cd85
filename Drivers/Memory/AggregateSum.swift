// AggregateSum: SUM and AVG in memory: integers exactly (past Int64 an error), doubles, decimals exactly.
import Foundation
import Strata

/// The running sum of a group's non-NULL values, by the column's type, folded in one value at a time.
struct AggregateSum {
    let type: ColumnType
    /// What errors name the sum by (`table.sum(column)`), spelled only when one is thrown.
    private let name: Name
    private var count = 0
    /// Integers: 128 bits cannot overflow on any number of Int64s a table can hold; only the total must fit.
    private var integerTotal: Int128 = 0
    /// Decimals: exact, past 38 significant digits on the way too; only the total must fit.
    private var decimalTotal = DecimalSum()
    private var doubleTotal = 0.0

    /// What an error names the sum by: text, or a table's aggregate, spelled out only for an error.
    enum Name {
        case text(String)
        case aggregate(table: String, Aggregate)
    }

    init(type: ColumnType, expression: String) {
        self.type = type
        self.name = .text(expression)
    }

    /// A sum named `table.` followed by the aggregate's summary (`bench.sum(i1)`) in its errors.
    init(type: ColumnType, table: String, aggregate: Aggregate) {
        self.type = type
        self.name = .aggregate(table: table, aggregate)
    }

    /// The expression errors name.
    var expression: String {
        switch name {
        case .text(let text): text
        case .aggregate(let table, let a): table + "." + a.summary
        }
    }

    /// Adds one non-NULL value.
    ///
    /// - Throws: ``StrataError/typeMismatch(table:column:detail:)`` for a value of another kind,
    ///   ``StrataError/arithmeticError(expression:reason:)`` for a double sum that overflows.
    mutating func add(_ v: DatabaseValue) throws(StrataError) {
        count += 1
        switch type {
        case .integer:
            guard case .integer(let i) = v else {
                throw .typeMismatch(table: nil, column: expression, detail: "\(v.summary) is not an integer")
            }
            integerTotal += Int128(i)
        case .decimal:
            let d: Decimal
            switch v {
            case .decimal(let x): d = x
            case .integer(let i): d = Decimal(i)
            default: throw .typeMismatch(table: nil, column: expression, detail: "\(v.summary) is not a decimal")
            }
            decimalTotal.add(d)
        default:
            switch v {
            case .double(let d): doubleTotal = try checkedDouble(.add, doubleTotal, d)
            case .integer(let i): doubleTotal = try checkedDouble(.add, doubleTotal, Double(i))
            default: throw .typeMismatch(table: nil, column: expression, detail: "\(v.summary) is not a number")
            }
        }
    }

    /// The sum (an integer, double or decimal) or, with `average`, the mean as a double: the exact sum read as the
    /// nearest double, divided by the count (README: numeric rules). A double sum that overflows is an error, one
    /// that is NaN (`inf + -inf`) is NULL; a decimal sum past 38 significant digits is NaN (an error once decoded).
    func result(average: Bool) throws(StrataError) -> DatabaseValue {
        let n = Double(count)
        switch type {
        case .integer:
            if average { return try checked(.divide, Double(integerTotal), n) }
            guard let sum = Int64(exactly: integerTotal) else {
                throw .arithmeticError(expression: expression, reason: "integer overflow: past Int64")
            }
            return .integer(sum)
        case .decimal:
            if average { return try checked(.divide, decimalTotal.double, n) }
            return .decimal(decimalTotal.value)
        default:
            return average ? try checked(.divide, doubleTotal, n) : (doubleTotal.isNaN ? .null : .double(doubleTotal))
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
}
