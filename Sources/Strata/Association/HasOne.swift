// HasOne: an owner's single child, found by a foreign key on the child's table.

/// `static let profile = hasOne(Profile.self)`: the `Profile` row whose `user_id` is this user's id.
public struct HasOne<Owner: Model, Target: Model>: EagerLoadable {
    let link: ChildLink<Owner, Target>
    var nested: [NestedLoad<Target>] = []

    init(foreignKey: ResolvedKey, onDelete: DeleteRule) { link = ChildLink(foreignKey: foreignKey, onDelete: onDelete) }

    var foreignKey: ResolvedKey { link.foreignKey }
    /// What deleting the owner does to its child.
    public var onDelete: DeleteRule { link.onDelete }
    /// `hasOne <target table>.<foreign key>`, unique within the owner; names the association in errors.
    public var key: String { "hasOne \(Target.schema.name).\(foreignKey.name)" }
    /// The tables this association needs: created by `migrate` with the owner's.
    public var relatedModels: [any Model.Type] { [Target.self] }

    /// The same association, also loading `next` on the loaded child.
    public func including(_ next: some EagerLoadable<Target>) -> Self {
        var copy = self
        copy.nested.append { targets, tx in try next.load(into: &targets, tx) }
        return copy
    }

    func child(of id: Owner.ID, _ tx: Transaction) throws -> QueryBuilder<Target, Transaction> {
        try link.children(of: id, tx)
    }

    /// Applies ``onDelete`` to the child before the owner row is deleted.
    ///
    /// - Parameters:
    ///   - ownerID: the id of the owner being deleted.
    ///   - tx: the delete's transaction.
    /// - Throws: ``StrataError/deleteRestricted(model:association:)`` under `restrict` while the child exists.
    public func beforeDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {
        try link.beforeDeleting(ownerID: ownerID, key: key, tx)
    }

    /// Applies ``onDelete`` in kind before the owner is soft-deleted.
    ///
    /// - Parameters:
    ///   - ownerID: the id of the owner being soft-deleted.
    ///   - tx: the delete's transaction.
    /// - Throws: ``StrataError/deleteRestricted(model:association:)`` under `restrict` while a live child exists.
    public func beforeSoftDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {
        try applySoftDeleteRule(onDelete, children: link.children(of: ownerID, tx), key: key)
    }

    /// ``onDelete`` when `table` and `column` are the child's table and foreign key, else nil.
    ///
    /// - Parameters:
    ///   - table: a referencing table.
    ///   - column: its referencing column.
    /// - Returns: the rule, or nil.
    public func deleteRule(forTable table: String, column: String) -> DeleteRule? {
        link.deleteRule(forTable: table, column: column)
    }

    /// Loads the child of every owner with one query over the owners' ids.
    ///
    /// - Parameters:
    ///   - owners: the models to attach children to; an owner without one gets nil.
    ///   - tx: the transaction to query in.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column; database errors.
    public func load(into owners: inout [Owner], _ tx: Transaction) throws {
        let byOwner = try link.childrenByOwner(owners, nested: nested, tx)
        for i in owners.indices {
            let child: Target? = owners[i].id.flatMap { byOwner[$0]?.first }
            owners[i].attachLoaded(key, child)
        }
    }
}
