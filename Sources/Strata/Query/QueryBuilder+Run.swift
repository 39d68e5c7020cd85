// QueryBuilder+Run: the terminal calls: synchronous on a Transaction, async on a Database.
import Foundation

extension QueryBuilder where Executor == Transaction {
    /// Streams matching models one at a time, in constant memory.
    @inlinable
    public func forEach(_ body: (M) throws -> Void) throws {
        guard includes.isEmpty else {
            throw StrataError.invalidQuery("including(…) needs all() or first(), not forEach")
        }
        var select = try selectStatement()
        select.streamsRows = true
        try fetch(select, body)
    }

    /// Runs a SELECT and hands each decoded model to `body`. Inlinable, so the model's module
    /// specializes the per-row loop for its concrete type.
    @inlinable
    func fetch(_ select: Select, _ body: (consuming M) throws -> Void) throws {
        guard case .columns(let columns) = select.selection else { return }
        let context = RowContext(model: M.self, schema: M.schema, selected: columns)
        _ = try executor.execute(.select(select)) { reader in
            var model = try M(row: Row(reader: reader, context: context))
            model._persistence.markStored()
            try body(consume model)
        }
    }

    /// All matching models.
    @inlinable
    public func all() throws -> [M] {
        var out: [M] = []
        try fetch(try selectStatement()) { out.append($0) }
        for load in includes { try load(&out, executor) }
        return out
    }

    /// The first matching model, or nil.
    public func first() throws -> M? {
        var out: [M] = []
        try fetch(try selectStatement(limit: min(limit ?? 1, 1))) { out.append($0) }
        for load in includes { try load(&out, executor) }
        return out.first
    }

    /// The values of one column of the matching rows.
    public func values<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>) throws -> [V] {
        guard let name = M.columnName(for: kp) else {
            throw StrataError.unknownColumn(model: M.modelName, column: "\(kp)")
        }
        var select = try selectStatement()
        select.selection = .columns([name])
        var out: [V] = []
        _ = try executor.execute(.select(select)) { r in
            let v = r.value(at: 0)
            do {
                out.append(try V(databaseValue: v))
            } catch let error as ValueConversionError {
                throw StrataError.decodingFailed(
                    model: M.modelName, column: name, value: v.summary, expected: error.expected)
            }
        }
        return out
    }

    /// The number of matching rows (respecting limit and offset).
    public func count() throws -> Int {
        var select = try selectStatement()
        select.selection = .count
        select.order = []
        var n: Int64 = 0
        _ = try executor.execute(.select(select)) { r in
            switch r.value(at: 0) {
            case .integer(let v): n = v
            case .double(let d): n = Int64(d)
            case .decimal(let d): n = Int64(truncating: d as NSDecimalNumber)
            default: break
            }
        }
        return Int(n)
    }

    /// Whether any row matches.
    public func exists() throws -> Bool {
        var select = try selectStatement(limit: 1)
        select.selection = .columns([M.primaryKeyColumn])
        var found = false
        _ = try executor.execute(.select(select)) { _ in found = true }
        return found
    }

    /// Deletes the matching rows; returns how many.
    @discardableResult
    public func delete() throws -> Int {
        try executor.execute(.delete(Delete(table: M.schema.name, filter: try writeFilter("delete"))))
    }

    /// Applies the ``set(_:to:)`` assignments to the matching rows; returns how many changed. An `@UpdatedAt`
    /// column is set to the current time too, unless assigned; a `@Version` column is left as it is.
    @discardableResult
    public func update() throws -> Int {
        guard !assignments.isEmpty else { throw StrataError.invalidQuery("update() without set(_:to:)") }
        var assignments = self.assignments
        if let stamp = M.schema.column(withRole: .updatedAt), !assignments.contains(where: { $0.column == stamp.name })
        {
            assignments.append(Assignment(stamp.name, .date(DatabaseValue.roundedToMicroseconds(Date()))))
        }
        return try executor.execute(
            .update(
                Update(
                    table: M.schema.name, assignments: assignments,
                    filter: try writeFilter("update"))))
    }
}

extension QueryBuilder where Executor == Database {
    nonisolated(nonsending)
        func on<T>(_ body: (QueryBuilder<M, Transaction>) throws -> T) async throws -> T
    {
        try await executor.withConnection { tx in
            var q = QueryBuilder<M, Transaction>(executor: tx)
            q.filters = filters
            q.order = order
            q.limit = limit
            q.offset = offset
            q.selected = selected
            q.assignments = assignments
            q.error = error
            q.includes = includes
            q.joins = joins
            return try body(q)
        }
    }

    /// All matching models.
    nonisolated(nonsending) public func all() async throws -> [M] { try await on { try $0.all() } }
    /// The first matching model, or nil.
    nonisolated(nonsending) public func first() async throws -> M? { try await on { try $0.first() } }
    /// The number of matching rows.
    nonisolated(nonsending) public func count() async throws -> Int { try await on { try $0.count() } }
    /// Whether any row matches.
    nonisolated(nonsending) public func exists() async throws -> Bool { try await on { try $0.exists() } }
    /// The values of one column of the matching rows.
    nonisolated(nonsending) public func values<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V> & Sendable) async throws
        -> [V]
    {
        try await on { try $0.values(kp) }
    }
    /// Deletes the matching rows; returns how many.
    @discardableResult
    nonisolated(nonsending) public func delete() async throws -> Int { try await on { try $0.delete() } }
    /// Applies the ``set(_:to:)`` assignments to the matching rows; returns how many changed. An `@UpdatedAt`
    /// column is set to the current time too, unless assigned; a `@Version` column is left as it is.
    @discardableResult
    nonisolated(nonsending) public func update() async throws -> Int { try await on { try $0.update() } }
}
