// ChildLink: what hasMany and hasOne share: a foreign key on the child's table and a delete rule.

/// The child side of a one-to-many or one-to-one association, shared by ``HasMany`` and ``HasOne``.
struct ChildLink<Owner: Model, Target: Model>: Sendable {
    let foreignKey: ResolvedKey
    let onDelete: DeleteRule

    /// The children of the owner with this id.
    func children(of id: Owner.ID, _ tx: Transaction) throws -> QueryBuilder<Target, Transaction> {
        Target.query(on: tx).where(Condition(try filter(ownerID: id)))
    }

    /// The children's condition: their key equal to the owner's id, in every column of a composite key.
    func filter(ownerID id: Owner.ID) throws -> SQLExpression {
        guard foreignKey.isComposite else {
            return .compare(.equal, .column(try foreignKey.get()), .value(id.databaseValue))
        }
        return CompositeForeignKey.equality(try foreignKey.getColumns(), Owner.keyValues(id))
    }

    func beforeDeleting(ownerID: Owner.ID, key: String, _ tx: Transaction) throws {
        try applyDeleteRule(
            onDelete, foreignKey: foreignKey.getColumns(), table: Target.schema.name, filter: filter(ownerID: ownerID),
            children: children(of: ownerID, tx), key: key, tx)
    }

    /// ``onDelete`` when `table` and `column` are the children's table and foreign key (for a key of several columns,
    /// its ``ResolvedKey/name``, as a belongs-to asks), else nil.
    func deleteRule(forTable table: String, column: String) -> DeleteRule? {
        table == Target.schema.name && !foreignKey.columns.isEmpty && column == foreignKey.name ? onDelete : nil
    }

    func joins(_ kind: Join.Kind, alias: String) throws -> [Join] {
        let on =
            foreignKey.isComposite
            ? CompositeForeignKey.joinCondition(Owner.keyColumnsInOrder, try foreignKey.getColumns(), alias: alias)
            : SQLExpression.compare(
                .equal, .column(Owner.primaryKeyColumn), .column(try foreignKey.get(), table: alias))
        return [Join(kind, table: Target.schema.name, alias: alias, on: on)]
    }

    /// The children of every owner in one query (chunked), nested loads applied, grouped by owner id.
    func childrenByOwner(_ owners: [Owner], nested: [NestedLoad<Target>], _ tx: Transaction) throws -> [Owner.ID:
        [Target]]
    {
        if foreignKey.isComposite { return try compositeChildrenByOwner(owners, nested: nested, tx) }
        let fk = try foreignKey.get()
        var children = try tx.fetchAll(Target.self, where: fk, in: uniqueIDs(owners.map(\.id)))
        for next in nested { try next(&children, tx) }
        var byOwner: [Owner.ID: [Target]] = [:]
        for child in children {
            if let owner = child.key(inColumn: fk, as: Owner.ID.self) { byOwner[owner, default: []].append(child) }
        }
        return byOwner
    }

    /// The children of a foreign key of several columns, one statement per batch of owners, matched back by the
    /// children's key values.
    private func compositeChildrenByOwner(_ owners: [Owner], nested: [NestedLoad<Target>], _ tx: Transaction) throws
        -> [Owner.ID: [Target]]
    {
        let columns = try foreignKey.getColumns()
        var ownerByKey: [[DatabaseValue]: Owner.ID] = [:]
        var keys: [[DatabaseValue]] = []  // in the owners' order, so the statements are the same on every run
        for owner in owners {
            guard let id = owner.id, let key = owner.values(inColumns: Owner.keyColumnsInOrder) else { continue }
            if ownerByKey.updateValue(id, forKey: key) == nil { keys.append(key) }
        }
        var children = try tx.fetchAll(Target.self, whereColumns: columns, in: keys)
        for next in nested { try next(&children, tx) }
        var byOwner: [Owner.ID: [Target]] = [:]
        for child in children {
            if let key = child.values(inColumns: columns), let owner = ownerByKey[key] {
                byOwner[owner, default: []].append(child)
            }
        }
        return byOwner
    }
}
