// StoreState+ForeignKeys: foreign keys enforced at the end of each statement, with ON DELETE actions.
import Strata

extension StoreState {
    /// A foreign key that references a given table: the referencing table and its key.
    struct Reference {
        let table: String
        let key: MemoryForeignKey
    }

    /// Every foreign key, in any table, that references `table`.
    func references(to table: String) -> [Reference] {
        var out: [Reference] = []
        // By index, reading each table in place: copying the table structs out would retain their storage.
        for i in tables.indices where !tables.values[i].foreignKeys.isEmpty {
            for key in tables.values[i].foreignKeys where key.definition.referencedTable == table {
                out.append(Reference(table: tables.keys[i].name, key: key))
            }
        }
        return out
    }

    /// Checks that every non-NULL foreign key value of `rows` (new or changed rows of `table`) names an
    /// existing row of the referenced table, as SQLite and PostgreSQL do at the end of the statement.
    ///
    /// - Throws: ``StrataError/foreignKeyViolation(table:)`` naming `table`, or
    ///   ``StrataError/noSuchTable(_:)`` when the referenced table does not exist.
    mutating func checkParents(of rows: [[DatabaseValue]], in table: String) throws(StrataError) {
        if rows.isEmpty { return }
        // The tables are read in place (`&`): a copy out of the dictionary retains every field of the table.
        guard let c = tables.index(forKey: table) else { return }
        let keys = Self.foreignKeys(of: &tables.values[c])
        for key in keys {
            guard let p = tables.index(forKey: key.definition.referencedTable) else {
                throw .noSuchTable(key.definition.referencedTable)
            }
            try Self.checkParents(of: rows, in: table, key: key, parent: &tables.values[p])
        }
    }

    @inline(__always)
    private static func foreignKeys(of table: inout MemoryTable) -> [MemoryForeignKey] { table.foreignKeys }

    /// ``checkParents(of:in:)`` for one foreign key of `table`, whose referenced table is `parent`.
    private static func checkParents(
        of rows: [[DatabaseValue]], in table: String, key: MemoryForeignKey, parent: inout MemoryTable
    ) throws(StrataError) {
        if key.columns.count > 1 {
            // MATCH SIMPLE, as SQL's: a row with any referencing column NULL references nothing.
            var referenced: [Int] = []
            for c in key.definition.referencedColumns { referenced.append(try parent.position(of: c)) }
            for row in rows {
                let values = key.columns.map { row[$0] }
                if values.contains(where: \.isNull) { continue }
                if !parent.contains(values, in: referenced) { throw .foreignKeyViolation(table: table) }
            }
            return
        }
        let referenced = try parent.position(of: key.definition.referencedColumn)
        for row in rows {
            let value = row[key.column]
            if value.isNull { continue }
            if !parent.contains(value, in: referenced) { throw .foreignKeyViolation(table: table) }
        }
    }

    /// Applies the foreign keys that reference rows of `table` which `removed` (deleted or
    /// changed rows, as they were) no longer provide: ON DELETE CASCADE deletes the referencing rows,
    /// SET NULL clears their column, NO ACTION and RESTRICT refuse. A changed key is always NO ACTION
    /// (Strata declares no ON UPDATE action, and that is SQL's default).
    mutating func applyReferences(to table: String, removed: [[DatabaseValue]], deleted: Bool) throws(StrataError) {
        if removed.isEmpty { return }
        for reference in references(to: table) {
            guard let parent = tables[table] else { return }
            var referenced: [Int] = []
            for c in reference.key.definition.referencedColumns { referenced.append(try parent.position(of: c)) }
            // Keys of one column or several (a composite key's), compared as a unique index compares them.
            var gone: Set<IndexKey> = []
            for row in removed {
                guard let key = IndexKey(row: row, columns: referenced),
                    !parent.contains(referenced.map { row[$0] }, in: referenced)
                else { continue }
                gone.insert(key)
            }
            if gone.isEmpty { continue }
            guard let child = tables[reference.table] else { continue }
            let columns = reference.key.columns
            var orphans: [Int] = []
            for (slot, row) in child.slots.enumerated() where !row.isEmpty {
                guard let key = IndexKey(row: row, columns: columns), gone.contains(key) else { continue }
                orphans.append(slot)
            }
            if orphans.isEmpty { continue }
            switch deleted ? reference.key.definition.onDelete : .noAction {
            case .noAction, .restrict:
                throw .foreignKeyViolation(table: reference.table)
            case .cascade:
                let rows = try removeRows(orphans, from: reference.table)
                try applyReferences(to: reference.table, removed: rows, deleted: true)
            case .setNull:
                if let column = columns.first(where: { !child.columns[$0].isNullable }) {
                    throw .notNullViolation(table: reference.table, column: child.columns[column].name)
                }
                let changed = try setNull(columns, in: orphans, of: reference.table)
                try applyReferences(to: reference.table, removed: changed, deleted: false)
            }
        }
    }

    /// Deletes the rows in `slots` of `table`, journaled; returns them as they were.
    mutating func removeRows(_ slots: [Int], from table: String) throws(StrataError) -> [[DatabaseValue]] {
        try changing(table) { t, journal throws(StrataError) in
            var removed: [[DatabaseValue]] = []
            for slot in slots {
                guard let old = t.row(at: slot) else { continue }
                journal.append(.slot(table: t.name, slot: slot, previous: old))
                t.put(nil, at: slot)
                removed.append(old)
            }
            return removed
        }
    }

    /// Sets `columns` to NULL in the rows in `slots` of `table`, journaled; returns the rows as they were.
    private mutating func setNull(_ columns: [Int], in slots: [Int], of table: String) throws(StrataError)
        -> [[DatabaseValue]]
    {
        try changing(table) { t, journal throws(StrataError) in
            var changed: [[DatabaseValue]] = []
            for slot in slots {
                guard let old = t.row(at: slot) else { continue }
                var row = old
                for column in columns { row[column] = .null }
                journal.append(.slot(table: t.name, slot: slot, previous: old))
                t.put(row, at: slot)
                changed.append(old)
            }
            return changed
        }
    }
}
