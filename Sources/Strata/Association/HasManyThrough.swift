// HasManyThrough: targets reached through rows of an explicit join model.

/// `static let projects = hasMany(Project.self, through: Membership.self)`: the projects whose id
/// appears with this user's id in a membership row.
///
/// Deleting the owner applies `onDelete` to the join rows (by default `.destroy`: the memberships go,
/// the projects stay).
public struct HasManyThrough<Owner: Model, Target: Model, Join: Model>: EagerLoadable {
    /// The join model's column pointing at the owner (`user_id`).
    let ownerKey: ResolvedKey
    /// The join model's column pointing at the target (`project_id`).
    let targetKey: ResolvedKey
    /// What deleting the owner does to its join rows (by default `destroy`: the join rows go, the targets stay).
    public let onDelete: DeleteRule
    var nested: [NestedLoad<Target>] = []

    /// `hasManyThrough <join table>.<owner key>-><target key>`, unique within the owner; names it in errors.
    public var key: String {
        "hasManyThrough \(Join.schema.name).\(ownerKey.column ?? "?")->\(targetKey.column ?? "?")"
    }
    /// The tables this association needs: created by `migrate` with the owner's.
    public var relatedModels: [any Model.Type] { [Join.self, Target.self] }

    /// The same association, also loading `next` on every loaded target.
    public func including(_ next: some EagerLoadable<Target>) -> Self {
        var copy = self
        copy.nested.append { targets, tx in try next.load(into: &targets, tx) }
        return copy
    }

    func joinRows(of id: Owner.ID, _ tx: Transaction) throws -> QueryBuilder<Join, Transaction> {
        Join.query(on: tx).where(Condition(.compare(.equal, .column(try ownerKey.get()), .value(id.databaseValue))))
    }

    /// Applies ``onDelete`` to the owner's join rows before the owner row is deleted.
    ///
    /// - Parameters:
    ///   - ownerID: the id of the owner being deleted.
    ///   - tx: the delete's transaction.
    /// - Throws: ``StrataError/deleteRestricted(model:association:)`` under `restrict` while join rows exist.
    public func beforeDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {
        try applyDeleteRule(
            onDelete, foreignKey: ownerKey.get(), table: Join.schema.name, ownerID: ownerID,
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
    ///   - column: its referencing column.
    /// - Returns: the rule, or nil.
    public func deleteRule(forTable table: String, column: String) -> DeleteRule? {
        table == Join.schema.name && column == ownerKey.column ? onDelete : nil
    }

    /// The targets of the given owners, keyed by owner id, in two queries (join rows, then targets).
    func targets(of ownerIDs: [Owner.ID], _ tx: Transaction) throws -> [Owner.ID: [Target]] {
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
