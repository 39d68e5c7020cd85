// BelongsTo: the parent a model points at through a foreign key on its own table.

/// `static let group = belongsTo(Group.self)`: the `Group` whose id is this user's `group_id`.
public struct BelongsTo<Owner: Model, Target: Model>: EagerLoadable {
    let foreignKey: ResolvedKey
    /// The rule declared on this side (`belongsTo(Group.self, onDelete: .destroy)`), enforced by the foreign key's
    /// `ON DELETE` action; nil takes the rule of the parent's association to this table, if any.
    var onDelete: DeleteRule? = nil
    var nested: [NestedLoad<Target>] = []

    /// `belongsTo <owner table>.<foreign key>`, unique within the owner; names the association in errors.
    public var key: String { "belongsTo \(Owner.schema.name).\(foreignKey.name)" }
    /// The tables this association needs: created by `migrate` with the owner's.
    public var relatedModels: [any Model.Type] { [Target.self] }

    /// The same association, also loading `next` on the loaded parents.
    public func including(_ next: some EagerLoadable<Target>) -> Self {
        var copy = self
        copy.nested.append { targets, tx in try next.load(into: &targets, tx) }
        return copy
    }

    /// Deleting a child does nothing to its parent.
    public func beforeDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {}

    /// The foreign key to the parent, with the ON DELETE action the parent's association asks for: one column, or for
    /// a parent with a composite key (see ``CompositeKey``) every column of the key, `FOREIGN KEY (a, b) REFERENCES
    /// parent (x, y)`. None for a declaration that does not fit the parent's key (using it throws).
    public var foreignKeys: [ForeignKey] {
        guard !foreignKey.columns.isEmpty else { return [] }
        let rule =
            onDelete
            ?? Target.associations.lazy.compactMap {
                $0.deleteRule(forTable: Owner.schema.name, column: foreignKey.name)
            }
            .first ?? .none
        return [
            ForeignKey(
                columns: foreignKey.columns, references: Target.schema.name, columns: Target.keyColumnsInOrder,
                onDelete: rule.foreignKeyAction)
        ]
    }

    /// Loads the parent of every owner with one query over the distinct foreign keys (chunked under the bind limit).
    ///
    /// - Parameters:
    ///   - owners: the models to attach parents to; an owner whose key is NULL gets none.
    ///   - tx: the transaction to query in.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column; database errors.
    public func load(into owners: inout [Owner], _ tx: Transaction) throws {
        if foreignKey.isComposite { return try loadComposite(into: &owners, tx) }
        let fk = try foreignKey.get()
        let parentIDs = uniqueIDs(owners.map { $0.key(inColumn: fk, as: Target.ID.self) })
        var parents = try tx.fetchAll(Target.self, where: Target.primaryKeyColumn, in: parentIDs)
        for next in nested { try next(&parents, tx) }
        var byID: [Target.ID: Target] = [:]
        for parent in parents { if let id = parent.id { byID[id] = parent } }
        for i in owners.indices {
            let parent: Target? = owners[i].key(inColumn: fk, as: Target.ID.self).flatMap { byID[$0] }
            owners[i].attachLoaded(key, parent)
        }
    }

    /// Loads the parents of a foreign key of several columns: one statement per batch of distinct keys, matched
    /// back by the parents' key values.
    private func loadComposite(into owners: inout [Owner], _ tx: Transaction) throws {
        let columns = try foreignKey.getColumns()
        let parentColumns = Target.keyColumnsInOrder
        let keys = uniqueIDs(owners.map { $0.values(inColumns: columns) })
        var parents = try tx.fetchAll(Target.self, whereColumns: parentColumns, in: keys)
        for next in nested { try next(&parents, tx) }
        var byKey: [[DatabaseValue]: Target] = [:]
        for parent in parents { if let key = parent.values(inColumns: parentColumns) { byKey[key] = parent } }
        for i in owners.indices {
            let parent: Target? = owners[i].values(inColumns: columns).flatMap { byKey[$0] }
            owners[i].attachLoaded(key, parent)
        }
    }
}
