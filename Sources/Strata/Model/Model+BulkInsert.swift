// Model+BulkInsert: inserts many new models with multi-row INSERTs, chunked under the bind limit.

extension Model {
    /// Inserts new models (their ids must be nil) with as few statements as the backend's bind limit
    /// allows, and sets their ids. Each model is validated first; nothing is written if one fails.
    ///
    /// ```swift
    /// try await db.transaction { tx in try Record.insertAll(&records, tx) }
    /// ```
    ///
    /// Ids are what the database assigned, handed back by the driver in row order for each INSERT
    /// (`INSERT … RETURNING id` on PostgreSQL and the memory driver, whose rows follow the VALUES order;
    /// on SQLite `last_insert_rowid()` read under the write lock, or row by row where SQLite might not
    /// assign consecutive keys, see the SQLite driver). Never a guess from `max(id)`: another writer can
    /// insert between two statements, on an autocommit handle too. On PostgreSQL a batch of 1,500 rows or
    /// more goes through binary `COPY` into a temporary staging table and one `INSERT … SELECT … ORDER BY`
    /// the input's order `RETURNING id`, in a savepoint: ids in input order, nothing kept on a failure.
    ///
    /// All or nothing: when it throws, no row was inserted and every model is as it was (ids included); batches
    /// of several statements run in a savepoint. Inside a transaction that later rolls back, the models are new
    /// again at their next save, `insertAll` or upsert (see ``save(_:insertIfMissing:)``).
    ///
    /// - Throws: ``StrataError/validationFailed(_:)``, ``StrataError/invalidQuery(_:)`` for a model that
    ///   already has an id, ``StrataError/insertIgnored(table:)`` when the table's own conflict clause or a
    ///   trigger skipped a row, and the usual constraint errors.
    public static func insertAll(_ models: inout [Self], _ tx: Transaction) throws {
        guard !models.isEmpty else { return }
        try checkKeyring(tx)
        var validations = Validations<Self>()
        Self.validations(&validations)
        if !validations.rules.isEmpty { for m in models { try validations.run(m, tx) } }
        // A composite key (see ``CompositeKey``) is the models' own, as a `String` key is: its first column names it.
        guard let pk = schema.primaryKeyIndex ?? schema.primaryKeyIndexes.first else {
            throw StrataError.invalidQuery("\(modelName) has no primary key")
        }
        var copy = models
        // A model whose insert a rollback undid is new again (as before a save).
        for i in copy.indices where copy[i]._persistence != nil { copy[i].forgetUndoneInsert() }
        let keyWasNil = idsAreNil(copy)
        if ID.isAssignedByDatabase, keyWasNil.contains(false) {
            throw StrataError.invalidQuery("insertAll takes new models only; save models that have an id")
        }
        let width = schema.writtenColumnNames(includingKey: !ID.isAssignedByDatabase).count
        let readsBack = !schema.storage.readBackColumns.isEmpty
        if readsBack || models.count > Swift.max(1, tx.connection.maxBindParameters / Swift.max(1, width)) {
            // Several statements, or the rows and the read-back of what the database computed for them: all or
            // nothing (a read-back that fails undoes the rows).
            try tx.atomic { tx in
                try insertAllRows(&copy, pk: pk, tx)
                if readsBack { for i in copy.indices { try copy[i].readBackComputedColumns(tx) } }
            }
        } else {
            try insertAllRows(&copy, pk: pk, tx)
        }
        if let scope = tx.undoScope {
            for i in copy.indices { copy[i]._persistence.recordInsert(scope, assignedKey: keyWasNil[i]) }
        }
        models = copy
    }

    /// Whether each model's id is nil, read in one closure call rather than one per model: unspecialized, each call
    /// looks up the metadata of `Optional<ID>` at run time (about 325 instructions). For `insertAll` and `upsertAll`.
    static func idsAreNil(_ models: [Self]) -> [Bool] {
        models.withUnsafeBufferPointer { models in
            var wasNil: [Bool] = []
            wasNil.reserveCapacity(models.count)
            for i in models.indices { wasNil.append(models[i].id == nil) }
            return wasNil
        }
    }

