// BulkLoadingConnection: the fast path a connection may offer for writing many rows at once (PostgreSQL: COPY).

/// A connection that writes many rows in one bulk operation, faster than multi-row INSERTs (PostgreSQL:
/// binary `COPY … FROM STDIN`). ``Model/load(_:_:)`` uses it when the connection offers it.
public protocol BulkLoadingConnection: DatabaseConnection {
    /// Writes `count` rows into `columns` of `table`; `row(i)` gives row `i`'s values in column order. No ids come
    /// back. The caller runs it in a savepoint, so a throw keeps nothing of the batch.
    ///
    /// - Parameters:
    ///   - table: the table's name (unquoted).
    ///   - columns: the columns written, in the order of each row's values.
    ///   - count: how many rows.
    ///   - row: row `i`'s values.
    /// - Returns: the number of rows written, or nil when this table cannot be loaded that way (a column of a type
    ///   the connection does not encode), and the caller inserts the rows instead.
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` naming the column and the row for a value
    ///   the column cannot take, what `row` throws, the usual constraint errors, and
    ///   ``StrataError/connectionLost(_:)``.
    func bulkLoad(table: String, columns: [String], count: Int, row: (Int) throws -> [DatabaseValue]) throws -> Int?

    /// Inserts `count` rows into `columns` of `table` in one bulk operation and returns each row's `returning`
    /// value (its key) in input order, or nil, with nothing written and the transaction as it was, when this
    /// table or a value cannot go that way (the caller inserts the rows instead). The caller runs it in a
    /// savepoint, so a throw keeps nothing of the batch. ``Model/insertAll(_:_:)`` calls it for batches of at
    /// least ``bulkInsertReturningThreshold`` rows. Default: nil.
    ///
    /// - Parameters:
    ///   - table: the table's name (unquoted).
    ///   - columns: the columns written, in the order of each row's values.
    ///   - count: how many rows.
    ///   - returning: the column whose value comes back for each row.
    ///   - row: row `i`'s values.
    /// - Returns: the `returning` values, one per row in input order, or nil.
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` naming the column and the row, what `row`
    ///   throws, the usual constraint errors, and ``StrataError/connectionLost(_:)``.
    func bulkInsertReturning(
        table: String, columns: [String], count: Int, returning: String, row: (Int) throws -> [DatabaseValue]
    ) throws -> [DatabaseValue]?

    /// The fewest rows for which ``bulkInsertReturning(table:columns:count:returning:row:)`` is worth it
    /// (faster than multi-row INSERTs). Default: `Int.max` (never).
    var bulkInsertReturningThreshold: Int { get }
}

extension BulkLoadingConnection {
    /// Never bulk-inserts with keys back: nil.
    ///
    /// - Parameters:
    ///   - table: unused.
    ///   - columns: unused.
    ///   - count: unused.
    ///   - returning: unused.
    ///   - row: unused.
    /// - Returns: nil.
    public func bulkInsertReturning(
        table: String, columns: [String], count: Int, returning: String, row: (Int) throws -> [DatabaseValue]
    ) throws -> [DatabaseValue]? { nil }

    /// `Int.max`: never.
    public var bulkInsertReturningThreshold: Int { .max }
}
