// Condition: a typed WHERE condition over a model, built from key paths and operators.

/// A condition on a model's rows, written with key paths:
///
/// ```swift
/// User.query(on: db).where(\.active == true && \.name ~~ "Al%")
/// ```
///
/// A key path that maps to no column (a `@Transient` property) makes the query throw
/// ``StrataError/unknownColumn(model:column:)`` when it runs.
public struct Condition<M: Model>: Sendable {
    let result: Result<SQLExpression, StrataError>

    /// A condition from an untyped expression of the query AST, for conditions the operators cannot spell.
    ///
    /// - Parameter expression: the condition; its columns are the model's table's column names.
    public init(_ expression: SQLExpression) { result = .success(expression) }
    init(error: StrataError) { result = .failure(error) }

    init(_ keyPath: PartialKeyPath<M>, _ make: (SQLExpression) -> SQLExpression) {
        // The column by position: its name and date format without a search by name.
        let schema = M.schema
        if let index = schema.index(of: keyPath) {
            result = .success(schema.storingDates(make(.column(schema.columns[index].name)), columnAt: index))
        } else {
            result = .failure(.unknownColumn(model: M.modelName, column: "\(keyPath)"))
        }
    }

    /// `column IN (values)`; an empty list matches nothing.
    ///
    /// Inlinable, so the values are converted by code specialized for `V` in the caller's module (through the
    /// generic witness, a list of 10,000 ids cost about 600 instructions a value).
    @inlinable
    public static func `in`<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>, _ values: [V]) -> Condition {
        inList(kp, databaseValues(values), negated: false)
    }

    /// `column IN (values)` on an optional column, from non-optional values: the same condition as
    /// `in(kp, values)` on a non-optional column without first converting `[V]` into `[V?]` (a dynamic cast per value).
    @inlinable
    public static func `in`<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>, _ values: [V]) -> Condition {
        inList(kp, databaseValues(values), negated: false)
    }

    /// `column NOT IN (values)`; an empty list matches everything.
    @inlinable
    public static func notIn<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>, _ values: [V]) -> Condition {
        inList(kp, databaseValues(values), negated: true)
    }

    /// `column NOT IN (values)` on an optional column, from non-optional values (see `in(_:_:)` on an optional column).
    @inlinable
    public static func notIn<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>, _ values: [V]) -> Condition {
        inList(kp, databaseValues(values), negated: true)
    }

    /// The values as stored, in order.
    @inlinable
    static func databaseValues<V: DatabaseValueConvertible>(_ values: [V]) -> [DatabaseValue] {
        var out: [DatabaseValue] = []
        out.reserveCapacity(values.count)
        for v in values { out.append(v.databaseValue) }
        return out
    }

    /// `column [NOT] IN (values)` for the column of `kp`.
    @usableFromInline
    static func inList(_ kp: PartialKeyPath<M>, _ values: [DatabaseValue], negated: Bool) -> Condition {
        Condition(kp) { .inList($0, values, negated: negated) }  // a closure: no key-path projection per value
    }

    /// `column LIKE pattern ESCAPE '\'`: case-sensitive, or folding ASCII letters when `caseInsensitive`.
    public static func like<V: StringColumn>(_ kp: KeyPath<M, V>, _ pattern: String, caseInsensitive: Bool = false)
        -> Condition
    {
        Condition(kp) { .like($0, pattern, caseInsensitive: caseInsensitive) }
    }

    /// `column NOT LIKE pattern`.
    public static func notLike<V: StringColumn>(_ kp: KeyPath<M, V>, _ pattern: String, caseInsensitive: Bool = false)
        -> Condition
    {
        Condition(kp) { .like($0, pattern, caseInsensitive: caseInsensitive, negated: true) }
    }

    /// Whether the column contains `text` literally (`%`, `_` and `\` in `text` match themselves).
    public static func contains<V: StringColumn>(_ kp: KeyPath<M, V>, _ text: String, caseInsensitive: Bool = false)
        -> Condition
    {
        like(kp, "%" + SQLExpression.escapeLike(text) + "%", caseInsensitive: caseInsensitive)
    }

    /// Whether the column starts with `text` literally.
    public static func hasPrefix<V: StringColumn>(_ kp: KeyPath<M, V>, _ text: String, caseInsensitive: Bool = false)
        -> Condition
    {
        like(kp, SQLExpression.escapeLike(text) + "%", caseInsensitive: caseInsensitive)
    }

    /// `column BETWEEN low AND high` (inclusive).
    public static func between<V: DatabaseValueConvertible & Comparable>(_ kp: KeyPath<M, V>, _ range: ClosedRange<V>)
        -> Condition
    {
        Condition(kp) { .between($0, .value(range.lowerBound.databaseValue), .value(range.upperBound.databaseValue)) }
    }

    /// `column BETWEEN low AND high` on an optional column (NULL never matches).
    public static func between<V: DatabaseValueConvertible & Comparable>(_ kp: KeyPath<M, V?>, _ range: ClosedRange<V>)
        -> Condition
    {
        Condition(kp) { .between($0, .value(range.lowerBound.databaseValue), .value(range.upperBound.databaseValue)) }
    }

    /// `column IS NULL`.
    public static func isNull<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>) -> Condition {
        Condition(kp) { .isNull($0) }
    }

    /// `column IS NOT NULL`.
    public static func isNotNull<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>) -> Condition {
        Condition(kp) { .isNull($0, negated: true) }
    }

    /// A raw SQL condition; `?` marks each bound value. The memory driver cannot run it.
    public static func unsafeRaw(_ sql: String, _ binds: [any DatabaseValueConvertible] = []) -> Condition {
        Condition(.unsafeRaw(sql, binds.map(\.databaseValue)))
    }

    static func combine(_ items: [Condition], _ make: ([SQLExpression]) -> SQLExpression) -> Condition {
        var expressions: [SQLExpression] = []
        for item in items {
            switch item.result {
            case .success(let e): expressions.append(e)
            case .failure(let error): return Condition(error: error)
            }
        }
        return Condition(make(expressions))
    }
}

