// ArithmeticOperator: the five arithmetic operators of the query AST, with Strata's one rule for their errors.

/// `+ - * / %` over integers and doubles.
///
/// Every driver follows PostgreSQL's rules, which Strata pins: integer division and remainder truncate toward
/// zero (`-5 / 2 = -2`, `-5 % 3 = -2`); dividing by zero, an Int64 result out of range and a finite double
/// result that overflows to infinity (or a product or quotient that underflows to zero) raise
/// ``StrataError/arithmeticError(expression:reason:)``; an integer and a double compute as doubles; NULL in,
/// NULL out. SQLite would return NULL for `x / 0` and turn an integer overflow into a REAL, so its dialect
/// renders each operator as a checked function (`strata_add(a, b)` …) that the SQLite driver registers.
public enum ArithmeticOperator: String, Sendable, Hashable, CaseIterable {
    /// Addition (`a + b`); an Int64 result out of range throws.
    case add = "+"
    /// Subtraction (`a - b`); an Int64 result out of range throws.
    case subtract = "-"
    /// Multiplication (`a * b`); an Int64 result out of range throws.
    case multiply = "*"
    /// Division (`a / b`), truncating toward zero for integers; dividing by zero throws.
    case divide = "/"
    /// The remainder of integer division (`a % b`), with the sign of `a`; dividing by zero throws.
    case remainder = "%"

    /// The checked SQL function a dialect with ``ArithmeticSyntax/checkedFunctions`` renders this operator as.
    public var checkedFunctionName: String {
        switch self {
        case .add: return "strata_add"
        case .subtract: return "strata_sub"
        case .multiply: return "strata_mul"
        case .divide: return "strata_div"
        case .remainder: return "strata_mod"
        }
    }
}

/// How a dialect spells arithmetic so that errors follow ``ArithmeticOperator``'s one rule.
public enum ArithmeticSyntax: Sendable, Hashable {
    /// `(a + b)`: the backend raises the errors itself (PostgreSQL: SQLSTATE 22012 and 22003).
    case operators
    /// `strata_add(a, b)`: functions the driver registers, which raise the errors (SQLite).
    case checkedFunctions
    /// `(a + b)`, the backend raising overflow itself, but for a backend whose division by zero is NULL and whose
    /// `/` of two integers is exact (MariaDB, MySQL): the divisor of `/` and `%` is guarded so that zero raises an
    /// out-of-range error (error 1690 naming `exp(7777 * …)`, which the driver maps to a division by zero), and a
    /// division the typed API marks as integer (`.typed(a / b, as: .integer)`) is `DIV`, truncating toward zero:
    ///
    /// ```sql
    /// (`views` DIV CASE WHEN EXP(7777 * (? = 0 AND `views` IS NOT NULL)) THEN ? END)  -- \.views / 2, Int64
    /// (`ratio` / CASE WHEN EXP(7777 * (? = 0 AND `ratio` IS NOT NULL)) THEN ? END)    -- \.ratio / 2, Double
    /// ```
    ///
    /// A product, or a quotient that is not an integer division, that is not a decimal's is wrapped as
    /// `CASE WHEN EXP(7779 * (v = 0 AND a <> 0 [AND b <> 0])) THEN v END` around its value `v`, so that one that
    /// underflows to 0 raises (error 1690, mapped to "double out of range (underflow)"); its operands are written
    /// three times.
    ///
    /// The divisor and the dividend are written, and bound, twice; a NULL divisor makes the CASE, and the quotient,
    /// NULL, and so does a NULL dividend over a zero divisor, as elsewhere. The guard reads the dividend so that it
    /// is not a constant MariaDB folds, and fails on, before it reads a row: a query with no row to divide answers.
    case guardedDivision
}

/// How a dialect spells `lower`/`upper` so that they fold ASCII letters only, the same on every backend.
public enum CaseMappingSyntax: Sendable, Hashable {
    /// `lower(x)`: the backend's function already folds ASCII only (SQLite without ICU).
    case plain
    /// `lower((x) COLLATE "C")`: PostgreSQL folds ASCII only under the "C" collation, whatever the cluster's.
    case collateC
    /// `REPLACE(…REPLACE(x, 'A', 'a')…, 'Z', 'z')`, one case-sensitive replacement per ASCII letter: for a backend
    /// whose `lower`/`upper` fold every script (MariaDB and MySQL, whatever the collation).
    case asciiReplace
}

/// The result of one arithmetic operation, checked by Strata's one rule; shared by the memory driver and the
/// SQLite driver's functions, so that both compute exactly what PostgreSQL does.
package enum CheckedArithmetic {
    /// A failure: the reason that goes into ``StrataError/arithmeticError(expression:reason:)``.
    package struct Failure: Error, Sendable, Equatable {
        package let reason: String
    }

    package static let divisionByZero = Failure(reason: "division by zero")
    package static let integerOverflow = Failure(reason: "integer out of range")
    package static let doubleOverflow = Failure(reason: "double out of range (overflow)")
    package static let doubleUnderflow = Failure(reason: "double out of range (underflow)")
    /// Not an arithmetic error but a type error (``StrataError/typeMismatch(table:column:detail:)``).
    package static let remainderOfDouble = Failure(reason: "% needs integers, got a double")

    /// `a op b` over Int64, truncating toward zero.
    package static func integer(_ op: ArithmeticOperator, _ a: Int64, _ b: Int64) -> Result<Int64, Failure> {
        switch op {
        case .add:
            let (r, o) = a.addingReportingOverflow(b)
            return o ? .failure(integerOverflow) : .success(r)
        case .subtract:
            let (r, o) = a.subtractingReportingOverflow(b)
            return o ? .failure(integerOverflow) : .success(r)
        case .multiply:
            let (r, o) = a.multipliedReportingOverflow(by: b)
            return o ? .failure(integerOverflow) : .success(r)
        case .divide:
            if b == 0 { return .failure(divisionByZero) }
            let (r, o) = a.dividedReportingOverflow(by: b)
            return o ? .failure(integerOverflow) : .success(r)
        case .remainder:
            if b == 0 { return .failure(divisionByZero) }
            if b == -1 { return .success(0) }  // Int64.min % -1 is 0, as on PostgreSQL
            return .success(a % b)
        }
    }

    /// `a op b` over doubles, with PostgreSQL's float8 checks. Remainder has no double form there (`float8 %
    /// float8` does not exist): it fails with ``remainderOfDouble``, a type error, and the typed API never offers it.
    package static func double(_ op: ArithmeticOperator, _ a: Double, _ b: Double) -> Result<Double, Failure> {
        let r: Double
        switch op {
        case .add:
            r = a + b
            if r.isInfinite && !a.isInfinite && !b.isInfinite { return .failure(doubleOverflow) }
        case .subtract:
            r = a - b
            if r.isInfinite && !a.isInfinite && !b.isInfinite { return .failure(doubleOverflow) }
        case .multiply:
            r = a * b
            if r.isInfinite && !a.isInfinite && !b.isInfinite { return .failure(doubleOverflow) }
            if r == 0 && a != 0 && b != 0 { return .failure(doubleUnderflow) }
        case .divide:
            if b == 0 && !a.isNaN { return .failure(divisionByZero) }
            r = a / b
            if r.isInfinite && !a.isInfinite { return .failure(doubleOverflow) }
            if r == 0 && a != 0 && !b.isInfinite { return .failure(doubleUnderflow) }
        case .remainder:
            return .failure(remainderOfDouble)
        }
        return .success(r)
    }
}
