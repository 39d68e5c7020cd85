// HasOne: an owner's single child, found by a foreign key on the child's table.

/// `static let profile = hasOne(Profile.self)`: the `Profile` row whose `user_id` is this user's id.
public struct HasOne<Owner: Model, Target: Model>: EagerLoadable {
    let foreignKey: ResolvedKey
    /// What deleting the owner does to its child.
    public let onDelete: DeleteRule
    var nested: [NestedLoad<Target>] = []

    public var key: String { "hasOne \(Target.schema.name).\(foreignKey.column ?? "?")" }

    /// The same association, also loading `next` on the loaded child.
    public func including(_ next: some EagerLoadable<Target>) -> Self {
        var copy = self
        copy.nested.append { targets, tx in try next.load(into: &targets, tx) }
        return copy
    }

    func child(of id: Int64, _ tx: Transaction) throws -> QueryBuilder<Target, Transaction> {
        Target.query(on: tx).where(Condition(.compare(.equal, .column(try foreignKey.get()), .value(.integer(id)))))
    }

    public func beforeDeleting(ownerID: Int64, _ tx: Transaction) throws {
        try applyDeleteRule(
            onDelete, foreignKey: foreignKey.get(), table: Target.schema.name, ownerID: ownerID,
            children: child(of: ownerID, tx), key: key, tx)
    }

    public func deleteRule(forTable table: String, column: String) -> DeleteRule? {
        table == Target.schema.name && column == foreignKey.column ? onDelete : nil
    }

    public func load(into owners: inout [Owner], _ tx: Transaction) throws {
        let fk = try foreignKey.get()
        var children = try tx.fetchAll(Target.self, where: fk, in: uniqueIDs(owners.map(\.id)))
        for next in nested { try next(&children, tx) }
        var byOwner: [Int64: Target] = [:]
        for child in children {
            if let owner = child.integer(inColumn: fk), byOwner[owner] == nil { byOwner[owner] = child }
        }
        for i in owners.indices {
            let child: Target? = owners[i].id.flatMap { byOwner[$0] }
            owners[i].attachLoaded(key, child)
        }
    }
}
