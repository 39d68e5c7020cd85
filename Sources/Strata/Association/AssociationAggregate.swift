// AssociationAggregate: an aggregate of each owner's related rows (`count` of a post's comments), as a typed item.

/// The LEFT JOIN an association aggregate needs: the association's key, its target table, its soft-deleted tables
/// and its join clauses under an alias.
struct AssociationJoin: Sendable {
    let key: String
    let table: String
    let softDeleted: [SoftDeletedTable]
    let make: @Sendable (String) throws -> [Join]

    struct SoftDeletedTable: Sendable {
        let table: String
        let column: String
    }

    init<A: JoinableAssociation>(_ association: A) {
        key = association.key
        table = A.Target.schema.name
        softDeleted = association.softDeletedTables.map { SoftDeletedTable(table: $0.table, column: $0.column) }
        make = { alias in try association.joins(.left, alias: alias) }
    }
}

/// An aggregate of each owner's related rows, read beside the owner with ``QueryBuilder/all(with:)-rcmt``, filtered with
/// ``QueryBuilder/having(_:)-(AssociationCondition<M>)`` and ordered with ``QueryBuilder/order(_:_:)-(AssociationAggregate<M,V>,_)``.
///
/// ```swift
/// let posts = try await Post.query(on: db)
///     .having(.count(Post.comments) > 2)
///     .order(.count(Post.comments), .descending)
///     .all(with: .count(Post.comments), .sum(Post.comments, of: \.votes))   // [(Post, Int, Int64?)]
/// ```
///
/// One statement, no N+1: the association's table is LEFT JOINed (its live rows only) and the rows are grouped by
/// every column of the owner, so an owner without related rows is kept, with a count of 0 and a sum, average,
/// minimum and maximum of nil (SQL's `SUM` of no rows is NULL, not 0). The aggregates follow ``Aggregate``'s
/// rules on every driver: an integer sum past Int64 is ``StrataError/arithmeticError(expression:reason:)``, an
/// average is a `Double`, a decimal sum is exact.
///
/// For `User.query(on: db).having(.count(User.posts) > 2).order(.sum(User.posts, of: \.views), .descending)
/// .all(with: .count(User.posts), .sum(User.posts, of: \.views))` (checked against the renderers by a test):
///
/// ```sql
/// -- SQLite
/// SELECT "user"."id", "user"."name", "user"."age", COUNT("j1"."id"), strata_int_value(strata_int_sum("j1"."views")) FROM "user" LEFT JOIN "post" AS "j1" ON ("user"."id" = "j1"."user_id") GROUP BY "user"."id", "user"."name", "user"."age" HAVING (COUNT("j1"."id") > ?) ORDER BY strata_int_value(strata_int_sum("j1"."views")) DESC
/// -- PostgreSQL
/// SELECT "user"."id", "user"."name", "user"."age", COUNT("j1"."id"), CAST(SUM("j1"."views") AS BIGINT) FROM "user" LEFT JOIN "post" AS "j1" ON ("user"."id" = "j1"."user_id") GROUP BY "user"."id", "user"."name", "user"."age" HAVING (COUNT("j1"."id") > $1) ORDER BY CAST(SUM("j1"."views") AS BIGINT) DESC NULLS LAST
/// ```
public struct AssociationAggregate<M: Model, Value: DatabaseValueConvertible>: Sendable {
    let join: AssociationJoin
    let projection: Projection<M, Value>

    /// `COUNT(target.id)`: the owner's live related rows, 0 when it has none.
    ///
    /// - Parameter association: a has-many, has-one, belongs-to or has-many-through association of the owner.
    /// - Returns: the count, an `Int`.
    public static func count<A: JoinableAssociation>(_ association: A) -> AssociationAggregate<M, Int>
    where A.Owner == M {
        let key = association.key
        let pk = A.Target.primaryKeyColumn
        let p = Projection<M, Int>(key: "count") { joins in
            guard let alias = joins.byKey[key] else { return .failure(.invalidQuery("\(key) is not joined")) }
            return .success(.aggregate(Aggregate(.count, ColumnRef(pk, table: alias))))
        }
        return AssociationAggregate<M, Int>(join: AssociationJoin(association), projection: p)
    }

    /// `SUM(target.column)` over the owner's related rows: an `Int64?` for integers, `Double?`, an exact `Decimal?`;
    /// nil when it has none.
    ///
    /// - Parameters:
    ///   - association: the association.
    ///   - kp: a numeric column of the related model (another type is `invalidAggregate` naming it).
    /// - Returns: the sum.
    public static func sum<A: JoinableAssociation, V: SummableColumn>(_ association: A, of kp: KeyPath<A.Target, V>)
        -> AssociationAggregate<M, V.Sum?> where A.Owner == M
    {
        AssociationAggregate<M, V.Sum?>(join: AssociationJoin(association), projection: .sum(association, kp))
    }

