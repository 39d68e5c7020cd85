// Model+CompositeKey: the key condition of any model, and save for a model whose key has several columns.
import Foundation

extension Model {
    /// `"id" = ?`, or for a composite key (see ``CompositeKey``) `"a" = ? AND "b" = ?`, one term per key column.
    @inlinable
    static func keyEquality(_ id: ID) -> SQLExpression {
        let schema = self.schema
        guard schema.hasCompositeKey else {
            return .compare(.equal, .column(primaryKeyColumn), .value(id.databaseValue))
        }
        return compositeKeyEquality(id)
    }

    /// The refusal of a hand-written model whose table has a composite key but whose `ID` is no ``CompositeKey``:
    /// its save, and any find, delete or `filter(id:)` (which would otherwise match one key column only).
    static var keyIsNoCompositeKey: StrataError {
        .invalidArgument(
            Self.modelName,
            reason: "its table has a composite key (\(schema.primaryKeyColumnNames.joined(separator: ", "))) "
                + "but its ID, \(ID.self), is no CompositeKey: declare it with @Model(primaryKey:)")
    }

    /// The terms of a composite key's condition, one per key column; a key that is not a ``CompositeKey`` (a
    /// hand-written model's mistake) compares the first key column with its one value.
    @usableFromInline
    static func compositeKeyEquality(_ id: ID) -> SQLExpression {
        let names = schema.primaryKeyColumnNames
        guard let key = id as? any CompositeKey else {
            return .compare(.equal, .column(primaryKeyColumn), .value(id.databaseValue))
        }
        return .and(zip(names, key.keyValues).map { .compare(.equal, .column($0), .value($1)) })
    }

    /// Saves a model with a composite key, by the rule of a key the app sets: a stored model updates its assigned
    /// columns `WHERE` every key column (a stored model's key columns cannot change); a model never fetched nor saved
    /// updates its row when one has its key and is inserted otherwise. `@CreatedAt` is stamped on an insert,
    /// `@UpdatedAt` on every write. A model with `@Version` is refused: its key and version are not yet combined.
    ///
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` naming a key column assigned on a stored model,
    ///   ``StrataError/invalidArgument(_:reason:)`` naming a hand-written model whose `ID` is no ``CompositeKey``,
    ///   ``StrataError/unsupported(feature:driver:)`` for `@Version`, ``StrataError/recordNotFound(model:id:)``
    ///   when a stored model's row is gone, and what the write throws. The model is left as it was.
    @usableFromInline
    mutating func writeCompositeRow(_ tx: Transaction, insertIfMissing: Bool) throws {
        let schema = Self.schema
        let keys = schema.primaryKeyIndexes
        guard let id else { throw StrataError.notPersisted(model: Self.modelName) }
        guard id is any CompositeKey else { throw Self.keyIsNoCompositeKey }
        if schema.column(withRole: .version) != nil {
            throw StrataError.unsupported(feature: "@Version on \(Self.modelName)'s composite key", driver: "Strata")
        }
        try Self.checkKeyring(tx)
        let filter = Self.keyEquality(id)
        let state = _persistence
        if let state, state.isStored, let changed = keys.first(where: { state.isChanged($0) }) {
            throw StrataError.invalidValue(
                table: schema.name, column: schema.columns[changed].name,
                reason: "\(Self.modelName)'s key column cannot change once stored: save a new model and delete this one"
            )
        }
        let stored = state?.isStored == true
        if stored && !hasChanges { return }
        var copy = self  // the stamps below are the model's only after the write succeeds
        let now = DatabaseValue.roundedToMicroseconds(Date())
        if let updated = schema.column(withRole: .updatedAt) { try copy.setDate(now, column: updated.name) }
        let values = try copy.storedValues(tx)
        var changes: [Assignment] = []
        let created = schema.column(withRole: .createdAt)?.index
        for i in values.indices where !keys.contains(i) && !schema.columns[i].isGenerated {
            let writes =
                stored
                ? try i == schema.column(withRole: .updatedAt)?.index || Self.updates(i, state ?? .init(), schema)
                : i != created
            if writes { changes.append(Assignment(schema.columns[i].name, values[i])) }
        }
        if !changes.isEmpty,
            try tx.execute(.update(Update(table: schema.name, assignments: changes, filter: filter))) > 0
        {
            copy._persistence.markStored()
            self = copy
            return
        }
        if stored && !insertIfMissing { throw StrataError.recordNotFound(model: Self.modelName, id: "\(id)") }
        if changes.isEmpty, try Self.query(on: tx).withDeleted().filter(id: id).exists() {
            copy._persistence.markStored()  // only key columns (a join table's row): nothing else to write
            self = copy
            return
        }
        if let created = schema.column(withRole: .createdAt) { try copy.setDate(now, column: created.name) }
        let inserted = try tx.execute(
            .insert(
                Insert(
                    table: schema.name, columns: schema.writtenColumnNames(includingKey: true),
                    rows: [schema.writtenValues(try copy.storedValues(tx), includingKey: true)],
                    defaults: schema.databaseDefaults)))
        guard inserted > 0 else { throw StrataError.insertIgnored(table: schema.name) }
        copy._persistence.markStored()
        self = copy
    }
}