/// String columns, optional or not, which LIKE applies to.
public protocol StringColumn: DatabaseValueConvertible {}
extension String: StringColumn {}
extension Optional: StringColumn where Wrapped == String {}

infix operator ~~ : ComparisonPrecedence
infix operator !~~ : ComparisonPrecedence

private func compare<M, V: DatabaseValueConvertible>(_ op: ComparisonOperator, _ kp: KeyPath<M, V>, _ v: V)
    -> Condition<M>
{
    Condition(kp) { .compare(op, $0, .value(v.databaseValue)) }
}

/// `column = value`; `== nil` is `IS NULL`.
public func == <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Condition<M> {
    compare(.equal, lhs, rhs)
}
/// `column <> value`; `!= nil` is `IS NOT NULL`.
public func != <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Condition<M> {
    compare(.notEqual, lhs, rhs)
}
/// `column < value`: text by code point, dates by time; a NULL column or value keeps no row.
public func < <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Condition<M> { compare(.less, lhs, rhs) }
/// `column <= value`; a NULL column or value keeps no row.
public func <= <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Condition<M> {
    compare(.lessOrEqual, lhs, rhs)
}
/// `column > value`; a NULL column or value keeps no row.
public func > <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Condition<M> {
    compare(.greater, lhs, rhs)
}
/// `column >= value`; a NULL column or value keeps no row.
public func >= <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Condition<M> {
    compare(.greaterOrEqual, lhs, rhs)
}
/// `column LIKE pattern` (case-sensitive).
public func ~~ <M, V: StringColumn>(lhs: KeyPath<M, V>, rhs: String) -> Condition<M> { .like(lhs, rhs) }
/// `column NOT LIKE pattern` (case-sensitive).
public func !~~ <M, V: StringColumn>(lhs: KeyPath<M, V>, rhs: String) -> Condition<M> { .notLike(lhs, rhs) }
/// `(lhs) AND (rhs)`: both conditions hold (nested ANDs are flattened into one list).
public func && <M>(lhs: Condition<M>, rhs: Condition<M>) -> Condition<M> { .combine([lhs, rhs]) { .and($0) } }
/// `(lhs) OR (rhs)`: either condition holds (nested ORs are flattened into one list).
public func || <M>(lhs: Condition<M>, rhs: Condition<M>) -> Condition<M> { .combine([lhs, rhs]) { .or($0) } }
/// `NOT (p)`: the condition is false; a row where it is unknown (NULL) stays out, as in SQL.
public prefix func ! <M>(p: Condition<M>) -> Condition<M> { .combine([p]) { .not($0[0]) } }
