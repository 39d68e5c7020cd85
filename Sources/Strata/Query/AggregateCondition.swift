// AggregateCondition: a typed HAVING condition, written with projections and operators.

/// A condition on groups, for ``QueryBuilder/having(_:)-(AggregateCondition<M>)``: `.sum(\.amount) > 100 && .count() >= 2`.
///
/// A comparison with NULL (an empty group's sum, say) is unknown, so the group is left out, on every driver.
public struct AggregateCondition<M: Model>: Sendable {
    let resolve: @Sendable (JoinAliases) -> Result<HavingCondition.Node, StrataError>

    init(_ resolve: @escaping @Sendable (JoinAliases) -> Result<HavingCondition.Node, StrataError>) {
        self.resolve = resolve
    }

    static func compare<V: DatabaseValueConvertible>(
        _ op: ComparisonOperator, _ p: Projection<M, V>, _ value: V
    ) -> AggregateCondition {
        let bound = value.databaseValue
        let resolve = p.resolve
        return AggregateCondition { joins in
            resolve(joins).map { item in
                bound.isNull && (op == .equal || op == .notEqual)
                    ? .isNull(item, negated: op == .notEqual) : .compare(op, item, bound)
            }
        }
    }

    /// Both conditions.
    public static func && (lhs: AggregateCondition, rhs: AggregateCondition) -> AggregateCondition {
        AggregateCondition { joins in
            lhs.resolve(joins).flatMap { l in rhs.resolve(joins).map { r in .and([l, r]) } }
        }
    }

    /// Either condition.
    public static func || (lhs: AggregateCondition, rhs: AggregateCondition) -> AggregateCondition {
        AggregateCondition { joins in
            lhs.resolve(joins).flatMap { l in rhs.resolve(joins).map { r in .or([l, r]) } }
        }
    }

    /// The condition negated (unknown stays unknown).
    public static prefix func ! (c: AggregateCondition) -> AggregateCondition {
        AggregateCondition { joins in c.resolve(joins).map { .not($0) } }
    }
}

extension Projection where Value: DatabaseValueConvertible {
    /// `item = value` (`IS NULL` for nil).
    public static func == (lhs: Projection, rhs: Value) -> AggregateCondition<M> { .compare(.equal, lhs, rhs) }
    /// `item <> value` (`IS NOT NULL` for nil).
    public static func != (lhs: Projection, rhs: Value) -> AggregateCondition<M> { .compare(.notEqual, lhs, rhs) }
    /// `item < value`.
    public static func < (lhs: Projection, rhs: Value) -> AggregateCondition<M> { .compare(.less, lhs, rhs) }
    /// `item <= value`.
    public static func <= (lhs: Projection, rhs: Value) -> AggregateCondition<M> { .compare(.lessOrEqual, lhs, rhs) }
    /// `item > value`.
    public static func > (lhs: Projection, rhs: Value) -> AggregateCondition<M> { .compare(.greater, lhs, rhs) }
    /// `item >= value`.
    public static func >= (lhs: Projection, rhs: Value) -> AggregateCondition<M> {
        .compare(.greaterOrEqual, lhs, rhs)
    }
}