    /// The keys among `values` (a statement's returned keys, collected as values by its row callback) that read as
    /// `ID`, in order; a value that does not, which no driver returns, is left out. Read in one loop after the
    /// statement: an `[ID]` appended to in a row callback looked up its metadata at run time on every row.
    static func keys(from values: [DatabaseValue]) -> [ID] {
        var ids: [ID] = []
        ids.reserveCapacity(values.count)
        for v in values {
            if let id = try? ID(databaseValue: v) { ids.append(id) }
        }
        return ids
    }

    /// Inserts validated models, in as many statements as the bind limit needs; the caller keeps it all or nothing.
    static func insertAllRows(_ models: inout [Self], pk: Int, _ tx: Transaction) throws {
        if !ID.isAssignedByDatabase {
            try insertAllWithKeys(&models, pk: pk, tx)
            return
        }
        if try insertAllStaged(&models, pk: pk, tx) { return }
        let width = schema.insertColumnNames.count
        let perStatement = Swift.max(1, tx.connection.maxBindParameters / Swift.max(1, width))
        var start = 0
        while start < models.count {
            let end = Swift.min(start + perStatement, models.count)
            var rows: [[DatabaseValue]] = []
            rows.reserveCapacity(end - start)
            // The models through their buffer, in one call, and the returned keys collected as values and read as
            // `ID` after the statement: a generic array or optional touched per model (`models[i]`, or an `[ID]`
            // appended to in a closure called per row) looked up its metadata at run time each time.
            try models.withUnsafeBufferPointer { models throws(StrataError) in
                for i in start..<end {
                    rows.append(schema.writtenValues(try models[i].storedValues(tx), includingKey: false))
                }
            }
            var returned: [DatabaseValue] = []
            returned.reserveCapacity(end - start)
            let insert = Statement.insert(
                Insert(
                    table: schema.name, columns: schema.insertColumnNames, rows: rows,
                    returning: schema.columns[pk].name, defaults: schema.databaseDefaults))
            // Only full chunks are templated, so the cache holds one shape per model, whatever the batch sizes.
            if end - start == perStatement {
                _ = try tx.execute(
                    template: StatementTemplate(Self.self, .insertRowsReturningKey(perStatement), table: schema.name),
                    binds: rows.flatMap { $0 }, statement: { insert }, onRow: { r in returned.append(r.value(at: 0)) })
            } else {
                _ = try tx.execute(insert) { r in returned.append(r.value(at: 0)) }
            }
            let ids = keys(from: returned)
            guard ids.count == end - start else { throw StrataError.insertIgnored(table: schema.name) }
            models.withUnsafeMutableBufferPointer { models in
                for (offset, i) in (start..<end).enumerated() {
                    models[i].id = ids[offset]
                    models[i]._persistence.markStored()
                }
            }
            start = end
        }
    }

    /// `insertAll` for keys the database does not assign: a nil `UUID` id is generated, a `String` id must be set
    /// (``StrataError/invalidValue(table:column:reason:)`` before anything is written); the models keep their
    /// ids as they were when an insert fails.
    static func insertAllWithKeys(_ models: inout [Self], pk: Int, _ tx: Transaction) throws {
        var keyed = models
        for i in keyed.indices where keyed[i].id == nil {
            guard let key = ID.generated() else {
                throw StrataError.invalidValue(
                    table: schema.name, column: schema.columns[pk].name,
                    reason: "\(modelName)'s \(ID.self) key is nil: set it before insertAll")
            }
            keyed[i].id = key
        }
        let columns = schema.writtenColumnNames(includingKey: true)
        let width = columns.count
        let perStatement = Swift.max(1, tx.connection.maxBindParameters / Swift.max(1, width))
        var start = 0
        while start < keyed.count {
            let end = Swift.min(start + perStatement, keyed.count)
            let rows = try keyed[start..<end].map { schema.writtenValues(try $0.storedValues(tx), includingKey: true) }
            let inserted = try tx.execute(
                .insert(Insert(table: schema.name, columns: columns, rows: rows, defaults: schema.databaseDefaults)))
            guard inserted == rows.count else { throw StrataError.insertIgnored(table: schema.name) }
            start = end
        }
        for i in keyed.indices { keyed[i]._persistence.markStored() }
        models = keyed
    }

    /// Inserts new models in one transaction (see ``insertAll(_:_:)``).
    nonisolated(nonsending)
        public static func insertAll(_ models: inout [Self], on db: Database) async throws
    {
        var copy = models
        try await db.transaction { tx in try insertAll(&copy, tx) }
        models = copy
    }
}
