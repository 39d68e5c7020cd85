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
        let context = RowContext(model: M.self, schema: M.schema, selected: columns, keyring: executor.database.keyring)
        // The scope every row is read in: the statement's (a savepoint `body` opens is closed before the next row).
        let scope = executor.undoScope
        _ = try executor.execute(.select(select)) { reader in
            var model = try M(row: Row(reader: reader, context: context))
            model._persistence.markRead(in: scope)
            try body(consume model)
        }
    }

    /// All matching models.
    @inlinable
    public func all() throws -> [M] {
        var out: [M] = []
        try fetch(try selectStatement(), appendingTo: &out)
        for load in includes { try load(&out, executor) }
        return out
    }

    /// Runs a SELECT and appends each decoded model to `out`, as `fetch(_:_:)` hands them to a closure that
    /// appends them, less one closure and two copies of each model: the model is appended as decoded and marked
    /// read where it lies (a 10-column model moved through `fetch`'s body was three 161-byte copies a row).
    @inlinable
    func fetch(_ select: Select, appendingTo out: inout [M]) throws {
        guard case .columns(let columns) = select.selection else { return }
        let context = RowContext(model: M.self, schema: M.schema, selected: columns, keyring: executor.database.keyring)
        let scope = executor.undoScope
        _ = try executor.execute(.select(select)) { reader in
            out.append(try M(row: Row(reader: reader, context: context)))
            out[out.count - 1]._persistence.markRead(in: scope)
        }
    }

    /// The first matching model, or nil.
    public func first() throws -> M? {
        var out: [M] = []
        try fetch(try selectStatement(limit: Swift.min(limit ?? 1, 1))) { out.append($0) }
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
        let sealed = encryptedFilter.flatMap { $0.encrypted(name) }
        let encryption = columnEncryption
        _ = try executor.execute(.select(select)) { r in
            var v = r.value(at: 0)
            if let sealed {
                v = try TableSchema.open(v, for: sealed, encryption)
            }
            do {
                out.append(try V(databaseValue: v))
            } catch let error as ValueConversionError {
                throw StrataError.decodingFailed(
                    model: M.modelName, column: name, value: sealed == nil ? v.summary : "(encrypted)",
                    expected: error.expected)
            }
        }
        return out
    }

    /// The number of matching rows (respecting limit and offset).
    ///
    /// ```swift
    /// let adults = try User.query(on: tx).where(\.age >= 18).count()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT COUNT(*) FROM "user" WHERE ("age" >= ?)
    /// -- PostgreSQL
    /// SELECT COUNT(*) FROM "user" WHERE ("age" >= $1)
    /// ```
    ///
    /// - Returns: the number of rows.
    /// - Throws: the first error met while building the query, and database errors.
    public func count() throws -> Int {
        if grouping.distinct { return try distinctCount() }
        var select = try selectStatement()
        select.selection = .count
        select.order = []
        var n = 0
        _ = try executor.execute(.select(select)) { n = Self.count(in: $0) }
        return n
    }

    /// Whether any row matches.
    ///
    /// ```swift
    /// let known = try User.query(on: tx).where(\.name == "Ann").exists()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id" FROM "user" WHERE ("name" = ?) LIMIT ?
    /// -- PostgreSQL
    /// SELECT "id" FROM "user" WHERE ("name" = $1) LIMIT $2
    /// ```
    ///
    /// - Returns: true when at least one row matches.
    /// - Throws: the first error met while building the query, and database errors.
    public func exists() throws -> Bool {
        var select = try selectStatement(limit: 1)
        select.selection = .columns([M.primaryKeyColumn])
        var found = false
        _ = try executor.execute(.select(select)) { _ in found = true }
        return found
    }

    /// Deletes the matching rows; returns how many. A soft-deleted model's rows get their `@DeletedAt` set
    /// instead (see ``forceDelete()-7r1av``). No callbacks or association rules run.
    ///
    /// ```swift
    /// try Post.query(on: tx).where(\.views == 0).delete()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// DELETE FROM "post" WHERE ("views" = ?)
    /// -- PostgreSQL
    /// DELETE FROM "post" WHERE ("views" = $1)
    /// ```
    ///
    /// - Returns: the number of rows deleted (or soft-deleted).
    /// - Throws: ``StrataError/invalidQuery(_:)`` for a query with joins, grouping, a limit or an offset; constraint
    ///   errors (a foreign key still pointing at a row).
    @discardableResult
    public func delete() throws -> Int {
        if let deleted = M.schema.column(withRole: .deletedAt)?.name {
            return try executor.execute(
                .update(
                    Update(
                        table: M.schema.name,
                        assignments: [Assignment(deleted, M.schema.stored(.date(Self.now()), column: deleted))],
                        filter: try writeFilter("delete"))))
        }
        return try forceDelete()
    }

    /// Deletes the matching rows for good, soft-deleted model or not (`withDeleted()` to reach rows already
    /// soft-deleted); returns how many.
    @discardableResult
    public func forceDelete() throws -> Int {
        try executor.execute(.delete(Delete(table: M.schema.name, filter: try writeFilter("delete"))))
    }

    /// Clears `@DeletedAt` on the matching soft-deleted rows; returns how many. Use with `onlyDeleted()`.
    @discardableResult
    public func restore() throws -> Int {
        guard let deleted = M.schema.column(withRole: .deletedAt)?.name else {
            throw StrataError.invalidQuery("\(M.modelName) has no @DeletedAt column to restore")
        }
        return try executor.execute(
            .update(
                Update(
                    table: M.schema.name, assignments: [Assignment(deleted, .null)], filter: try writeFilter("restore"))
            ))
    }

    /// Applies the ``set(_:to:)-(_,V)`` assignments to the matching rows; returns how many changed. An `@UpdatedAt`
    /// column is set to the current time too, unless assigned; a `@Version` column is left as it is.
    ///
    /// ```swift
    /// try Post.query(on: tx).where(\.userID == 1).set(\.title, to: "Hidden").update()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// UPDATE "post" SET "title" = ? WHERE ("user_id" = ?)
    /// -- PostgreSQL
    /// UPDATE "post" SET "title" = $1 WHERE ("user_id" = $2)
    /// ```
    ///
    /// - Returns: the number of rows changed.
    /// - Throws: ``StrataError/invalidQuery(_:)`` without any `set(_:to:)`, or for a query with joins, grouping, a
    ///   limit or an offset; ``StrataError/generatedColumn(model:column:reason:)`` for a set generated column;
    ///   constraint errors.
    @discardableResult
    public func update() throws -> Int {
        if let error { throw error }  // a set(_:to:) on a property with no column is that error, not "without set"
        guard !assignments.isEmpty else { throw StrataError.invalidQuery("update() without set(_:to:)") }
        let schema = M.schema
        if !schema.generatedColumnIndexes.isEmpty,
            let a = assignments.first(where: { schema.column(named: $0.column)?.isGenerated == true })
        {
            throw StrataError.generatedColumn(
                model: M.modelName, column: a.column, reason: "cannot be set by update(): the database computes it")
        }
        if let search = try M.searchColumns() {
            let names = Set(([search.document] + search.sources).map { schema.columns[$0].name })
            if let a = assignments.first(where: { names.contains($0.column) }) {
                throw StrataError.invalidSearch(
                    model: M.modelName, part: a.column,
                    reason: "is part of the search document, which update() cannot rewrite: save the models instead")
            }
        }
        var assignments = self.assignments
        if let stamp = M.schema.column(withRole: .updatedAt), !assignments.contains(where: { $0.column == stamp.name })
        {
            assignments.append(Assignment(stamp.name, M.schema.stored(.date(Self.now()), column: stamp.name)))
        }
        return try executor.execute(
            .update(
                Update(
                    table: M.schema.name, assignments: try sealingEncrypted(assignments),
                    filter: try writeFilter("update"))))
    }
}

