// EagerLoadable: an association that can load itself for many owners in one query (no N+1).

/// An association `including(…)` can load for a whole page of owners at once.
public protocol EagerLoadable<Owner>: ModelAssociation {
    /// Loads the association for every owner with one query per association level (chunked by the
    /// backend's bind limit) and attaches the result to each owner.
    func load(into owners: inout [Owner], _ tx: Transaction) throws
}

/// Nested loads run on the loaded targets; kept as closures so an association value stays Sendable.
typealias NestedLoad<Target> = @Sendable (inout [Target], Transaction) throws -> Void

extension Model {
    /// Attaches a loaded association value under `key`.
    mutating func attachLoaded(_ key: String, _ value: any Sendable) {
        var state = _persistence ?? PersistenceState()
        var loaded = state.loaded ?? [:]
        loaded[key] = value
        state.loaded = loaded
        _persistence = state
    }

    /// A value attached by eager loading, or ``StrataError/associationNotLoaded(model:association:)``.
    func loadedValue<T>(_ key: String, as: T.Type) throws -> T {
        guard let value = _persistence?.loaded?[key] as? T else {
            throw StrataError.associationNotLoaded(model: Self.modelName, association: key)
        }
        return value
    }

    /// The key stored in a column of this model (a foreign key), read without encoding every column.
    func key<K: PrimaryKey>(inColumn column: String, as type: K.Type) -> K? {
        let kp = Self.keyPath(forColumn: column)
        if let optional = kp.flatMap({ $0 as? KeyPath<Self, K?> }) { return self[keyPath: optional] }
        if let required = kp.flatMap({ $0 as? KeyPath<Self, K> }) { return self[keyPath: required] }
        guard let i = Self.schema.index(of: column) else { return nil }
        return try? K(databaseValue: databaseValues[i])
    }
}

extension Transaction {
    /// Runs `SELECT … WHERE column IN (ids) ORDER BY id` for model `T`: one statement binding the ids as one array
    /// where the dialect can (``Dialect/inListArray``), else chunked under the backend's bind limit.
    func fetchAll<T: Model, K: PrimaryKey>(_ type: T.Type, where column: String, in ids: [K]) throws -> [T] {
        var out: [T] = []
        let chunk = Swift.max(1, connection.maxInListValues)
        var start = 0
        while start < ids.count {
            let slice = ids[start..<(ids.count - start > chunk ? start + chunk : ids.count)]
            var query = T.query(on: self).where(Condition(.inList(.column(column), slice.map { $0.databaseValue })))
            // Children in key order on every backend: every column of a composite key, so ties are ordered too.
            query.order =
                T.schema.hasCompositeKey ? T.schema.primaryKeyColumnNames.map { .key($0) } : [.key(T.primaryKeyColumn)]
            out += try query.all()
            start += slice.count
        }
        return out
    }

    /// The values of one key column of the rows of `table` where `column` is in `ids`, as pairs; rows whose
    /// `deletedAt` column is set (a soft-deleted join model) are skipped.
    func keyPairs<A: PrimaryKey, B: PrimaryKey>(
        table: String, key: String, value: String, in ids: [A], as: B.Type, deletedAt: String? = nil
    ) throws -> [(A, B)] {
        var pairs: [(A, B)] = []
        let chunk = Swift.max(1, connection.maxInListValues)
        var start = 0
        while start < ids.count {
            let slice = ids[start..<(ids.count - start > chunk ? start + chunk : ids.count)]
            var filter = SQLExpression.inList(.column(key), slice.map { $0.databaseValue })
            if let deletedAt { filter = .and([filter, .isNull(.column(deletedAt))]) }
            let select = Select(table: table, selection: .columns([key, value]), filter: filter)
            _ = try execute(.select(select)) { r in
                if let k = try? A(databaseValue: r.value(at: 0)), let v = try? B(databaseValue: r.value(at: 1)) {
                    pairs.append((k, v))
                }
            }
            start += slice.count
        }
        return pairs
    }
}

/// Unique ids in first-seen order.
func uniqueIDs<K: Hashable>(_ ids: [K?]) -> [K] {
    var seen = Set<K>()
    return ids.compactMap { $0 }.filter { seen.insert($0).inserted }
}
