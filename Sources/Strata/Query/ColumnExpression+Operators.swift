// ColumnExpression+Operators: `+ - * / %`, text `+` and comparisons over key paths and ColumnExpressions.

// Each operator takes (key path or expression) op (value, key path or expression) of one Swift type.

/// `lhs + rhs` (see ``ArithmeticOperator``).
public func + <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression<M, V>(value: rhs)) { .arithmetic(.add, $0, $1) }
}

/// `lhs + rhs` (see ``ArithmeticOperator``).
public func + <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression(rhs)) { .arithmetic(.add, $0, $1) }
}

/// `lhs + rhs` (see ``ArithmeticOperator``).
public func + <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), rhs) { .arithmetic(.add, $0, $1) }
}

/// `lhs + rhs` (see ``ArithmeticOperator``).
public func + <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(lhs, ColumnExpression<M, V>(value: rhs)) { .arithmetic(.add, $0, $1) }
}

/// `lhs + rhs` (see ``ArithmeticOperator``).
public func + <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V> {
    combined(lhs, ColumnExpression(rhs)) { .arithmetic(.add, $0, $1) }
}

/// `lhs + rhs` (see ``ArithmeticOperator``).
public func + <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>) -> ColumnExpression<
    M, V
> {
    combined(lhs, rhs) { .arithmetic(.add, $0, $1) }
}

/// `lhs - rhs` (see ``ArithmeticOperator``).
public func - <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression<M, V>(value: rhs)) { .arithmetic(.subtract, $0, $1) }
}

/// `lhs - rhs` (see ``ArithmeticOperator``).
public func - <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression(rhs)) { .arithmetic(.subtract, $0, $1) }
}

/// `lhs - rhs` (see ``ArithmeticOperator``).
public func - <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), rhs) { .arithmetic(.subtract, $0, $1) }
}

/// `lhs - rhs` (see ``ArithmeticOperator``).
public func - <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(lhs, ColumnExpression<M, V>(value: rhs)) { .arithmetic(.subtract, $0, $1) }
}

/// `lhs - rhs` (see ``ArithmeticOperator``).
public func - <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V> {
    combined(lhs, ColumnExpression(rhs)) { .arithmetic(.subtract, $0, $1) }
}

/// `lhs - rhs` (see ``ArithmeticOperator``).
public func - <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>) -> ColumnExpression<
    M, V
> {
    combined(lhs, rhs) { .arithmetic(.subtract, $0, $1) }
}

/// `lhs * rhs` (see ``ArithmeticOperator``).
public func * <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression<M, V>(value: rhs)) { .arithmetic(.multiply, $0, $1) }
}

/// `lhs * rhs` (see ``ArithmeticOperator``).
public func * <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression(rhs)) { .arithmetic(.multiply, $0, $1) }
}

/// `lhs * rhs` (see ``ArithmeticOperator``).
public func * <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), rhs) { .arithmetic(.multiply, $0, $1) }
}

/// `lhs * rhs` (see ``ArithmeticOperator``).
public func * <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(lhs, ColumnExpression<M, V>(value: rhs)) { .arithmetic(.multiply, $0, $1) }
}

/// `lhs * rhs` (see ``ArithmeticOperator``).
public func * <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V> {
    combined(lhs, ColumnExpression(rhs)) { .arithmetic(.multiply, $0, $1) }
}

/// `lhs * rhs` (see ``ArithmeticOperator``).
public func * <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>) -> ColumnExpression<
    M, V
> {
    combined(lhs, rhs) { .arithmetic(.multiply, $0, $1) }
}

/// `lhs / rhs` (see ``ArithmeticOperator``).
public func / <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression<M, V>(value: rhs)) { division($0, $1, V.self) }
}

/// `lhs / rhs` (see ``ArithmeticOperator``).
public func / <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression(rhs)) { division($0, $1, V.self) }
}

/// `lhs / rhs` (see ``ArithmeticOperator``).
public func / <M, V: ArithmeticColumn>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), rhs) { division($0, $1, V.self) }
}

