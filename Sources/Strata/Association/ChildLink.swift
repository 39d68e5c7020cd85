// ChildLink: what hasMany and hasOne share: a foreign key on the child's table and a delete rule.

/// The child side of a one-to-many or one-to-one association, shared by ``HasMany`` and ``HasOne``.
struct ChildLink<Owner: Model, Target: Model>: Sendable {
    let foreignKey: ResolvedKey
    let onDelete: DeleteRule

    /// The children of the owner with this id.
    func children(of id: Owner.ID, _ tx: Transaction) throws -> QueryBuilder<Target, Transaction> {
        Target.query(on: tx).where(Condition(.compare(.equal, .column(try foreignKey.get()), .value(id.databaseValue))))
    }

    func beforeDeleting(ownerID: Owner.ID, key: String, _ tx: Transaction) throws {
        try applyDeleteRule(
            onDelete, foreignKey: foreignKey.get(), table: Target.schema.name, ownerID: ownerID,
            children: children(of: ownerID, tx), key: key, tx)
    }

    func deleteRule(forTable table: String, column: String) -> DeleteRule? {
        table == Target.schema.name && column == foreignKey.column ? onDelete : nil
    }

    func joins(_ kind: Join.Kind, alias: String) throws -> [Join] {
        let on = SQLExpression.compare(
            .equal, .column(Owner.primaryKeyColumn), .column(try foreignKey.get(), table: alias))
        return [Join(kind, table: Target.schema.name, alias: alias, on: on)]
    }

    /// The children of every owner in one query (chunked), nested loads applied, grouped by owner id.
    func childrenByOwner(_ owners: [Owner], nested: [NestedLoad<Target>], _ tx: Transaction) throws -> [Owner.ID:
        [Target]]
    {
        let fk = try foreignKey.get()
        var children = try tx.fetchAll(Target.self, where: fk, in: uniqueIDs(owners.map(\.id)))
        for next in nested { try next(&children, tx) }
        var byOwner: [Owner.ID: [Target]] = [:]
        for child in children {
            if let owner = child.key(inColumn: fk, as: Owner.ID.self) { byOwner[owner, default: []].append(child) }
        }
        return byOwner
    }
}
