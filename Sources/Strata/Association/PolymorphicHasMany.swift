// PolymorphicHasMany: an owner's children found by a type column and an id column shared by several owner types.

/// `static let comments = hasMany(Comment.self, as: "commentable", onDelete: .destroy)`: the comments whose
/// `commentable_type` is this model's ``Model/modelName`` and whose `commentable_id` is its id (Rails'
/// `has_many :comments, as: :commentable`). Several owner types declare it over the same child table.
///
/// The rules run in the ORM (no foreign key can point at several tables): `destroy` deletes each child with its
/// callbacks, `nullify` clears both columns, `restrict` refuses while children exist; a soft-deleted owner applies
/// them in kind, as ``HasMany`` does.
public struct PolymorphicHasMany<Owner: Model, Target: Model>: EagerLoadable {
    /// The association's name on the child (`commentable`), the prefix of its two columns.
    public let name: String
    let typeColumn: ResolvedKey
    let idColumn: ResolvedKey
    /// What deleting the owner does to its children.
    public let onDelete: DeleteRule
    var nested: [NestedLoad<Target>] = []

    /// `hasMany <target table>.<name> as <Owner>`, unique within the owner; names the association in errors.
    public var key: String { "hasMany \(Target.schema.name).\(name) as \(Owner.modelName)" }
    /// The children's table: created by `migrate` with the owner's.
    public var relatedModels: [any Model.Type] { [Target.self] }

    /// The same association, also loading `next` on every loaded child.
    public func including(_ next: some EagerLoadable<Target>) -> Self {
        var copy = self
        copy.nested.append { targets, tx in try next.load(into: &targets, tx) }
        return copy
    }

    /// `type = 'Owner' AND id = ?` (or `id IN (…)`).
    func filter(_ ids: SQLExpression) throws -> SQLExpression {
        .and([.compare(.equal, .column(try typeColumn.get()), .value(.text(Owner.modelName))), ids])
    }

    func children(of id: Owner.ID, _ tx: Transaction) throws -> QueryBuilder<Target, Transaction> {
        Target.query(on: tx).where(
            Condition(try filter(.compare(.equal, .column(try idColumn.get()), .value(id.databaseValue)))))
    }

    /// Applies ``onDelete`` in the ORM to the children before the owner row is deleted (no foreign key can).
    ///
    /// - Parameters:
    ///   - ownerID: the id of the owner being deleted.
    ///   - tx: the delete's transaction.
    /// - Throws: ``StrataError/deleteRestricted(model:association:)`` under `restrict` while children exist.
    public func beforeDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {
        switch onDelete {
        case .nullify:
            let assignments = [Assignment(try typeColumn.get(), .null), Assignment(try idColumn.get(), .null)]
            let filter = try filter(.compare(.equal, .column(try idColumn.get()), .value(ownerID.databaseValue)))
            _ = try tx.execute(.update(Update(table: Target.schema.name, assignments: assignments, filter: filter)))
        case .none, .destroy, .restrict:
            try applyDeleteRule(
                onDelete, foreignKey: idColumn.get(), table: Target.schema.name, ownerID: ownerID,
                children: children(of: ownerID, tx), key: key, tx)
        }
    }

    /// Applies ``onDelete`` in kind before the owner is soft-deleted.
    ///
    /// - Parameters:
    ///   - ownerID: the id of the owner being soft-deleted.
    ///   - tx: the delete's transaction.
    /// - Throws: ``StrataError/deleteRestricted(model:association:)`` under `restrict` while live children exist.
    public func beforeSoftDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {
        try applySoftDeleteRule(onDelete, children: children(of: ownerID, tx), key: key)
    }

    /// Loads the children of every owner with one query on the type column and the owners' ids.
    ///
    /// - Parameters:
    ///   - owners: the models to attach children to; each gets a list, empty when it has none.
    ///   - tx: the transaction to query in.
    /// - Throws: database errors.
    public func load(into owners: inout [Owner], _ tx: Transaction) throws {
        let idColumn = try idColumn.get()
        let ids = uniqueIDs(owners.map(\.id))
        var children: [Target] = []
        let chunk = Swift.max(1, tx.connection.maxBindParameters - 16)
        var start = 0
        while start < ids.count {
            let slice = ids[start..<Swift.min(start + chunk, ids.count)]
            var query = Target.query(on: tx).where(
                Condition(try filter(.inList(.column(idColumn), slice.map(\.databaseValue)))))
            query.order = [.key(Target.primaryKeyColumn)]
            children += try query.all()
            start += chunk
        }
        for next in nested { try next(&children, tx) }
        var byOwner: [Owner.ID: [Target]] = [:]
        for child in children {
            if let owner = child.key(inColumn: idColumn, as: Owner.ID.self) {
                byOwner[owner, default: []].append(child)
            }
        }
        for i in owners.indices {
            owners[i].attachLoaded(key, owners[i].id.flatMap { byOwner[$0] } ?? [])
        }
    }
}

extension PolymorphicHasMany: JoinableAssociation {
    /// `JOIN child AS alias ON owner.id = alias.x_id AND alias.x_type = 'Owner'` (the type name bound).
    public func joins(_ kind: Join.Kind, alias: String) throws -> [Join] {
        let on = SQLExpression.and([
            .compare(.equal, .column(Owner.primaryKeyColumn), .column(try idColumn.get(), table: alias)),
            .compare(.equal, .column(try typeColumn.get(), table: alias), .value(.text(Owner.modelName))),
        ])
        return [Join(kind, table: Target.schema.name, alias: alias, on: on)]
    }
}
