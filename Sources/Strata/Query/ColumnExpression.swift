// ColumnExpression: a typed computed value over a model's columns (`\.views + 1`, `lower(\.email)`).

/// A value computed from a model's columns and bound values, typed by the Swift value it yields.
///
/// Build it with operators on key paths and use it in `where`, `order` and `set(_:to:)`:
///
/// ```swift
/// try await Post.query(on: db).where(\.views * 2 > 10).order(\.views % 7).all()
/// try await Post.query(on: db).where(\.id == 1).update(set: \.views, to: \.views + 1)
/// ```
///
/// Arithmetic takes integer or double columns of one type (``ArithmeticColumn``), remainder integers only
/// (``IntegerArithmeticColumn``), `+` on text columns concatenates; division by zero and overflow throw
/// ``StrataError/arithmeticError(expression:reason:)`` on every driver (see ``ArithmeticOperator``).
public struct ColumnExpression<M: Model, V>: Sendable {
    let result: Result<SQLExpression, StrataError>

    init(_ result: Result<SQLExpression, StrataError>) { self.result = result }

    /// A column, or the error for a key path with no column.
    init(_ kp: KeyPath<M, V>) {
        if let name = M.columnName(for: kp) {
            result = .success(.column(name))
        } else {
            result = .failure(.unknownColumn(model: M.modelName, column: "\(kp)"))
        }
    }

    /// A bound value.
    public init(value: V) where V: DatabaseValueConvertible { result = .success(.value(value.databaseValue)) }

    /// The expression, or the first error met while building it.
    public var expression: SQLExpression {
        get throws(StrataError) { try result.get() }
    }

    func condition(_ make: (SQLExpression) -> SQLExpression) -> Condition<M> {
        switch result {
        case .success(let e): return Condition(make(e))
        case .failure(let e): return Condition(error: e)
        }
    }
}

/// Integer and double columns, optional or not, which arithmetic applies to. Decimal is left out: SQLite
/// stores it as text, and Strata computes with it in Swift only.
public protocol ArithmeticColumn: DatabaseValueConvertible {}
/// Integer columns, which remainder (`%`) applies to too.
public protocol IntegerArithmeticColumn: ArithmeticColumn {}
extension Int: IntegerArithmeticColumn {}
extension Int64: IntegerArithmeticColumn {}
extension Int32: IntegerArithmeticColumn {}
extension Int16: IntegerArithmeticColumn {}
extension Int8: IntegerArithmeticColumn {}
extension Double: ArithmeticColumn {}
extension Float: ArithmeticColumn {}
extension Optional: ArithmeticColumn where Wrapped: ArithmeticColumn {}
extension Optional: IntegerArithmeticColumn where Wrapped: IntegerArithmeticColumn {}

// MARK: Functions

/// `lower(column)`: folds ASCII letters only, on every backend (`lower('É')` stays `'É'`).
public func lower<M, V: StringColumn>(_ kp: KeyPath<M, V>) -> ColumnExpression<M, V> { lower(ColumnExpression(kp)) }
/// `lower(expression)`: folds ASCII letters only.
public func lower<M, V: StringColumn>(_ e: ColumnExpression<M, V>) -> ColumnExpression<M, V> {
    ColumnExpression(e.result.map { .lower($0) })
}
/// `upper(column)`: folds ASCII letters only, on every backend (`upper('é')` stays `'é'`).
public func upper<M, V: StringColumn>(_ kp: KeyPath<M, V>) -> ColumnExpression<M, V> { upper(ColumnExpression(kp)) }
/// `upper(expression)`: folds ASCII letters only.
public func upper<M, V: StringColumn>(_ e: ColumnExpression<M, V>) -> ColumnExpression<M, V> {
    ColumnExpression(e.result.map { .upper($0) })
}
/// `COALESCE(column, fallback)`: the column's value, or `fallback` where it is NULL.
public func coalesce<M, V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>, _ fallback: V) -> ColumnExpression<M, V> {
    combined(ColumnExpression(kp), ColumnExpression<M, V>(value: fallback)) { .coalesce([$0, $1]) }
}
/// `COALESCE(column, other)`: the first of the two columns that is not NULL.
public func coalesce<M, V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>, _ other: KeyPath<M, V?>)
    -> ColumnExpression<M, V?>
{
    combined(ColumnExpression(kp), ColumnExpression(other)) { typedCoalesce([$0, $1], V.self) }
}
/// `COALESCE(column, other)`: the optional column's value, or the other column's where it is NULL.
///
/// ```swift
/// try await Invoice.query(on: db).where(coalesce(\.discounted, \.amount) < Decimal(100)).all()
/// ```
public func coalesce<M, V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>, _ other: KeyPath<M, V>)
    -> ColumnExpression<M, V>
{
    combined(ColumnExpression(kp), ColumnExpression(other)) { typedCoalesce([$0, $1], V.self) }
}

/// `COALESCE(items)`, marked with its type where the backend cannot see it: over decimal columns only, SQLite
/// would compare and sort the result as text.
func typedCoalesce<V: DatabaseValueConvertible>(_ items: [SQLExpression], _: V.Type) -> SQLExpression {
    let c = SQLExpression.coalesce(items)
    return V.columnType == .decimal ? .typed(c, as: .decimal) : c
}
/// `COALESCE(expression, fallback)`.
public func coalesce<M, V: DatabaseValueConvertible>(_ e: ColumnExpression<M, V?>, _ fallback: V)
    -> ColumnExpression<M, V>
{
    combined(e, ColumnExpression<M, V>(value: fallback)) { .coalesce([$0, $1]) }
}

/// Combines two typed expressions into a new one of type `W`, keeping the first error.
func combined<M, A, B, W>(
    _ a: ColumnExpression<M, A>, _ b: ColumnExpression<M, B>, _ make: (SQLExpression, SQLExpression) -> SQLExpression
) -> ColumnExpression<M, W> {
    switch (a.result, b.result) {
    case (.failure(let e), _), (_, .failure(let e)): return ColumnExpression<M, W>(.failure(e))
    case (.success(let l), .success(let r)): return ColumnExpression<M, W>(.success(make(l, r)))
    }
}

/// `a op b` as a condition, keeping the first error.
func comparison<M, A, B>(_ op: ComparisonOperator, _ a: ColumnExpression<M, A>, _ b: ColumnExpression<M, B>)
    -> Condition<M>
{
    let c: ColumnExpression<M, Bool> = combined(a, b) { .compare(op, $0, $1) }
    return c.condition { $0 }
}