/// `lhs / rhs` (see ``ArithmeticOperator``).
public func / <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(lhs, ColumnExpression<M, V>(value: rhs)) { division($0, $1, V.self) }
}

/// `lhs / rhs` (see ``ArithmeticOperator``).
public func / <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V> {
    combined(lhs, ColumnExpression(rhs)) { division($0, $1, V.self) }
}

/// `lhs / rhs` (see ``ArithmeticOperator``).
public func / <M, V: ArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>) -> ColumnExpression<
    M, V
> {
    combined(lhs, rhs) { division($0, $1, V.self) }
}

/// `lhs % rhs` (see ``ArithmeticOperator``).
public func % <M, V: IntegerArithmeticColumn>(lhs: KeyPath<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression<M, V>(value: rhs)) { .arithmetic(.remainder, $0, $1) }
}

/// `lhs % rhs` (see ``ArithmeticOperator``).
public func % <M, V: IntegerArithmeticColumn>(lhs: KeyPath<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression(rhs)) { .arithmetic(.remainder, $0, $1) }
}

/// `lhs % rhs` (see ``ArithmeticOperator``).
public func % <M, V: IntegerArithmeticColumn>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> ColumnExpression<M, V>
{
    combined(ColumnExpression(lhs), rhs) { .arithmetic(.remainder, $0, $1) }
}

/// `lhs % rhs` (see ``ArithmeticOperator``).
public func % <M, V: IntegerArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(lhs, ColumnExpression<M, V>(value: rhs)) { .arithmetic(.remainder, $0, $1) }
}

/// `lhs % rhs` (see ``ArithmeticOperator``).
public func % <M, V: IntegerArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V>
{
    combined(lhs, ColumnExpression(rhs)) { .arithmetic(.remainder, $0, $1) }
}

/// `lhs % rhs` (see ``ArithmeticOperator``).
public func % <M, V: IntegerArithmeticColumn>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>)
    -> ColumnExpression<M, V>
{
    combined(lhs, rhs) { .arithmetic(.remainder, $0, $1) }
}

/// `lhs || rhs`: text concatenation (NULL when either side is).
public func + <M, V: StringColumn>(lhs: KeyPath<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression<M, V>(value: rhs)) { .concat($0, $1) }
}

/// `lhs || rhs`: text concatenation (NULL when either side is).
public func + <M, V: StringColumn>(lhs: KeyPath<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), ColumnExpression(rhs)) { .concat($0, $1) }
}

/// `lhs || rhs`: text concatenation (NULL when either side is).
public func + <M, V: StringColumn>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> ColumnExpression<M, V> {
    combined(ColumnExpression(lhs), rhs) { .concat($0, $1) }
}

/// `lhs || rhs`: text concatenation (NULL when either side is).
public func + <M, V: StringColumn>(lhs: ColumnExpression<M, V>, rhs: V) -> ColumnExpression<M, V> {
    combined(lhs, ColumnExpression<M, V>(value: rhs)) { .concat($0, $1) }
}

/// `lhs || rhs`: text concatenation (NULL when either side is).
public func + <M, V: StringColumn>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> ColumnExpression<M, V> {
    combined(lhs, ColumnExpression(rhs)) { .concat($0, $1) }
}

/// `lhs || rhs`: text concatenation (NULL when either side is).
public func + <M, V: StringColumn>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>) -> ColumnExpression<M, V> {
    combined(lhs, rhs) { .concat($0, $1) }
}

/// `lhs == rhs` over computed values.
public func == <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: V) -> Condition<M> {
    comparison(.equal, lhs, ColumnExpression<M, V>(value: rhs))
}

/// `lhs == rhs` over computed values.
public func == <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> Condition<M> {
    comparison(.equal, lhs, ColumnExpression(rhs))
}

/// `lhs == rhs` over computed values.
public func == <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>) -> Condition<
    M
> {
    comparison(.equal, lhs, rhs)
}

/// `lhs == rhs` over computed values.
public func == <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> Condition<M> {
    comparison(.equal, ColumnExpression(lhs), rhs)
}

/// `lhs != rhs` over computed values.
public func != <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: V) -> Condition<M> {
    comparison(.notEqual, lhs, ColumnExpression<M, V>(value: rhs))
}

