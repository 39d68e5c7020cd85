// HasManyThrough: targets reached through rows of an explicit join model.

/// `static let projects = hasMany(Project.self, through: Membership.self)`: the projects whose id
/// appears with this user's id in a membership row.
///
/// Deleting the owner applies `onDelete` to the join rows (by default `.destroy`: the memberships go,
/// the projects stay).
///
/// Either key of the join model may have several columns, when the owner's or the target's key is a ``CompositeKey``
/// (`hasMany(_:through:ownerKeys:targetKeys:onDelete:)`): loading, eager loading, joins, `whereExists`, `add`,
/// `remove` and the delete rule then match every column of it. For `OrderLine.query(on: db).whereExists(OrderLine.tags,
/// \.name == "gift")`, with `hasMany(Tag.self, through: LineTag.self, ownerKeys: \.orderID, \.productID, targetKeys:
/// \.tagID)`:
///
/// ```sql
/// -- SQLite
/// SELECT "order_id", "product_id", "quantity" FROM "order_line" WHERE (EXISTS (SELECT "strata_via"."order_id", "strata_via"."product_id" FROM "tag" INNER JOIN "line_tag" AS "strata_via" ON ("strata_via"."tag_id" = "tag"."id") WHERE (("strata_via"."order_id" = "order_line"."order_id") AND ("strata_via"."product_id" = "order_line"."product_id") AND ("tag"."name" = ?))))
/// -- PostgreSQL
/// SELECT "order_id", "product_id", "quantity" FROM "order_line" WHERE (EXISTS (SELECT "strata_via"."order_id", "strata_via"."product_id" FROM "tag" INNER JOIN "line_tag" AS "strata_via" ON ("strata_via"."tag_id" = "tag"."id") WHERE (("strata_via"."order_id" = "order_line"."order_id") AND ("strata_via"."product_id" = "order_line"."product_id") AND ("tag"."name" = $1))))
/// ```
public struct HasManyThrough<Owner: Model, Target: Model, Join: Model>: EagerLoadable {
    /// The join model's column pointing at the owner (`user_id`), or its columns for an owner with a composite key.
    let ownerKey: ResolvedKey
    /// The join model's column pointing at the target (`project_id`), or its columns for a target with a composite
    /// key.
    let targetKey: ResolvedKey
    /// What deleting the owner does to its join rows (by default `destroy`: the join rows go, the targets stay).
    public let onDelete: DeleteRule
    var nested: [NestedLoad<Target>] = []

    /// `hasManyThrough <join table>.<owner key>-><target key>`, unique within the owner; names it in errors.
    public var key: String {
        "hasManyThrough \(Join.schema.name).\(ownerKey.name)->\(targetKey.name)"
    }
    /// The tables this association needs: created by `migrate` with the owner's.
    public var relatedModels: [any Model.Type] { [Join.self, Target.self] }

    /// The same association, also loading `next` on every loaded target.
    public func including(_ next: some EagerLoadable<Target>) -> Self {
        var copy = self
        copy.nested.append { targets, tx in try next.load(into: &targets, tx) }
        return copy
    }

    /// `owner_key = ?` (every column of a key of several) for the owner with this id.
    func ownerFilter(_ id: Owner.ID) throws -> SQLExpression {
        CompositeForeignKey.equality(try ownerKey.getColumns(), Owner.keyValues(id))
    }

    func joinRows(of id: Owner.ID, _ tx: Transaction) throws -> QueryBuilder<Join, Transaction> {
        Join.query(on: tx).where(Condition(try ownerFilter(id)))
    }

    /// Applies ``onDelete`` to the owner's join rows before the owner row is deleted.
    ///
    /// - Parameters:
    ///   - ownerID: the id of the owner being deleted.
    ///   - tx: the delete's transaction.
    /// - Throws: ``StrataError/deleteRestricted(model:association:)`` under `restrict` while join rows exist.
    public func beforeDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {
        try applyDeleteRule(
            onDelete, foreignKey: ownerKey.getColumns(), table: Join.schema.name, filter: ownerFilter(ownerID),
            children: joinRows(of: ownerID, tx), key: key, tx)
    }