    /// `AVG(target.column)` over the owner's related rows, a `Double?` (nil when it has none).
    public static func avg<A: JoinableAssociation, V: SummableColumn>(_ association: A, of kp: KeyPath<A.Target, V>)
        -> AssociationAggregate<M, Double?> where A.Owner == M
    {
        AssociationAggregate<M, Double?>(join: AssociationJoin(association), projection: .avg(association, kp))
    }

    /// `MIN(target.column)` over the owner's related rows (nil when it has none).
    public static func min<A: JoinableAssociation, V: DatabaseValueConvertible>(
        _ association: A, of kp: KeyPath<A.Target, V>
    ) -> AssociationAggregate<M, V?> where A.Owner == M {
        AssociationAggregate<M, V?>(join: AssociationJoin(association), projection: .min(association, kp))
    }

    /// `MAX(target.column)` over the owner's related rows (nil when it has none).
    public static func max<A: JoinableAssociation, V: DatabaseValueConvertible>(
        _ association: A, of kp: KeyPath<A.Target, V>
    ) -> AssociationAggregate<M, V?> where A.Owner == M {
        AssociationAggregate<M, V?>(join: AssociationJoin(association), projection: .max(association, kp))
    }

    /// `MIN(target.column)` of an optional column (nil when no related row has a value).
    public static func min<A: JoinableAssociation, V: DatabaseValueConvertible>(
        _ association: A, of kp: KeyPath<A.Target, V?>
    ) -> AssociationAggregate<M, V?> where A.Owner == M {
        let p: Projection<M, V??> = .min(association, kp)
        return AssociationAggregate<M, V?>(
            join: AssociationJoin(association), projection: Projection<M, V?>(key: p.key, resolve: p.resolve))
    }

    /// `MAX(target.column)` of an optional column (nil when no related row has a value).
    public static func max<A: JoinableAssociation, V: DatabaseValueConvertible>(
        _ association: A, of kp: KeyPath<A.Target, V?>
    ) -> AssociationAggregate<M, V?> where A.Owner == M {
        let p: Projection<M, V??> = .max(association, kp)
        return AssociationAggregate<M, V?>(
            join: AssociationJoin(association), projection: Projection<M, V?>(key: p.key, resolve: p.resolve))
    }
}

/// A condition on association aggregates, for ``QueryBuilder/having(_:)-(AssociationCondition<M>)``:
/// `.count(Post.comments) > 2 && .sum(Post.comments, of: \.votes) >= 10`. A comparison with nil (the sum of an owner
/// without related rows) is unknown, so the owner is left out, on every driver.
public struct AssociationCondition<M: Model>: Sendable {
    let joins: [AssociationJoin]
    let condition: AggregateCondition<M>

    /// Both conditions.
    public static func && (lhs: Self, rhs: Self) -> Self {
        Self(joins: lhs.joins + rhs.joins, condition: lhs.condition && rhs.condition)
    }

    /// Either condition.
    public static func || (lhs: Self, rhs: Self) -> Self {
        Self(joins: lhs.joins + rhs.joins, condition: lhs.condition || rhs.condition)
    }

    /// The condition negated (unknown stays unknown).
    public static prefix func ! (c: Self) -> Self { Self(joins: c.joins, condition: !c.condition) }
}

extension AssociationAggregate {
    private static func compare(_ op: ComparisonOperator, _ a: Self, _ v: Value) -> AssociationCondition<M> {
        AssociationCondition(joins: [a.join], condition: .compare(op, a.projection, v))
    }

    /// `aggregate = value` (`IS NULL` for nil).
    public static func == (lhs: Self, rhs: Value) -> AssociationCondition<M> { compare(.equal, lhs, rhs) }
    /// `aggregate <> value` (`IS NOT NULL` for nil).
    public static func != (lhs: Self, rhs: Value) -> AssociationCondition<M> { compare(.notEqual, lhs, rhs) }
    /// `aggregate < value`.
    public static func < (lhs: Self, rhs: Value) -> AssociationCondition<M> { compare(.less, lhs, rhs) }
    /// `aggregate <= value`.
    public static func <= (lhs: Self, rhs: Value) -> AssociationCondition<M> { compare(.lessOrEqual, lhs, rhs) }
    /// `aggregate > value`.
    public static func > (lhs: Self, rhs: Value) -> AssociationCondition<M> { compare(.greater, lhs, rhs) }
    /// `aggregate >= value`.
    public static func >= (lhs: Self, rhs: Value) -> AssociationCondition<M> { compare(.greaterOrEqual, lhs, rhs) }
}
