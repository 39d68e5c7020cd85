// StatementCheck+Writes: the shape of an INSERT, its upsert clause and a table's DDL, refused once before any driver.

extension StatementCheck {
    /// An INSERT: at least one row; without columns, exactly one empty row (`DEFAULT VALUES`); with columns, one
    /// value per column in every row, the first row that differs named; an upsert clause with a target and, when it
    /// updates, at least one column to set.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the fault (and the table, for the upsert clause).
    static func check(_ i: Insert) throws(StrataError) {
        guard !i.rows.isEmpty else { throw .invalidQuery("INSERT without rows") }
        if i.columns.isEmpty {
            guard i.rows.count == 1 else { throw .invalidQuery("multi-row INSERT without columns") }
            guard i.rows[0].isEmpty else {
                throw .invalidQuery("INSERT row has \(i.rows[0].count) values for 0 columns")
            }
        } else if let row = i.rows.first(where: { $0.count != i.columns.count }) {
            throw .invalidQuery("INSERT row has \(row.count) values for \(i.columns.count) columns")
        }
        guard let c = i.onConflict else { return }
        guard !c.target.isEmpty else { throw .invalidQuery("ON CONFLICT without target columns on \(i.table)") }
        if case .update(let set, let increment) = c.action, set.isEmpty && increment.isEmpty {
            throw .invalidQuery("ON CONFLICT DO UPDATE on \(i.table) sets no column")
        }
    }

    /// A CREATE TABLE: each column named once, at most one primary key, each an integer, a UUID or text. Its
    /// indexes are statements of their own (`createIndex`), checked when they run.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the column or the table.
    static func check(_ t: TableSchema) throws(StrataError) {
        // Column by column, in order (a column's name, then its key type), each name against those before it, read in
        // place: a model's dozen columns are checked in fewer instructions than a set of their names is made in
        // (hashing each, allocating the set; a fresh test database checks every table it creates). Past 32 columns,
        // a set: the pairs grow as the square of the count.
        let columns = t.columns
        let wide = columns.count > 32
        var seen: Set<String> = []
        for i in columns.indices {
            let isDuplicate =
                wide
                ? !seen.insert(columns[i].name).inserted : (0..<i).contains { columns[$0].name == columns[i].name }
            if isDuplicate { throw .invalidQuery("duplicate column name: \(columns[i].name)") }
            try checkKey(columns[i])
        }
        // Two or more key columns are one composite key (see ``CompositeKey``); none of them is nullable.
        for k in t.primaryKeyIndexes where t.hasCompositeKey && t.columns[k].isGenerated {
            throw .invalidValue(
                table: t.name, column: t.columns[k].name, reason: "a generated column cannot be part of the primary key"
            )
        }
    }

    /// A CREATE INDEX names at least one column.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the index.
    static func check(_ index: Index, table: String) throws(StrataError) {
        if let problem = index.problem { throw problem }
        if let e = index.expression {
            guard case .jsonPath = e.node, index.columns.isEmpty else {
                throw .invalidQuery("index \(index.resolvedName(table: table)) holds a JSON path and nothing else")
            }
            // The memory driver keeps no index on values it computes: a unique one would not be enforced alike.
            if index.isUnique {
                throw .invalidQuery("index \(index.resolvedName(table: table)): a unique index on a JSON path")
            }
            try check(e.node)
            return
        }
        guard !index.columns.isEmpty else {
            throw .invalidQuery("index \(index.resolvedName(table: table)) has no columns")
        }
    }

    /// A primary key is an integer (generated), a UUID or text (assigned by Strata or the app).
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the column.
    static func checkKey(_ c: borrowing TableColumn) throws(StrataError) {
        guard c.isPrimaryKey, ![.integer, .uuid, .text].contains(c.type) else { return }
        throw .invalidQuery("primary key \(c.name) must be an integer, a UUID or text")
    }
}
