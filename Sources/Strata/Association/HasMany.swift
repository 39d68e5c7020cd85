// HasMany: an owner's children, found by a foreign key on the child's table.

/// `static let users = hasMany(User.self, onDelete: .destroy)`: the `User` rows whose `group_id` is
/// this group's id.
public struct HasMany<Owner: Model, Target: Model>: EagerLoadable {
    let foreignKey: ResolvedKey
    /// What deleting the owner does to its children.
    public let onDelete: DeleteRule
    var nested: [NestedLoad<Target>] = []

    public var key: String { "hasMany \(Target.schema.name).\(foreignKey.column ?? "?")" }

    /// The same association, also loading `next` on every loaded child.
    public func including(_ next: some EagerLoadable<Target>) -> Self {
        var copy = self
        copy.nested.append { targets, tx in try next.load(into: &targets, tx) }
        return copy
    }

    func children(of id: Int64, _ tx: Transaction) throws -> QueryBuilder<Target, Transaction> {
        Target.query(on: tx).where(Condition(.compare(.equal, .column(try foreignKey.get()), .value(.integer(id)))))
    }

    public func beforeDeleting(ownerID: Int64, _ tx: Transaction) throws {
        try applyDeleteRule(
            onDelete, foreignKey: foreignKey.get(), table: Target.schema.name, ownerID: ownerID,
            children: children(of: ownerID, tx), key: key, tx)
    }

    public func deleteRule(forTable table: String, column: String) -> DeleteRule? {
        table == Target.schema.name && column == foreignKey.column ? onDelete : nil
    }

    public func load(into owners: inout [Owner], _ tx: Transaction) throws {
        let fk = try foreignKey.get()
        var children = try tx.fetchAll(Target.self, where: fk, in: uniqueIDs(owners.map(\.id)))
        for next in nested { try next(&children, tx) }
        var byOwner: [Int64: [Target]] = [:]
        for child in children {
            if let owner = child.integer(inColumn: fk) { byOwner[owner, default: []].append(child) }
        }
        for i in owners.indices {
            owners[i].attachLoaded(key, owners[i].id.flatMap { byOwner[$0] } ?? [])
        }
    }
}

/// Applies a delete rule to the rows that reference an owner being deleted.
func applyDeleteRule<Target: Model>(
    _ rule: DeleteRule, foreignKey: String, table: String, ownerID: Int64,
    children: QueryBuilder<Target, Transaction>, key: String, _ tx: Transaction
) throws {
    switch rule {
    case .none: return
    case .nullify:
        _ = try tx.execute(
            .update(
                Update(
                    table: table, assignments: [Assignment(foreignKey, .null)],
                    filter: .compare(.equal, .column(foreignKey), .value(.integer(ownerID))))))
    case .destroy:
        for child in try children.all() { try child.delete(tx) }
    case .restrict:
        if try children.exists() {
            throw StrataError.deleteRestricted(model: String(describing: Target.self), association: key)
        }
    }
}
