// Model+StagedInsert: insertAll's path for large batches on a connection that bulk-inserts with keys back
// (PostgreSQL: COPY into a staging table, then INSERT … SELECT … RETURNING).

extension Model {
    /// Inserts `models` through the connection's ``BulkLoadingConnection/bulkInsertReturning(table:columns:count:returning:row:)``
    /// when it offers one and the batch has at least its threshold of rows, in a savepoint (nothing kept on a
    /// failure), and sets the ids in input order. Returns false, having written nothing, when it did not apply.
    ///
    /// - Throws: what the connection throws, and ``StrataError/decodingFailed(model:column:value:expected:)``
    ///   for a key that does not read as `ID`.
    static func insertAllStaged(_ models: inout [Self], pk: Int, _ tx: Transaction) throws -> Bool {
        // COPY writes NULL as given: a model with a database default goes through INSERTs, which fill it.
        guard schema.databaseDefaults.isEmpty, let bulk = tx.connection as? any BulkLoadingConnection,
            models.count >= bulk.bulkInsertReturningThreshold
        else { return false }
        let snapshot = models
        let key = schema.columns[pk].name
        let encryption = tx.database.configuration.encryption
        let keys = try tx.atomic { inner -> [DatabaseValue]? in
            try inner.runBulk(into: schema.name, rows: snapshot.count) {
                try bulk.bulkInsertReturning(
                    table: schema.name, columns: schema.insertColumnNames, count: snapshot.count, returning: key
                ) { i in
                    schema.writtenValues(try snapshot[i].storedValues(encryption), includingKey: false)
                }
            }
        }
        guard let keys else { return false }
        var ids: [ID] = []
        ids.reserveCapacity(keys.count)
        for value in keys {
            guard let id = try? ID(databaseValue: value) else {
                throw StrataError.decodingFailed(
                    model: modelName, column: key, value: String(describing: value), expected: "\(ID.self)")
            }
            ids.append(id)
        }
        for i in models.indices {
            models[i].id = ids[i]
            models[i]._persistence.markStored()
        }
        return true
    }
}