extension QueryBuilder where Executor == Database {
    /// Runs a read on a replica when the database has some (see ``Database/read(_:)``).
    @usableFromInline
    nonisolated(nonsending)
        func on<T>(_ body: (QueryBuilder<M, Transaction>) throws -> T) async throws -> T
    {
        try await executor.read { tx in try body(rebound(to: tx)) }
    }

    /// Runs a write on the primary.
    nonisolated(nonsending)
        func writing<T>(_ body: (QueryBuilder<M, Transaction>) throws -> T) async throws -> T
    {
        try await executor.withConnection { tx in try body(rebound(to: tx)) }
    }

    /// The limit `first()` reads with: 1, or 0 when the query's own limit is 0.
    @usableFromInline var firstLimit: Int { Swift.min(limit ?? 1, 1) }

    // The reads below are inlined, so that the caller's module specializes them for the model, as it does the
    // synchronous ones: generic, each decoded model went through the protocol and each append to `[M]` looked up
    // the array's metadata at run time.

    /// All matching models.
    @inlinable
    nonisolated(nonsending) public func all() async throws -> [M] {
        guard includes.isEmpty, let select = try loopSelect() else { return try await on { try $0.all() } }
        var out: [M] = []
        try await fetch(select, appendingTo: &out)
        return out
    }
    /// The first matching model, or nil.
    @inlinable
    nonisolated(nonsending) public func first() async throws -> M? {
        guard includes.isEmpty, let select = try loopSelect(limit: firstLimit) else {
            return try await on { try $0.first() }
        }
        var found: M?
        try await fetch(select) { found = found ?? $0 }
        return found
    }
    /// The number of matching rows.
    nonisolated(nonsending) public func count() async throws -> Int {
        guard !grouping.distinct, var select = try loopSelect() else { return try await on { try $0.count() } }
        select.selection = .count
        select.order = []
        var n = 0
        _ = try await executor.readOne(select) { n = Self.count(in: $0) }
        return n
    }
    /// Whether any row matches.
    @inlinable
    nonisolated(nonsending) public func exists() async throws -> Bool {
        guard var select = try loopSelect(limit: 1) else { return try await on { try $0.exists() } }
        select.selection = .columns([M.primaryKeyColumn])
        var found = false
        _ = try await executor.readOne(select) { _ in found = true }
        return found
    }
    /// The values of one column of the matching rows.
    nonisolated(nonsending) public func values<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V> & Sendable) async throws
        -> [V]
    {
        try await on { try $0.values(kp) }
    }
    /// Deletes the matching rows (soft-deletes a soft-deleted model's); returns how many.
    @discardableResult
    nonisolated(nonsending) public func delete() async throws -> Int { try await writing { try $0.delete() } }
    /// Deletes the matching rows for good (see the synchronous ``forceDelete()``).
    @discardableResult
    nonisolated(nonsending) public func forceDelete() async throws -> Int { try await writing { try $0.forceDelete() } }
    /// Clears `@DeletedAt` on the matching rows (see the synchronous ``restore()``).
    @discardableResult
    nonisolated(nonsending) public func restore() async throws -> Int { try await writing { try $0.restore() } }
    /// Applies the ``set(_:to:)-(_,V)`` assignments to the matching rows; returns how many changed. An `@UpdatedAt`
    /// column is set to the current time too, unless assigned; a `@Version` column is left as it is.
    @discardableResult
    nonisolated(nonsending) public func update() async throws -> Int { try await writing { try $0.update() } }
}
