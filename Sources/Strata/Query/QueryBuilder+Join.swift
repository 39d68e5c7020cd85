// QueryBuilder+Join: joins on associations or explicit columns, filters and order on joined columns.

/// A join the builder added: its key (to find it again), the target table and alias, its clauses.
struct JoinSpec {
    let key: String
    let table: String
    let alias: String
    let joins: [Join]
    /// The `@DeletedAt` column of each soft-deleted joined model, by the alias it is joined under.
    var deletedAtColumns: [String: String] = [:]
}

extension QueryBuilder {
    func adding(
        _ key: String, table: String, softDeleted: [(table: String, column: String)] = [],
        _ make: (String) throws -> [Join]
    ) -> Self {
        var copy = self
        let alias = "j\(joins.count + 1)"
        do {
            let clauses = try make(alias)
            var spec = JoinSpec(key: key, table: table, alias: alias, joins: clauses)
            for join in clauses {
                if let soft = softDeleted.first(where: { $0.table == join.table }) {
                    spec.deletedAtColumns[join.alias] = soft.column
                }
            }
            copy.joins.append(spec)
        } catch let error as StrataError {
            copy.error = copy.error ?? error
        } catch {
            copy.error = copy.error ?? .invalidAssociation("\(error)")
        }
        return copy
    }

    /// Joins an association's table (inner by default); rows repeat per match, as in SQL.
    ///
    /// ```swift
    /// let students = try await User.query(on: db).join(User.group).where(User.group, \.title == "Students").all()
    /// ```
    ///
    /// ```swift
    /// let annsPosts = try await Post.query(on: db).join(Post.user).where(Post.user, \.name == "Ann").all()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "post"."id", "post"."user_id", "post"."title", "post"."views" FROM "post" INNER JOIN "user" AS "j1" ON ("post"."user_id" = "j1"."id") WHERE ("j1"."name" = ?)
    /// -- PostgreSQL
    /// SELECT "post"."id", "post"."user_id", "post"."title", "post"."views" FROM "post" INNER JOIN "user" AS "j1" ON ("post"."user_id" = "j1"."id") WHERE ("j1"."name" = $1)
    /// ```
    ///
    /// Each join takes the alias `j1`, `j2`, … in call order; the main table's columns stay qualified by its name.
    ///
    /// - Parameters:
    ///   - association: an association declared on this model.
    ///   - kind: inner (the default), left, right or full.
    /// - Returns: the query with the join added.
    public func join<A: JoinableAssociation>(_ association: A, _ kind: Join.Kind = .inner) -> Self where A.Owner == M {
        adding(association.key, table: A.Target.schema.name, softDeleted: association.softDeletedTables) {
            try association.joins(kind, alias: $0)
        }
    }

    /// Joins another model's table on explicit columns: `left` of this model equals `right` of `T`.
    public func join<T: Model, V, W>(
        _ type: T.Type, on left: KeyPath<M, V>, equals right: KeyPath<T, W>,
        _ kind: Join.Kind = .inner
    ) -> Self {
        adding("join \(T.schema.name)", table: T.schema.name, softDeleted: T.softDeletedTables) { alias in
            let l = try M.column(left)
            let r = try T.column(right)
            return [
                Join(
                    kind, table: T.schema.name, alias: alias, on: .compare(.equal, .column(l), .column(r, table: alias))
                )
            ]
        }
    }

    private func alias(forKey key: String) -> String? { joins.first { $0.key == key }?.alias }

    private func alias(forTable table: String) -> String? { joins.first { $0.table == table }?.alias }

    private func qualified<T: Model>(_ condition: Condition<T>, alias: String?, what: String) -> Self {
        var copy = self
        guard let alias else {
            copy.error = copy.error ?? .invalidQuery("\(what) is not joined; call join(…) first")
            return copy
        }
        switch condition.result {
        case .success(var e):
            // The joined model's `@Encrypted` columns compare envelopes, or refuse, as the model's own do.
            if T.schema.storage.hasEncryptedColumns {
                let filter = EncryptedFilter(schema: T.schema, model: T.modelName, encryption: columnEncryption)
                do {
                    e = SQLExpression(try filter.rewrite(e.node))
                } catch {
                    copy.error = copy.error ?? error
                    return copy
                }
            }
            copy.filters.append(e.qualified(as: alias))
        case .failure(let e): copy.error = copy.error ?? e
        }
        return copy
    }

    /// An error when `column` of `T` is `@Encrypted`: envelopes do not sort.
    private static func refusingEncryptedOrder<T: Model>(_ type: T.Type, _ column: String?) -> StrataError? {
        guard let column, let encrypted = T.schema.encryptedColumn(named: column, model: T.modelName) else {
            return nil
        }
        return encrypted.error("ORDER BY cannot sort envelopes")
    }

    /// Keeps rows whose joined association matches `condition`.
    public func `where`<A: JoinableAssociation>(_ association: A, _ condition: Condition<A.Target>) -> Self
    where A.Owner == M {
        qualified(condition, alias: alias(forKey: association.key), what: association.key)
    }

    /// Keeps rows whose joined model (joined by type with ``join(_:on:equals:_:)``) matches `condition`.
    public func `where`<T: Model>(_ type: T.Type, _ condition: Condition<T>) -> Self {
        qualified(condition, alias: alias(forTable: T.schema.name), what: T.modelName)
    }

