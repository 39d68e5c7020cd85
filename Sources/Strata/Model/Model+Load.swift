// Model+Load: writes many new models as fast as the backend can (PostgreSQL: binary COPY), without reading ids back.

extension Model {
    /// Writes new models in bulk without reading their ids back: the fastest way to load many rows.
    ///
    /// ```swift
    /// try await Reading.load(readings, on: db)      // PostgreSQL: COPY "reading" (…) FROM STDIN (FORMAT binary)
    /// ```
    ///
    /// On PostgreSQL the rows go through one binary `COPY … FROM STDIN`; on other backends (and on a PostgreSQL
    /// table with a column of a type the driver does not encode in COPY's binary format, such as an enum or a
    /// domain) through the multi-row INSERTs of ``insertAll(_:_:)`` without `RETURNING`. The values stored are the
    /// same either way. Each model is validated first; the whole batch runs in a savepoint (a transaction when
    /// `tx` has none), so a failure keeps none of it and leaves an enclosing transaction usable. The models'
    /// ids are not set (a nil `UUID` key is generated, as by ``insertAll(_:_:)``); use ``insertAll(_:_:)``
    /// when you need them.
    ///
    /// A value must be of the kind its column declares: a bigint column takes an integer, not a double that
    /// an INSERT would round.
    ///
    /// - Parameters:
    ///   - models: new models (database-assigned ids must be nil).
    ///   - tx: where to write.
    /// - Throws: ``StrataError/validationFailed(_:)``, ``StrataError/invalidQuery(_:)`` for a model that
    ///   already has a database-assigned id, ``StrataError/invalidValue(table:column:reason:)`` naming the
    ///   column and the row (counted from 0) of a value its column cannot take, and the usual constraint errors.
    public static func load(_ models: [Self], _ tx: Transaction) throws {
        guard !models.isEmpty else { return }
        try checkKeyring(tx)
        let encryption = tx.database.configuration.encryption
        var validations = Validations<Self>()
        Self.validations(&validations)
        if !validations.rules.isEmpty { for m in models { try validations.run(m, tx) } }
        // A composite key (see ``CompositeKey``) is the models' own, as a `String` key is: its first column names it.
        guard let pk = schema.primaryKeyIndex ?? schema.primaryKeyIndexes.first else {
            throw StrataError.invalidQuery("\(modelName) has no primary key")
        }
        var keyed = models
        // A database-assigned id must be nil: checked as each row is written (one pass over the batch, not two);
        // a throw there ends the batch, which keeps nothing.
        if !ID.isAssignedByDatabase {
            for i in keyed.indices where keyed[i].id == nil {
                guard let key = ID.generated() else {
                    throw StrataError.invalidValue(
                        table: schema.name, column: schema.columns[pk].name,
                        reason: "\(modelName)'s \(ID.self) key is nil: set it before load")
                }
                keyed[i].id = key
            }
        }
        let dropKey = ID.isAssignedByDatabase
        let ready = keyed
        let columns = schema.writtenColumnNames(includingKey: !dropKey)
        // The type of each written column where Strata knows the table (a migration may have changed one under the
        // model): a value of another type is refused alike on every backend, before any row is written.
        let known = try tx.database.knownSchemas.columns(of: schema.name).map { known in
            try columns.map { name in
                // A column the table lacks is named first, as a bulk load's COPY names it before any row.
                guard let c = known.first(where: { $0.name == name }) else {
                    throw StrataError.unknownColumn(model: schema.name, column: name)
                }
                return c.type
            }
        }
        // Each row read through the array's buffer, taken once: `ready[i]` on a generic array looked up the array's
        // metadata at run time for every row (about 325 instructions).
        try ready.withUnsafeBufferPointer { ready in
            func row(_ i: Int) throws -> [DatabaseValue] {
                let values = try ready[i].storedValues(encryption)
                if dropKey {
                    // The key's value, not `id == nil`: comparing a generic Optional costs a metadata lookup per row.
                    guard case .null = values[pk] else {
                        throw StrataError.invalidQuery("load takes new models only; save models that have an id")
                    }
                }
                let written = schema.writtenValues(values, includingKey: !dropKey)
                if let known {
                    for (k, type) in known.enumerated() {
                        guard k < written.count, !StatementCheck.takes(type, written[k]) else { continue }
                        throw StrataError.invalidValue(
                            table: schema.name, column: columns[k],
                            reason: "row \(i): \(written[k].kindName) does not fit a \(type.rawValue) column")
                    }
                }
                return written
            }
            try tx.atomic { inner in
                // COPY writes NULL as given: a model with a database default goes through INSERTs, which fill it.
                if schema.databaseDefaults.isEmpty, let loader = inner.connection as? any BulkLoadingConnection {
                    let loaded = try inner.runBulk(into: schema.name, rows: ready.count) {
                        try loader.bulkLoad(table: schema.name, columns: columns, count: ready.count, row: row)
                    }
                    if loaded != nil { return }
                }
                let perStatement = Swift.max(1, inner.connection.maxBindParameters / Swift.max(1, columns.count))
                var start = 0
                while start < ready.count {
                    let end = Swift.min(start + perStatement, ready.count)
                    _ = try inner.execute(
                        .insert(
                            Insert(
                                table: schema.name, columns: columns, rows: try (start..<end).map(row),
                                defaults: schema.databaseDefaults)))
                    start = end
                }
            }
        }
    }

    /// Writes new models in bulk in one transaction, without reading their ids back (see ``load(_:_:)``).
    ///
    /// - Parameters:
    ///   - models: new models (database-assigned ids must be nil).
    ///   - db: where to write (its primary).
    /// - Throws: the errors of ``load(_:_:)``; nothing is written when one is thrown.
    nonisolated(nonsending)
        public static func load(_ models: [Self], on db: Database) async throws
    {
        try await db.withConnection { tx in try load(models, tx) }
    }
}
