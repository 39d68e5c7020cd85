// PolymorphicBelongsTo: a parent of one of several model types, named by a type column beside the id column.

/// `static let commentable = belongsTo(polymorphic: "commentable", Post.self, Photo.self)`: the `Post` or `Photo`
/// this comment's `commentable_type` names (the parent's ``Model/modelName``), with the id `commentable_id`
/// (Rails' polymorphic `belongs_to`).
///
/// The id column holds keys of several tables, so no foreign key guards it: delete rules come from each parent's
/// `hasMany(…, as:)` (see ``PolymorphicHasMany``). A type name no declared model has is a typed
/// ``StrataError/invalidValue(table:column:reason:)`` when the parent is fetched or loaded.
public struct PolymorphicBelongsTo<Owner: Model>: EagerLoadable {
    /// The association's name (`commentable`), the prefix of its two columns.
    public let name: String
    let typeColumn: ResolvedKey
    let idColumn: ResolvedKey
    let targets: [PolymorphicTarget]

    /// `belongsTo polymorphic <owner table>.<name>`, unique within the owner; names the association in errors.
    public var key: String { "belongsTo polymorphic \(Owner.schema.name).\(name)" }
    /// The parents' tables: created by `migrate` with the owner's.
    public var relatedModels: [any Model.Type] { targets.map(\.type) }
    /// Deleting a child does nothing to its parent.
    public func beforeDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {}

    /// The declared target whose type name is `typeName`, or the typed error naming the column and the choices.
    func target(named typeName: String) throws -> PolymorphicTarget {
        if let found = targets.first(where: { $0.typeName == typeName }) { return found }
        throw StrataError.invalidValue(
            table: Owner.schema.name, column: typeColumn.column,
            reason: "'\(typeName)' is none of the models \(Owner.modelName).\(name) declares ("
                + targets.map(\.typeName).joined(separator: ", ") + ")")
    }

    /// The type name and the id a model points at, or nil when either is NULL.
    func reference(of model: Owner) throws -> (type: String, id: DatabaseValue)? {
        let values = model.databaseValues
        guard let t = Owner.schema.index(of: try typeColumn.get()), let i = Owner.schema.index(of: try idColumn.get()),
            case .text(let typeName) = values[t], !values[i].isNull
        else { return nil }
        return (typeName, values[i])
    }

    /// Loads the parent of every owner with one query per parent type named among them.
    ///
    /// - Parameters:
    ///   - owners: the models to attach parents to; an owner whose type or id is NULL gets none.
    ///   - tx: the transaction to query in.
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` for a type name no declared model has.
    public func load(into owners: inout [Owner], _ tx: Transaction) throws {
        var idsByType: [String: [DatabaseValue]] = [:]
        var references: [(type: String, id: DatabaseValue)?] = []
        for owner in owners {
            let reference = try reference(of: owner)
            if let reference {
                _ = try target(named: reference.type)
                idsByType[reference.type, default: []].append(reference.id)
            }
            references.append(reference)
        }
        var found: [String: [DatabaseValue: any Model]] = [:]
        for (typeName, ids) in idsByType { found[typeName] = try target(named: typeName).fetch(uniqueIDs(ids), tx) }
        for i in owners.indices {
            let parent: (any Model)? = references[i].flatMap { found[$0.type]?[$0.id] }
            owners[i].attachLoaded(key, parent)
        }
    }
}

/// One model type a polymorphic `belongsTo` may point at, with a way to fetch its rows by id.
struct PolymorphicTarget: Sendable {
    let type: any Model.Type
    let typeName: String
    /// The rows with these ids, by id as stored.
    let fetch: @Sendable ([DatabaseValue], Transaction) throws -> [DatabaseValue: any Model]

    init<T: Model>(_ type: T.Type) {
        self.type = type
        typeName = T.modelName
        fetch = { ids, tx in
            let keys = try ids.map { value in
                do {
                    return try T.ID(databaseValue: value)
                } catch {
                    throw StrataError.decodingFailed(
                        model: T.modelName, column: T.primaryKeyColumn, value: value.summary,
                        expected: String(describing: T.ID.self))
                }
            }
            var out: [DatabaseValue: any Model] = [:]
            for row in try tx.fetchAll(T.self, where: T.primaryKeyColumn, in: keys) {
                if let id = row.id { out[id.databaseValue] = row }
            }
            return out
        }
    }
}
