// Association+Existence: `whereExists` / `whereNotExists`: owners with (or without) a related row matching a filter.

/// An association a query can test for related rows, like Rails' `where.associated` or Laravel's `whereHas`.
///
/// The test is a semi-join: the owner's key among the related rows' keys, which every backend plans well,
/// never unknown (NULL keys count as "no related row"); a key of several columns (see ``CompositeKey``) is a
/// correlated `EXISTS` matching every column pair instead:
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
    /// The condition, over the owner's columns, that a related row matching `filter` exists: TRUE or FALSE, never
    /// unknown. By default the owner's column among ``relatedKeys(matching:)``; for a key of several columns a
    /// correlated `EXISTS` (`EXISTS (SELECT … FROM child WHERE child.a = owner.x AND child.b = owner.y AND …)`).
    func existence(matching filter: SQLExpression?) throws -> SQLExpression
}

extension ExistenceTestable {
    /// `owner IS NOT NULL AND owner IN (SELECT key …)`: the owner's column among ``relatedKeys(matching:)``.
    ///
    /// - Parameter filter: a condition over the target's columns, or nil for any related row.
    /// - Returns: the condition over the owner's columns.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column.
    public func existence(matching filter: SQLExpression?) throws -> SQLExpression {
        semiJoin(try relatedKeys(matching: filter))
    }
}

/// `owner IS NOT NULL AND owner IN (SELECT key …)`.
private func semiJoin(_ keys: (ownerColumn: String, select: Select)) -> SQLExpression {
    let key = SQLExpression.column(keys.ownerColumn)
    return .and([.isNull(key, negated: true), .inSubquery(key, keys.select)])
}

/// `EXISTS (SELECT … FROM target WHERE target.a = owner.x AND … AND filter AND target is live)`: a related row
/// whose `targetColumns` equal the owner's `ownerColumns` pair by pair, for a key of several columns.
///
/// - Throws: ``StrataError/invalidAssociation(_:)`` naming the model when the association points at its own table,
///   whose outer and inner columns SQL could not tell apart.
private func correlatedExistence<Owner: Model, Target: Model>(
    _ owner: Owner.Type, _ ownerColumns: [String], _ target: Target.Type, _ targetColumns: [String],
    _ filter: SQLExpression?
) throws -> SQLExpression {
    guard Owner.schema.name != Target.schema.name else {
        throw StrataError.invalidAssociation(
            "\(Owner.modelName)'s association to its own table by a key of several columns cannot be tested with "
                + "whereExists; query by the key columns instead")
    }
    let inner = targetColumns.map { ColumnRef($0) }
    let s = Select(table: Target.schema.name, selection: .refs(inner), filter: liveFilter(Target.self, filter))
    return .correlatedExists(s, Correlation(inner: inner, outerTable: Owner.schema.name, outer: ownerColumns))
}

/// A target's filter plus its soft-delete guard, or nil when there is neither.
private func liveFilter<T: Model>(_ target: T.Type, _ filter: SQLExpression?) -> SQLExpression? {
    var all: [SQLExpression] = []
    if let filter { all.append(filter) }
    if let deleted = T.schema.column(withRole: .deletedAt)?.name { all.append(.isNull(.column(deleted))) }
    return all.isEmpty ? nil : .and(all)
}

/// A target's filter plus its soft-delete guard and a non-NULL key.
private func relatedFilter<T: Model>(_ target: T.Type, _ filter: SQLExpression?, key: SQLExpression) -> SQLExpression {
    var all: [SQLExpression] = [.isNull(key, negated: true)]
    if let filter { all.append(filter) }
    if let deleted = T.schema.column(withRole: .deletedAt)?.name { all.append(.isNull(.column(deleted))) }
    return .and(all)
}