/// `lhs != rhs` over computed values.
public func != <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> Condition<M> {
    comparison(.notEqual, lhs, ColumnExpression(rhs))
}

/// `lhs != rhs` over computed values.
public func != <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>) -> Condition<
    M
> {
    comparison(.notEqual, lhs, rhs)
}

/// `lhs != rhs` over computed values.
public func != <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> Condition<M> {
    comparison(.notEqual, ColumnExpression(lhs), rhs)
}

/// `lhs < rhs` over computed values.
public func < <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: V) -> Condition<M> {
    comparison(.less, lhs, ColumnExpression<M, V>(value: rhs))
}

/// `lhs < rhs` over computed values.
public func < <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> Condition<M> {
    comparison(.less, lhs, ColumnExpression(rhs))
}

/// `lhs < rhs` over computed values.
public func < <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>) -> Condition<M>
{
    comparison(.less, lhs, rhs)
}

/// `lhs < rhs` over computed values.
public func < <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> Condition<M> {
    comparison(.less, ColumnExpression(lhs), rhs)
}

/// `lhs <= rhs` over computed values.
public func <= <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: V) -> Condition<M> {
    comparison(.lessOrEqual, lhs, ColumnExpression<M, V>(value: rhs))
}

/// `lhs <= rhs` over computed values.
public func <= <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> Condition<M> {
    comparison(.lessOrEqual, lhs, ColumnExpression(rhs))
}

/// `lhs <= rhs` over computed values.
public func <= <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>) -> Condition<
    M
> {
    comparison(.lessOrEqual, lhs, rhs)
}

/// `lhs <= rhs` over computed values.
public func <= <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> Condition<M> {
    comparison(.lessOrEqual, ColumnExpression(lhs), rhs)
}

/// `lhs > rhs` over computed values.
public func > <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: V) -> Condition<M> {
    comparison(.greater, lhs, ColumnExpression<M, V>(value: rhs))
}

/// `lhs > rhs` over computed values.
public func > <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> Condition<M> {
    comparison(.greater, lhs, ColumnExpression(rhs))
}

/// `lhs > rhs` over computed values.
public func > <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>) -> Condition<M>
{
    comparison(.greater, lhs, rhs)
}

/// `lhs > rhs` over computed values.
public func > <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> Condition<M> {
    comparison(.greater, ColumnExpression(lhs), rhs)
}

/// `lhs >= rhs` over computed values.
public func >= <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: V) -> Condition<M> {
    comparison(.greaterOrEqual, lhs, ColumnExpression<M, V>(value: rhs))
}

/// `lhs >= rhs` over computed values.
public func >= <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: KeyPath<M, V>) -> Condition<M> {
    comparison(.greaterOrEqual, lhs, ColumnExpression(rhs))
}

/// `lhs >= rhs` over computed values.
public func >= <M, V: DatabaseValueConvertible>(lhs: ColumnExpression<M, V>, rhs: ColumnExpression<M, V>) -> Condition<
    M
> {
    comparison(.greaterOrEqual, lhs, rhs)
}

/// `lhs >= rhs` over computed values.
public func >= <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: ColumnExpression<M, V>) -> Condition<M> {
    comparison(.greaterOrEqual, ColumnExpression(lhs), rhs)
}

/// `expression LIKE pattern` (case-sensitive), e.g. `lower(\.email) ~~ "al%"`.
public func ~~ <M, V: StringColumn>(lhs: ColumnExpression<M, V>, rhs: String) -> Condition<M> {
    lhs.condition { .like($0, rhs) }
}

/// `lhs / rhs`, marked as an integer division where `V` is an integer type, so that a dialect whose `/` of two
/// integers is exact writes its truncating division (``ArithmeticSyntax/guardedDivision``: `DIV`).
func division<V: DatabaseValueConvertible>(_ lhs: SQLExpression, _ rhs: SQLExpression, _: V.Type) -> SQLExpression {
    let quotient = SQLExpression.arithmetic(.divide, lhs, rhs)
    return V.columnType == .integer ? .typed(quotient, as: .integer) : quotient
}
