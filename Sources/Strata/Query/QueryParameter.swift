// QueryParameter: a named value a prepared query takes each time it runs, and the comparisons that use one.

/// A value a prepared query takes each time it runs, named and typed where the query is written.
///
/// Compare a column with a parameter instead of a value, prepare the query once (``QueryBuilder/prepared()``), then
/// bind the parameter and run it as often as needed:
///
/// ```swift
/// let minimum = QueryParameter<Int>("minimum")
/// let popular = try Post.query(on: tx).where(\.views >= minimum).order(\.views, .descending).limit(20).prepared()
/// let hot = try popular.binding(minimum, to: 1_000).all()
/// let warm = try popular.binding(minimum, to: 100).all()
/// ```
///
/// A parameter is bound where a value would be, and renders as one (`?` on SQLite, `$1` on PostgreSQL). A query
/// that names a parameter runs only prepared: run unprepared, it throws ``StrataError/invalidQuery(_:)`` naming the
/// parameter. One name may appear in several conditions; it takes one value. A parameter never takes NULL (test
/// for NULL with `== nil` or ``Condition/isNull(_:)``, which no parameter stands for).
public struct QueryParameter<Value: DatabaseValueConvertible>: Sendable, Hashable {
    /// The name the parameter is bound by and errors show.
    public let name: String

    /// A parameter named `name` (unique within one query).
    ///
    /// - Parameter name: the name ``PreparedQuery/binding(_:to:)`` and errors use.
    public init(_ name: String) { self.name = name }
}

/// Where a parameter stands in the query AST: its name, and the form dates take in the column it is compared with.
package struct ParameterSlot: Sendable, Hashable {
    /// The parameter's name.
    package let name: String
    /// The column's date format, when it stores dates in another form than Strata's (see ``DateFormat``).
    package var dateFormat: DateFormat?

    package init(name: String, dateFormat: DateFormat? = nil) {
        self.name = name
        self.dateFormat = dateFormat
    }

    /// `value` as the column compares it: a date in the column's stored form.
    package func stored(_ value: DatabaseValue) -> DatabaseValue {
        guard let dateFormat else { return value }
        return dateFormat.stored(value)
    }
}

extension StrataError {
    /// A parameter met outside a prepared query's run (or left unbound in one).
    package static func unboundParameter(_ name: String) -> StrataError {
        .invalidQuery(
            "parameter \"\(name)\" has no value: a query with parameters runs prepared (prepared(), then binding(_:to:))"
        )
    }
}

private func compare<M, V: DatabaseValueConvertible>(
    _ op: ComparisonOperator, _ kp: PartialKeyPath<M>, _ p: QueryParameter<V>
) -> Condition<M> {
    Condition(kp) { .compare(op, $0, SQLExpression(.parameter(ParameterSlot(name: p.name)))) }
}

/// `column = parameter`.
public func == <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.equal, lhs, rhs)
}
/// `column = parameter` on an optional column (a NULL column never matches).
public func == <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V?>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.equal, lhs, rhs)
}
/// `column <> parameter`; a NULL column keeps no row.
public func != <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.notEqual, lhs, rhs)
}
/// `column <> parameter` on an optional column; a NULL column keeps no row.
public func != <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V?>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.notEqual, lhs, rhs)
}
/// `column < parameter`.
public func < <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.less, lhs, rhs)
}
/// `column < parameter` on an optional column.
public func < <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V?>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.less, lhs, rhs)
}
/// `column <= parameter`.
public func <= <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.lessOrEqual, lhs, rhs)
}
/// `column <= parameter` on an optional column.
public func <= <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V?>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.lessOrEqual, lhs, rhs)
}
/// `column > parameter`.
public func > <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.greater, lhs, rhs)
}
/// `column > parameter` on an optional column.
public func > <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V?>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.greater, lhs, rhs)
}
/// `column >= parameter`.
public func >= <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.greaterOrEqual, lhs, rhs)
}
/// `column >= parameter` on an optional column.
public func >= <M, V: DatabaseValueConvertible>(lhs: KeyPath<M, V?>, rhs: QueryParameter<V>) -> Condition<M> {
    compare(.greaterOrEqual, lhs, rhs)
}