    /// Applies ``onDelete`` in kind to the join rows before the owner is soft-deleted.
    ///
    /// - Parameters:
    ///   - ownerID: the id of the owner being soft-deleted.
    ///   - tx: the delete's transaction.
    /// - Throws: ``StrataError/deleteRestricted(model:association:)`` under `restrict` while live join rows exist.
    public func beforeSoftDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {
        try applySoftDeleteRule(onDelete, children: joinRows(of: ownerID, tx), key: key)
    }

    /// ``onDelete`` when `table` and `column` are the join table and its owner key, else nil.
    ///
    /// - Parameters:
    ///   - table: a referencing table.
    ///   - column: its referencing column, or `(a, b)` for a key of several.
    /// - Returns: the rule, or nil.
    public func deleteRule(forTable table: String, column: String) -> DeleteRule? {
        table == Join.schema.name && !ownerKey.columns.isEmpty && column == ownerKey.name ? onDelete : nil
    }

    /// The targets of the given owners, keyed by owner id, in two queries (join rows, then targets).
    func targets(of ownerIDs: [Owner.ID], _ tx: Transaction) throws -> [Owner.ID: [Target]] {
        if ownerKey.isComposite || targetKey.isComposite { return try compositeTargets(of: ownerIDs, tx) }
        let pairs = try tx.keyPairs(
            table: Join.schema.name, key: ownerKey.get(), value: targetKey.get(), in: ownerIDs, as: Target.ID.self,
            deletedAt: Join.schema.column(withRole: .deletedAt)?.name)
        var targets = try tx.fetchAll(Target.self, where: Target.primaryKeyColumn, in: uniqueIDs(pairs.map(\.1)))
        for next in nested { try next(&targets, tx) }
        var byID: [Target.ID: Target] = [:]
        for t in targets { if let id = t.id { byID[id] = t } }
        var out: [Owner.ID: [Target]] = [:]
        for (owner, target) in pairs { if let t = byID[target] { out[owner, default: []].append(t) } }
        return out
    }

    /// The targets of the given owners when a key has several columns: their live join rows by the owners' key
    /// values (`(a = ? AND b = ?) OR …`, batched as ``CompositeForeignKey/keysPerStatement``), then the targets by
    /// the key values those rows hold, each attached in the join rows' order.
    private func compositeTargets(of ownerIDs: [Owner.ID], _ tx: Transaction) throws -> [Owner.ID: [Target]] {
        let ownerColumns = try ownerKey.getColumns()
        let targetColumns = try targetKey.getColumns()
        var owners: [[DatabaseValue]: Owner.ID] = [:]
        for id in ownerIDs { owners[Owner.keyValues(id)] = id }
        let rows = try tx.fetchAll(Join.self, whereColumns: ownerColumns, in: ownerIDs.map(Owner.keyValues))
        let pairs = rows.compactMap { row in
            row.values(inColumns: ownerColumns).flatMap { o in row.values(inColumns: targetColumns).map { (o, $0) } }
        }
        var seen = Set<[DatabaseValue]>()
        let targetKeys = pairs.map(\.1).filter { seen.insert($0).inserted }
        var targets = try tx.fetchAll(Target.self, whereColumns: Target.keyColumnsInOrder, in: targetKeys)
        for next in nested { try next(&targets, tx) }
        var byKey: [[DatabaseValue]: Target] = [:]
        for t in targets { if let id = t.id { byKey[Target.keyValues(id)] = t } }
        var out: [Owner.ID: [Target]] = [:]
        for (o, t) in pairs {
            if let owner = owners[o], let target = byKey[t] { out[owner, default: []].append(target) }
        }
        return out
    }

    /// Loads the targets of every owner in two queries: the join rows, then the targets they name.
    ///
    /// - Parameters:
    ///   - owners: the models to attach targets to; each gets a list, empty when it has none.
    ///   - tx: the transaction to query in.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column; database errors.
    public func load(into owners: inout [Owner], _ tx: Transaction) throws {
        let byOwner = try targets(of: uniqueIDs(owners.map(\.id)), tx)
        for i in owners.indices {
            owners[i].attachLoaded(key, owners[i].id.flatMap { byOwner[$0] } ?? [])
        }
    }
}
