// Association+Existence: `whereExists` / `whereNotExists`: owners with (or without) a related row matching a filter.

/// An association a query can test for related rows, like Rails' `where.associated` or Laravel's `whereHas`.
///
/// The test is a semi-join: the owner's key among the related rows' keys, which every backend plans well,
/// never unknown (NULL keys count as "no related row"):
///
/// ```swift
/// let busy = try await User.query(on: db).whereExists(User.projects, \.open == true).all()
/// // … WHERE (("id" IS NOT NULL) AND ("id" IN (SELECT "strata_via"."user_id" FROM "project"
/// //        INNER JOIN "membership" AS "strata_via" ON … WHERE ("project"."open" = ?) …)))
/// ```
public protocol ExistenceTestable<Owner>: JoinableAssociation {
    /// The owner's column, and the SELECT of the one column whose values it must be among for a related row
    /// matching `filter` (over the target's columns) to exist. Soft-deleted targets never count.
    func relatedKeys(matching filter: SQLExpression?) throws -> (ownerColumn: String, select: Select)
}

/// A target's filter plus its soft-delete guard and a non-NULL key.
private func relatedFilter<T: Model>(_ target: T.Type, _ filter: SQLExpression?, key: SQLExpression) -> SQLExpression {
    var all: [SQLExpression] = [.isNull(key, negated: true)]
    if let filter { all.append(filter) }
    if let deleted = T.schema.column(withRole: .deletedAt)?.name { all.append(.isNull(.column(deleted))) }
    return .and(all)
}

extension HasMany: ExistenceTestable {
    /// The owner's primary key, and the children's foreign keys where a live child matches `filter`.
    ///
    /// - Parameter filter: a condition over the children's columns, or nil for any child.
    /// - Returns: the owner's column and the SELECT of the keys it must be among.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column.
    public func relatedKeys(matching filter: SQLExpression?) throws -> (ownerColumn: String, select: Select) {
        let fk = try foreignKey.get()
        let s = Select(
            table: Target.schema.name, selection: .columns([fk]),
            filter: relatedFilter(Target.self, filter, key: .column(fk)))
        return (Owner.primaryKeyColumn, s)
    }
}

extension HasOne: ExistenceTestable {
    /// The owner's primary key, and the child's foreign keys where a live child matches `filter`.
    ///
    /// - Parameter filter: a condition over the child's columns, or nil for any child.
    /// - Returns: the owner's column and the SELECT of the keys it must be among.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column.
    public func relatedKeys(matching filter: SQLExpression?) throws -> (ownerColumn: String, select: Select) {
        let fk = try foreignKey.get()
        let s = Select(
            table: Target.schema.name, selection: .columns([fk]),
            filter: relatedFilter(Target.self, filter, key: .column(fk)))
        return (Owner.primaryKeyColumn, s)
    }
}

extension BelongsTo: ExistenceTestable {
    /// The owner's foreign key, and the parents' primary keys where a live parent matches `filter`.
    ///
    /// - Parameter filter: a condition over the parent's columns, or nil for any parent.
    /// - Returns: the owner's column and the SELECT of the keys it must be among.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column.
    public func relatedKeys(matching filter: SQLExpression?) throws -> (ownerColumn: String, select: Select) {
        let pk = Target.primaryKeyColumn
        let s = Select(
            table: Target.schema.name, selection: .columns([pk]),
            filter: relatedFilter(Target.self, filter, key: .column(pk)))
        return (try foreignKey.get(), s)
    }
}

extension HasManyThrough: ExistenceTestable {
    /// The owner's primary key, and the join rows' owner keys where a live target matching `filter` is reached.
    ///
    /// - Parameter filter: a condition over the targets' columns, or nil for any target.
    /// - Returns: the owner's column and the SELECT of the keys it must be among.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column.
    public func relatedKeys(matching filter: SQLExpression?) throws -> (ownerColumn: String, select: Select) {
        let via = "strata_via"
        var on = SQLExpression.compare(
            .equal, .column(try targetKey.get(), table: via), .column(Target.primaryKeyColumn))
        if let deleted = Join.schema.column(withRole: .deletedAt)?.name {
            on = .and([on, .isNull(.column(deleted, table: via))])
        }
        let ownerKey = try ownerKey.get()
        let s = Select(
            table: Target.schema.name, selection: .refs([ColumnRef(ownerKey, table: via)]),
            joins: [Strata.Join(.inner, table: Join.schema.name, alias: via, on: on)],
            filter: relatedFilter(Target.self, filter, key: .column(ownerKey, table: via)))
        return (Owner.primaryKeyColumn, s)
    }
}

extension QueryBuilder {
    /// Keeps owners with at least one related row matching `condition` (any related row when nil).
    ///
    /// ```swift
    /// let popularAuthors = try await User.query(on: db).whereExists(User.posts, \.views > 100).all()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", "name", "age" FROM "user" WHERE (("id" IS NOT NULL) AND ("id" IN (SELECT "user_id" FROM "post" WHERE (("user_id" IS NOT NULL) AND ("views" > ?)))))
    /// -- PostgreSQL
    /// SELECT "id", "name", "age" FROM "user" WHERE (("id" IS NOT NULL) AND ("id" IN (SELECT "user_id" FROM "post" WHERE (("user_id" IS NOT NULL) AND ("views" > $1)))))
    /// ```
    ///
    /// - Parameters:
    ///   - association: an association declared on this model.
    ///   - condition: a condition on the related model's columns, or nil for any related row.
    /// - Returns: the query with the test added.
    /// - Throws: (when the query runs) ``StrataError/invalidAssociation(_:)`` for a badly declared key,
    ///   ``StrataError/unknownColumn(model:column:)`` for a condition on a property with no column.
    public func whereExists<A: ExistenceTestable>(_ association: A, _ condition: Condition<A.Target>? = nil) -> Self
    where A.Owner == M {
        existence(association, condition, negated: false)
    }

    /// Keeps owners with no related row matching `condition` (no related row at all when nil).
    public func whereNotExists<A: ExistenceTestable>(_ association: A, _ condition: Condition<A.Target>? = nil) -> Self
    where A.Owner == M {
        existence(association, condition, negated: true)
    }

    private func existence<A: ExistenceTestable>(_ association: A, _ condition: Condition<A.Target>?, negated: Bool)
        -> Self
    {
        var copy = self
        do {
            let filter = try condition.map { c in try c.result.get() }
            let (owner, select) = try association.relatedKeys(matching: filter)
            let key = SQLExpression.column(owner)
            let exists = SQLExpression.and([.isNull(key, negated: true), .inSubquery(key, select)])
            copy.filters.append(negated ? .not(exists) : exists)
        } catch let error as StrataError {
            copy.error = copy.error ?? error
        } catch {
            copy.error = copy.error ?? .invalidAssociation("\(error)")
        }
        return copy
    }
}
