// BelongsTo: the parent a model points at through a foreign key on its own table.

/// `static let group = belongsTo(Group.self)`: the `Group` whose id is this user's `group_id`.
public struct BelongsTo<Owner: Model, Target: Model>: EagerLoadable {
    let foreignKey: ResolvedKey
    var nested: [NestedLoad<Target>] = []

    public var key: String { "belongsTo \(Owner.schema.name).\(foreignKey.column ?? "?")" }
    /// The tables this association needs: created by `migrate` with the owner's.
    public var relatedModels: [any Model.Type] { [Target.self] }

    /// The same association, also loading `next` on the loaded parents.
    public func including(_ next: some EagerLoadable<Target>) -> Self {
        var copy = self
        copy.nested.append { targets, tx in try next.load(into: &targets, tx) }
        return copy
    }

    /// Deleting a child does nothing to its parent.
    public func beforeDeleting(ownerID: Int64, _ tx: Transaction) throws {}

    /// The foreign key to the parent, with the ON DELETE action the parent's association asks for.
    public var foreignKeys: [ForeignKey] {
        guard let column = foreignKey.column else { return [] }
        let rule =
            Target.associations.lazy.compactMap { $0.deleteRule(forTable: Owner.schema.name, column: column) }
            .first ?? .none
        return [
            ForeignKey(
                column: column, references: Target.schema.name, column: Target.primaryKeyColumn,
                onDelete: rule.foreignKeyAction)
        ]
    }

    public func load(into owners: inout [Owner], _ tx: Transaction) throws {
        let fk = try foreignKey.get()
        let parentIDs = uniqueIDs(owners.map { $0.integer(inColumn: fk) })
        var parents = try tx.fetchAll(Target.self, where: Target.primaryKeyColumn, in: parentIDs)
        for next in nested { try next(&parents, tx) }
        var byID: [Int64: Target] = [:]
        for parent in parents { if let id = parent.id { byID[id] = parent } }
        for i in owners.indices {
            let parent: Target? = owners[i].integer(inColumn: fk).flatMap { byID[$0] }
            owners[i].attachLoaded(key, parent)
        }
    }
}
