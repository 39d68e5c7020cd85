// HasMany: an owner's children, found by a foreign key on the child's table.

/// `static let users = hasMany(User.self, onDelete: .destroy)`: the `User` rows whose `group_id` is
/// this group's id.
public struct HasMany<Owner: Model, Target: Model>: EagerLoadable {
    let link: ChildLink<Owner, Target>
    var nested: [NestedLoad<Target>] = []

    init(foreignKey: ResolvedKey, onDelete: DeleteRule) { link = ChildLink(foreignKey: foreignKey, onDelete: onDelete) }

    var foreignKey: ResolvedKey { link.foreignKey }
    /// What deleting the owner does to its children.
    public var onDelete: DeleteRule { link.onDelete }
    /// `hasMany <target table>.<foreign key>`, unique within the owner; names the association in errors.
    public var key: String { "hasMany \(Target.schema.name).\(foreignKey.name)" }
    /// The tables this association needs: created by `migrate` with the owner's.
    public var relatedModels: [any Model.Type] { [Target.self] }

    /// The same association, also loading `next` on every loaded child.
    public func including(_ next: some EagerLoadable<Target>) -> Self {
        var copy = self
        copy.nested.append { targets, tx in try next.load(into: &targets, tx) }
        return copy
    }

    func children(of id: Owner.ID, _ tx: Transaction) throws -> QueryBuilder<Target, Transaction> {
        try link.children(of: id, tx)
    }

    /// Applies ``onDelete`` to the children before the owner row is deleted: destroys them, nullifies their key,
    /// refuses, or does nothing.
    ///
    /// - Parameters:
    ///   - ownerID: the id of the owner being deleted.
    ///   - tx: the delete's transaction.
    /// - Throws: ``StrataError/deleteRestricted(model:association:)`` under `restrict` while children exist.
    public func beforeDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {
        try link.beforeDeleting(ownerID: ownerID, key: key, tx)
    }

    /// Applies ``onDelete`` in kind before the owner is soft-deleted (see
    /// ``ModelAssociation/beforeSoftDeleting(ownerID:_:)``).
    ///
    /// - Parameters:
    ///   - ownerID: the id of the owner being soft-deleted.
    ///   - tx: the delete's transaction.
    /// - Throws: ``StrataError/deleteRestricted(model:association:)`` under `restrict` while live children exist.
    public func beforeSoftDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {
        try applySoftDeleteRule(onDelete, children: link.children(of: ownerID, tx), key: key)
    }

    /// ``onDelete`` when `table` and `column` are the children's table and foreign key, else nil.
    ///
    /// - Parameters:
    ///   - table: a referencing table.
    ///   - column: its referencing column.
    /// - Returns: the rule, or nil.
    public func deleteRule(forTable table: String, column: String) -> DeleteRule? {
        link.deleteRule(forTable: table, column: column)
    }

    /// Loads the children of every owner with one query over the owners' ids (chunked under the bind limit).
    ///
    /// - Parameters:
    ///   - owners: the models to attach children to; each gets a list, empty when it has none.
    ///   - tx: the transaction to query in.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column; database errors.
    public func load(into owners: inout [Owner], _ tx: Transaction) throws {
        let byOwner = try link.childrenByOwner(owners, nested: nested, tx)
        for i in owners.indices {
            owners[i].attachLoaded(key, owners[i].id.flatMap { byOwner[$0] } ?? [])
        }
    }
}

/// Applies a delete rule, in kind, to the children of an owner being soft-deleted (see
/// ``ModelAssociation/beforeSoftDeleting(ownerID:_:)``).
func applySoftDeleteRule<Target: Model>(
    _ rule: DeleteRule, children: QueryBuilder<Target, Transaction>, key: String
) throws {
    switch rule {
    case .none, .nullify: return
    case .destroy:
        guard Target.schema.column(withRole: .deletedAt) != nil else { return }
        for child in try children.all() { try child.delete(children.executor) }
    case .restrict:
        if try children.exists() {
            throw StrataError.deleteRestricted(model: String(describing: Target.self), association: key)
        }
    }
}

/// Applies a delete rule to the rows that reference an owner being deleted.
func applyDeleteRule<Target: Model>(
    _ rule: DeleteRule, foreignKey: String, table: String, ownerID: some PrimaryKey,
    children: QueryBuilder<Target, Transaction>, key: String, _ tx: Transaction
) throws {
    try applyDeleteRule(
        rule, foreignKey: [foreignKey], table: table,
        filter: .compare(.equal, .column(foreignKey), .value(ownerID.databaseValue)), children: children, key: key, tx)
}

/// Applies a delete rule to the rows that reference an owner being deleted through a key of one or several columns
/// (`nullify` sets every one of them to NULL) and match `filter`.
func applyDeleteRule<Target: Model>(
    _ rule: DeleteRule, foreignKey: [String], table: String, filter: SQLExpression,
    children: QueryBuilder<Target, Transaction>, key: String, _ tx: Transaction
) throws {
    switch rule {
    case .none: return
    case .nullify:
        _ = try tx.execute(
            .update(Update(table: table, assignments: foreignKey.map { Assignment($0, .null) }, filter: filter)))
    case .destroy:
        for child in try children.all() { try child.delete(tx) }
    case .restrict:
        if try children.exists() {
            throw StrataError.deleteRestricted(model: String(describing: Target.self), association: key)
        }
    }
}
