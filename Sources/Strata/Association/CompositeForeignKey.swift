// CompositeForeignKey: the conditions and batched loads of a foreign key of several columns to a composite key.
import Foundation

/// The pieces an association to a model with a composite key (see ``CompositeKey``) is built of: the condition that
/// matches one key or many, and the rows' key values read without decoding them.
enum CompositeForeignKey {
    /// Keys per statement of an eager load: each key binds one value per column, and a dialect without row values
    /// reads the condition as an OR of ANDs, which SQLite parses one level deeper per key (its expression depth is
    /// limited to 1,000), so a batch stays well under both limits.
    static let keysPerStatement = 100

    /// `"a" = ? AND "b" = ?`: the rows whose `columns` hold `values`, in order.
    static func equality(_ columns: [String], _ values: [DatabaseValue], table: String? = nil) -> SQLExpression {
        .and(zip(columns, values).map { .compare(.equal, .column($0, table: table), .value($1)) })
    }

    /// `("a" = ? AND "b" = ?) OR (…)`: the rows whose `columns` hold one of `keys`; the memory driver evaluates the
    /// same AST itself.
    static func matching(_ columns: [String], _ keys: some Collection<[DatabaseValue]>) -> SQLExpression {
        .or(keys.map { equality(columns, $0) })
    }

    /// `owner.a = alias.x AND owner.b = alias.y`: a join's condition, one term per column pair.
    static func joinCondition(_ mine: [String], _ theirs: [String], alias: String) -> SQLExpression {
        .and(zip(mine, theirs).map { .compare(.equal, .column($0), .column($1, table: alias)) })
    }
}

extension Model {
    /// The values of `columns` in this model, or nil when one is NULL (a key with a NULL part points at nothing).
    func values(inColumns columns: [String]) -> [DatabaseValue]? {
        let schema = Self.schema
        let all = databaseValues
        var out: [DatabaseValue] = []
        for column in columns {
            guard let i = schema.index(of: column), i < all.count else { return nil }
            if case .null = all[i] { return nil }
            out.append(all[i])
        }
        return out
    }
}

extension Transaction {
    /// Runs `SELECT … WHERE (a = ? AND b = ?) OR …` for model `T`, ``CompositeForeignKey/keysPerStatement`` keys per
    /// statement, rows ordered by `T`'s key.
    func fetchAll<T: Model>(_ type: T.Type, whereColumns columns: [String], in keys: [[DatabaseValue]]) throws -> [T] {
        var out: [T] = []
        let bindable = Swift.max(1, (connection.maxBindParameters - 16) / Swift.max(1, columns.count))
        let chunk = Swift.min(CompositeForeignKey.keysPerStatement, bindable)
        var start = 0
        while start < keys.count {
            let slice = keys[start..<Swift.min(keys.count, start + chunk)]
            var query = T.query(on: self).where(Condition(CompositeForeignKey.matching(columns, slice)))
            query.order =
                T.schema.hasCompositeKey ? T.schema.primaryKeyColumnNames.map { .key($0) } : [.key(T.primaryKeyColumn)]
            out += try query.all()
            start += slice.count
        }
        return out
    }
}

extension Model {
    /// Points the key `columns` at `values` (nil: at nothing) on a copy, so a column that cannot take its value
    /// leaves the model as it was.
    ///
    /// - Throws: ``StrataError/invalidAssociation(_:)`` naming the model and column that is no stored `var` of the
    ///   key column's type (`Int64`, `Int`, `String`, `UUID`), or not optional when cleared.
    mutating func setKeyColumns(_ columns: [String], to values: [DatabaseValue]?) throws {
        var copy = self
        for (n, column) in columns.enumerated() {
            let value = values.map { $0[n] }
            let kp = Self.keyPath(forColumn: column)
            let done =
                try Self.assign(Int64.self, value, to: &copy, at: kp)
                || Self.assign(Int.self, value, to: &copy, at: kp)
                || Self.assign(String.self, value, to: &copy, at: kp)
                || Self.assign(UUID.self, value, to: &copy, at: kp)
            guard done else {
                throw StrataError.invalidAssociation(
                    "\(Self.modelName).\(column) cannot be set to \(value.map(DatabaseValue.keyText) ?? "nil") (it must be "
                        + "a stored 'var' of the referenced key column's type, optional to point at nothing)")
            }
        }
        self = copy
    }

    /// Sets the key columns on a copy, saves it and only then hands it back: a save that throws leaves the model as
    /// it was.
    mutating func link(_ columns: [String], to values: [DatabaseValue]?, saving tx: Transaction) throws {
        var copy = self
        try copy.setKeyColumns(columns, to: values)
        try copy.save(tx)
        self = copy
    }

    /// Assigns `value` through `kp` when it is a writable key path to `V` or `V?`; false when it is neither or a
    /// non-optional one is to be cleared.
    private static func assign<V: DatabaseValueConvertible>(
        _ type: V.Type, _ value: DatabaseValue?, to model: inout Self, at kp: PartialKeyPath<Self>?
    ) throws -> Bool {
        do {
            if let optional = kp as? WritableKeyPath<Self, V?> {
                model[keyPath: optional] = try value.map { try V(databaseValue: $0) }
                return true
            }
            if let required = kp as? WritableKeyPath<Self, V>, let value {
                model[keyPath: required] = try V(databaseValue: value)
                return true
            }
        } catch {
            return false
        }
        return false
    }
}