extension HasMany: ExistenceTestable {
    /// For a key of several columns, a live child whose key columns equal the owner's key, pair by pair; else the
    /// owner's key among the children's foreign keys.
    ///
    /// - Parameter filter: a condition over the children's columns, or nil for any.
    /// - Returns: the condition over the owner's columns.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column.
    public func existence(matching filter: SQLExpression?) throws -> SQLExpression {
        let columns = try foreignKey.getColumns()
        guard columns.count > 1 else {
            return semiJoin(try relatedKeys(matching: filter))
        }
        return try correlatedExistence(Owner.self, Owner.keyColumnsInOrder, Target.self, columns, filter)
    }

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
    /// For a key of several columns, a live child whose key columns equal the owner's key, pair by pair; else the
    /// owner's key among the child's foreign keys.
    ///
    /// - Parameter filter: a condition over the child's columns, or nil for any.
    /// - Returns: the condition over the owner's columns.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column.
    public func existence(matching filter: SQLExpression?) throws -> SQLExpression {
        let columns = try foreignKey.getColumns()
        guard columns.count > 1 else {
            return semiJoin(try relatedKeys(matching: filter))
        }
        return try correlatedExistence(Owner.self, Owner.keyColumnsInOrder, Target.self, columns, filter)
    }

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
    /// For a key of several columns, a live parent whose key equals the owner's foreign key, pair by pair; else the
    /// owner's foreign key among the parents' keys.
    ///
    /// - Parameter filter: a condition over the parent's columns, or nil for any.
    /// - Returns: the condition over the owner's columns.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column.
    public func existence(matching filter: SQLExpression?) throws -> SQLExpression {
        let columns = try foreignKey.getColumns()
        guard columns.count > 1 else {
            return semiJoin(try relatedKeys(matching: filter))
        }
        return try correlatedExistence(Owner.self, columns, Target.self, Target.keyColumnsInOrder, filter)
    }

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
    /// For a key of several columns on either side, a live join row (joined to a live target matching `filter`)
    /// whose owner key equals the owner's key, pair by pair; else the owner's key among the join rows' owner keys.
    ///
    /// - Parameter filter: a condition over the targets' columns, or nil for any target.
    /// - Returns: the condition over the owner's columns.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column, or naming the model whose
    ///   targets are in its own table (by a key of several columns), which SQL could not tell apart.
    public func existence(matching filter: SQLExpression?) throws -> SQLExpression {
        guard ownerKey.isComposite || targetKey.isComposite else { return semiJoin(try relatedKeys(matching: filter)) }
        guard Owner.schema.name != Target.schema.name else {
            throw StrataError.invalidAssociation(
                "\(Owner.modelName)'s association through \(Join.modelName) to its own table by a key of several "
                    + "columns cannot be tested with whereExists; query by the key columns instead")
        }
        let via = "strata_via"
        var on = SQLExpression.and(
            zip(try targetKey.getColumns(), Target.keyColumnsInOrder).map { mine, theirs in
                .compare(.equal, .column(mine, table: via), .column(theirs))
            })
        if let deleted = Join.schema.column(withRole: .deletedAt)?.name {
            on = .and([on, .isNull(.column(deleted, table: via))])
        }
        let inner = try ownerKey.getColumns().map { ColumnRef($0, table: via) }
        let s = Select(
            table: Target.schema.name, selection: .refs(inner),
            joins: [Strata.Join(.inner, table: Join.schema.name, alias: via, on: on)],
            filter: liveFilter(Target.self, filter))
        return .correlatedExists(
            s, Correlation(inner: inner, outerTable: Owner.schema.name, outer: Owner.keyColumnsInOrder))
    }

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
    /// A key of several columns (see ``CompositeKey``) is a correlated `EXISTS` matching every column pair, never
    /// unknown; for `OrderLine.query(on: db).whereExists(OrderLine.notes, \.text == "rush")` (`hasMany(LineNote.self,
    /// keys: \.orderID, \.productID)`):
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "order_id", "product_id", "quantity" FROM "order_line" WHERE (EXISTS (SELECT "order_id", "product_id" FROM "line_note" WHERE (("line_note"."order_id" = "order_line"."order_id") AND ("line_note"."product_id" = "order_line"."product_id") AND ("text" = ?))))
    /// -- PostgreSQL
    /// SELECT "order_id", "product_id", "quantity" FROM "order_line" WHERE (EXISTS (SELECT "order_id", "product_id" FROM "line_note" WHERE (("line_note"."order_id" = "order_line"."order_id") AND ("line_note"."product_id" = "order_line"."product_id") AND ("text" = $1))))
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
            let exists = try association.existence(matching: filter)
            copy.filters.append(negated ? .not(exists) : exists)
        } catch let error as StrataError {
            copy.error = copy.error ?? error
        } catch {
            copy.error = copy.error ?? .invalidAssociation("\(error)")
        }
        return copy
    }
}
