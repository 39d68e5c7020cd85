// HasOne: an owner's single child, found by a foreign key on the child's table.

/// `static let profile = hasOne(Profile.self)`: the `Profile` row whose `user_id` is this user's id.
public struct HasOne<Owner: Model, Target: Model>: EagerLoadable {
    let link: ChildLink<Owner, Target>
    var nested: [NestedLoad<Target>] = []

    init(foreignKey: ResolvedKey, onDelete: DeleteRule) { link = ChildLink(foreignKey: foreignKey, onDelete: onDelete) }

    var foreignKey: ResolvedKey { link.foreignKey }
    /// What deleting the owner does to its child.
    public var onDelete: DeleteRule { link.onDelete }
    public var key: String { "hasOne \(Target.schema.name).\(foreignKey.column ?? "?")" }
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

    public func beforeDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {
        try link.beforeDeleting(ownerID: ownerID, key: key, tx)
    }

    public func beforeSoftDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {
        try applySoftDeleteRule(onDelete, children: link.children(of: ownerID, tx), key: key)
    }

    public func deleteRule(forTable table: String, column: String) -> DeleteRule? {
        link.deleteRule(forTable: table, column: column)
    }

    public func load(into owners: inout [Owner], _ tx: Transaction) throws {
        let byOwner = try link.childrenByOwner(owners, nested: nested, tx)
        for i in owners.indices {
            let child: Target? = owners[i].id.flatMap { byOwner[$0]?.first }
            owners[i].attachLoaded(key, child)
        }
    }
}