    /// Sorts by a column of a joined association.
    public func order<A: JoinableAssociation, V>(
        _ association: A, _ kp: KeyPath<A.Target, V>,
        _ direction: Ordering.Direction = .ascending
    ) -> Self where A.Owner == M {
        if let refused = Self.refusingEncryptedOrder(A.Target.self, A.Target.columnName(for: kp)) {
            var copy = self
            copy.error = copy.error ?? refused
            return copy
        }
        return ordering(
            alias(forKey: association.key), A.Target.columnName(for: kp), direction, what: association.key,
            isText: A.Target.schema.isText(A.Target.columnName(for: kp)),
            isNeverNull: A.Target.schema.isNeverNull(A.Target.columnName(for: kp)))
    }

    /// Sorts by a column of a model joined by type.
    public func order<T: Model, V>(_ type: T.Type, _ kp: KeyPath<T, V>, _ direction: Ordering.Direction = .ascending)
        -> Self
    {
        if let refused = Self.refusingEncryptedOrder(T.self, T.columnName(for: kp)) {
            var copy = self
            copy.error = copy.error ?? refused
            return copy
        }
        return ordering(
            alias(forTable: T.schema.name), T.columnName(for: kp), direction, what: T.modelName,
            isText: T.schema.isText(T.columnName(for: kp)), isNeverNull: T.schema.isNeverNull(T.columnName(for: kp)))
    }

    private func ordering(
        _ alias: String?, _ column: String?, _ direction: Ordering.Direction, what: String, isText: Bool,
        isNeverNull: Bool
    ) -> Self {
        var copy = self
        guard let alias, let column else {
            copy.error = copy.error ?? .invalidQuery("cannot order by \(what): not joined, or not a column")
            return copy
        }
        var ordering = Ordering(column, direction, table: alias)
        ordering.isText = isText
        ordering.isNeverNull = isNeverNull
        copy.order.append(ordering)
        return copy
    }
}

extension QueryBuilder where Executor == Transaction {
    /// Each joined row as a pair: this model and the joined association's model (nil where an outer
    /// join found none; the left side is nil only for right and full joins).
    public func allJoined<A: JoinableAssociation>(_ association: A) throws -> [(M?, A.Target?)] where A.Owner == M {
        try pairs(A.Target.self, alias: alias(forKey: association.key))
    }

    /// Each joined row as a pair with the model joined by type.
    public func allJoined<T: Model>(_ type: T.Type) throws -> [(M?, T?)] {
        try pairs(T.self, alias: alias(forTable: T.schema.name))
    }

    private func pairs<T: Model>(_ type: T.Type, alias: String?) throws -> [(M?, T?)] {
        guard let alias else { throw StrataError.invalidQuery("\(T.modelName) is not joined; call join(…) first") }
        var select = try selectStatement()
        let left = M.schema.columns.map { ColumnRef($0.name) }
        let right = T.schema.columns.map { ColumnRef($0.name, table: alias) }
        select.selection = .refs(left + right)
        let keyring = executor.database.keyring
        let leftContext = RowContext(model: M.self, schema: M.schema, selected: nil, keyring: keyring)
        let rightContext = RowContext(model: T.self, columns: T.schema.columns, offset: left.count, keyring: keyring)
        // A key column (NOT NULL, a composite key's first included) is NULL only on the missing side of an outer join.
        let leftKey = M.schema.primaryKeyIndex ?? M.schema.primaryKeyIndexes.first ?? 0
        let rightKey = left.count + (T.schema.primaryKeyIndex ?? T.schema.primaryKeyIndexes.first ?? 0)
        var out: [(M?, T?)] = []
        let scope = executor.undoScope
        _ = try executor.execute(.select(select)) { reader in
            var m: M?
            var t: T?
            if !reader.value(at: leftKey).isNull {
                var model = try M(row: Row(reader: reader, context: leftContext))
                model._persistence.markRead(in: scope)
                m = model
            }
            if !reader.value(at: rightKey).isNull {
                var model = try T(row: Row(reader: reader, context: rightContext))
                model._persistence.markRead(in: scope)
                t = model
            }
            out.append((m, t))
        }
        return out
    }
}

extension QueryBuilder where Executor == Database {
    /// Each joined row as a pair (see the synchronous ``allJoined(_:)``).
    nonisolated(nonsending)
        public func allJoined<A: JoinableAssociation>(_ association: A) async throws -> [(M?, A.Target?)]
    where A.Owner == M {
        try await on { try $0.allJoined(association) }
    }

    /// Each joined row as a pair with the model joined by type.
    nonisolated(nonsending)
        public func allJoined<T: Model>(_ type: T.Type) async throws -> [(M?, T?)]
    {
        try await on { try $0.allJoined(type) }
    }
}

extension Model {
    /// This model's table and `@DeletedAt` column, if it is soft-deleted.
    static var softDeletedTables: [(table: String, column: String)] {
        schema.column(withRole: .deletedAt).map { [(schema.name, $0.name)] } ?? []
    }
}

extension JoinableAssociation {
    /// The soft-deleted models among the tables this association joins (the target, a through model).
    var softDeletedTables: [(table: String, column: String)] {
        relatedModels.flatMap { $0.softDeletedTables }
    }
}
