// StoreState+Schema: CREATE TABLE / ADD COLUMN / CREATE INDEX / DROP TABLE, each journaled as a table snapshot.
import Strata

extension StoreState {
    /// Creates the table unless it exists (CREATE TABLE IF NOT EXISTS). Indexes in the schema are
    /// left to `createIndex`, as the SQL renderer does.
    mutating func createTable(_ schema: TableSchema) throws(StrataError) {
        try Self.checkIdentifier(schema.name)
        if tables.index(forKey: schema.name) != nil { return }
        // Each column read in place (a copy of each out of the array cost about 260 instructions).
        for i in schema.columns.indices {
            try Self.checkIdentifier(schema.columns[i].name)
            if let d = schema.columns[i].schemaDefault, !schema.columns[i].isPrimaryKey {
                _ = try schema.columns[i].storedValue(d, table: schema.name)
            }
        }
        let table = try MemoryTable(schema: schema)
        if tables.isEmpty { tables.reserveCapacity(16) }
        journal.append(.table(name: schema.name, previous: nil))
        tables[schema.name] = table
    }

    /// Adds a column, filling existing rows with its backfill value (or NULL). The backfill also
    /// becomes the column's default for later inserts, as the rendered `ADD COLUMN … DEFAULT` does.
    ///
    /// - Throws: ``StrataError/notNullViolation(table:column:)`` for a NOT NULL column without a
    ///   backfill on a table that has rows.
    mutating func addColumn(_ column: TableColumn, to name: String) throws(StrataError) {
        let table = try table(name)
        try Self.checkIdentifier(column.name)
        if table.positions[column.name] != nil {
            throw .database(code: 1, message: "duplicate column name: \(column.name)")
        }
        var added = column
        if let backfill = column.backfill { added.schemaDefault = backfill }
        added.schemaDefault = MemoryTable.storedDefault(added.schemaDefault)
        var fill = DatabaseValue.null
        if let d = column.databaseDefault {
            // The rows there take the default too, as `ADD COLUMN … DEFAULT statement_timestamp()` fills them.
            switch d {
            case .now: fill = .date(Self.statementTime())
            }
        } else if let backfill = column.backfill, !backfill.isNull {
            fill = try added.storedValue(backfill, table: name)
        } else if !column.isNullable && table.liveCount > 0 && !column.isGenerated {
            throw .notNullViolation(table: name, column: column.name)
        }
        journal.append(.table(name: name, previous: table))
        var changed = table
        changed.addColumn(added, fill: fill)
        if column.isGenerated { try changed.computeGenerated() }
        tables[name] = changed
    }

    /// Creates an index unless one of that name exists (CREATE INDEX IF NOT EXISTS).
    ///
    /// - Throws: ``StrataError/uniqueViolation(table:columns:)`` when a unique index meets duplicate
    ///   rows; nothing is created then.
    mutating func createIndex(_ index: Index, on name: String) throws(StrataError) {
        let indexName = index.resolvedName(table: name)
        try Self.checkIdentifier(indexName)
        var table = try table(name)
        // An index on a JSON path changes no answer (the core refuses a unique one): it keeps the path's values in
        // order for the queries that compare the same path, and one on any other expression is not kept.
        if let e = index.expression {
            guard case .jsonPath(.column(let column), let path) = e.node else { return }
            let before = table
            try table.addPathIndex(name: indexName, column: column, path: path)
            guard table.pathIndexes.count != before.pathIndexes.count else { return }
            journal.append(.table(name: name, previous: before))
            tables[name] = table
            return
        }
        if tables.values.contains(where: { $0.hasIndex(named: indexName) }) { return }
        let before = table
        try table.addIndex(name: indexName, columns: index.columns, unique: index.isUnique)
        journal.append(.table(name: name, previous: before))
        tables[name] = table
    }

    /// Drops the table if it exists (DROP TABLE IF EXISTS), with its indexes and rows.
    ///
    /// A table that another table's foreign key references is refused, as PostgreSQL refuses it (SQLite would
    /// delete its rows first, cascading into the other table's; its driver refuses it too). A table whose rows
    /// reference each other drops with them.
    ///
    /// - Throws: ``StrataError/tableReferenced(_:by:)``.
    mutating func dropTable(_ name: String) throws(StrataError) {
        guard let table = tables[name] else { return }
        if let other = references(to: name).first(where: { $0.table != name }) {
            throw StrataError.tableReferenced(name, by: other.table)
        }
        tables[name] = nil
        journal.append(.table(name: name, previous: table))
    }

    /// Rejects the identifiers SQL could not quote: empty, or containing NUL.
    private static func checkIdentifier(_ name: String) throws(StrataError) {
        if name.isEmpty { throw .invalidIdentifier(name, reason: "empty") }
        // NUL is the byte 0 in UTF-8 and no other scalar's bytes contain it: the bytes are read in place (the
        // views' `contains` stepped an iterator, 170-270 instructions a name).
        var bytes = name
        if bytes.withUTF8({ $0.contains(0) }) { throw .invalidIdentifier(name, reason: "contains NUL") }
    }
}
