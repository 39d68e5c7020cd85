// MemoryConnection+Schema: introspection and schema changes of the memory store, each journaled for rollback.
import Strata

extension MemoryConnection: SchemaEditing {
    func introspect() throws -> DatabaseSchema {
        store.state.withLock { s in
            let tables = s.isHeld(against: id) ? (s.committedTables ?? s.committed()) : s.tables
            return DatabaseSchema(tables: tables.values.map(\.schemaView))
        }
    }

    func apply(_ change: SchemaChange, live: DatabaseSchema) throws {
        try journaled { s throws(StrataError) in try s.alter(change) }
    }

    /// A retyped column in one journaled rebuild, at its position (see ``SchemaEditing/replaceColumn``).
    func replaceColumn(
        _ column: String, with temporary: String, in table: String, type: ColumnType, nullable: Bool,
        default value: DatabaseValue?, live: DatabaseSchema
    ) throws -> Bool {
        try journaled { s throws(StrataError) in
            try s.replaceColumn(column, with: temporary, in: table, type: type, nullable: nullable, default: value)
        }
        return true
    }

    /// Runs `body` on the store, undoing what it journaled when it throws.
    private func journaled(_ body: (inout StoreState) throws(StrataError) -> Void) throws {
        try store.state.withLock { s throws(StrataError) in
            if s.isHeld(against: id) { throw .busy }
            s.schemaGeneration &+= 1
            let mark = s.journal.count
            do throws(StrataError) {
                try body(&s)
                if s.transaction == nil { s.settle(nil as TableName?) }
            } catch {
                s.undo(to: mark)
                if s.transaction == nil { s.journal.removeAll() }
                throw error
            }
        }
    }
}

extension MemoryTable {
    /// Whether two or more columns make the table's primary key.
    var hasCompositeKey: Bool { columns.lazy.filter(\.isPrimaryKey).count > 1 }

    /// Whether the table keeps its key in a unique index named `<table>_pkey`: a key of several columns, or of one
    /// that is not an integer.
    var holdsKeyIndex: Bool { hasCompositeKey || columns.contains { $0.isPrimaryKey && $0.type != .integer } }

    /// The table as a schema: columns with their declared type, nullability and default, named indexes, keys.
    var schemaView: TableSchema {
        TableSchema(
            name: name,
            columns: columns.map {
                let c = TableColumn(
                    name: $0.name, type: $0.type, isNullable: $0.isNullable, isPrimaryKey: $0.isPrimaryKey,
                    schemaDefault: $0.schemaDefault)
                return ($0.isGenerated ? c.generated(as: $0.generation) : c).defaulted($0.databaseDefault)
            },
            // A composite key's index, and a text or UUID key's, is the key itself, which the columns declare, not
            // an index of the schema's (SQLite's and PostgreSQL's introspection list none either).
            indexes: indexes.filter { !holdsKeyIndex || $0.name != Self.compositeKeyIndexName(name) }.map {
                Index(columns: $0.columnNames, unique: $0.isUnique, name: $0.name)
            },
            foreignKeys: foreignKeys.map(\.definition))
    }
}

extension StoreState {
    /// Applies one schema change the core has checked (see ``SchemaEditing/apply(_:live:)``).
    mutating func alter(_ change: SchemaChange) throws(StrataError) {
        switch change {
        case .createTable(let schema):
            try createTable(schema)
            for index in schema.indexes { try createIndex(index, on: schema.name) }
        case .dropTable(let name):
            try dropTable(name)
        case .renameTable(let name, let to):
            var schema = try table(name).schemaView
            schema.name = to
            try rebuild(name, as: schema) { $0 }
            for other in tables.keys.map(\.name).sorted() {
                var s = try table(other).schemaView
                guard s.foreignKeys.contains(where: { $0.referencedTable == name }) else { continue }
                s.foreignKeys = s.foreignKeys.map { k in
                    var k = k
                    if k.referencedTable == name { k.referencedTable = to }
                    return k
                }
                try rebuild(other, as: s) { $0 }
            }
        case .addColumn(let table, let column):
            try addColumn(column, to: table)
        case .dropColumn(let table, let column):
            var schema = try self.table(table).schemaView
            guard let p = schema.index(of: column) else { throw .unknownColumn(model: table, column: column) }
            schema.columns.remove(at: p)
            schema.indexes.removeAll { $0.columns.contains(column) }
            schema.foreignKeys.removeAll { $0.columns.contains(column) }
            try rebuild(table, as: schema) { row in
                var row = row
                row.remove(at: p)
                return row
            }
        case .renameColumn(let table, let column, let to):
            var schema = try self.table(table).schemaView
            guard let p = schema.index(of: column) else { throw .unknownColumn(model: table, column: column) }
            schema.columns[p].name = to
            schema.indexes = schema.indexes.map { i in
                var i = i
                i.columns = i.columns.map { $0 == column ? to : $0 }
                return i
            }
            schema.foreignKeys = schema.foreignKeys.map { k in
                var k = k
                k.columns = k.columns.map { $0 == column ? to : $0 }
                if k.referencedTable == table {
                    k.referencedColumns = k.referencedColumns.map { $0 == column ? to : $0 }
                }
                return k
            }
            try rebuild(table, as: schema) { $0 }
        case .alterColumn(let table, let column, _, let nullable, _):
            var schema = try self.table(table).schemaView
            guard let p = schema.index(of: column) else { throw .unknownColumn(model: table, column: column) }
            let rows = try self.table(table).slots
            if !nullable && rows.contains(where: { !$0.isEmpty && $0[p].isNull }) {
                throw .notNullViolation(table: table, column: column)
            }
            schema.columns[p].isNullable = nullable
            try rebuild(table, as: schema) { $0 }
        case .addIndex(let table, let index):
            try createIndex(index, on: table)
        case .dropIndex(let table, let name):
            var schema = try self.table(table).schemaView
            schema.indexes.removeAll { $0.name == name }
            try rebuild(table, as: schema) { $0 }
        case .addForeignKey(let table, let key):
            var schema = try self.table(table).schemaView
            schema.foreignKeys.append(key)
            try rebuild(table, as: schema) { $0 }
            try checkParents(of: self.table(table).slots.filter { !$0.isEmpty }, in: table)
        case .dropForeignKey(let table, let column):
            var schema = try self.table(table).schemaView
            schema.foreignKeys.removeAll { $0.column == column }
            try rebuild(table, as: schema) { $0 }
        case .setDefault(let table, let column, let value):
            var schema = try self.table(table).schemaView
            guard let p = schema.index(of: column) else { throw .unknownColumn(model: table, column: column) }
            if let value { _ = try schema.columns[p].storedValue(value, table: table) }
            schema.columns[p].schemaDefault = value
            try rebuild(table, as: schema) { $0 }
        case .setDatabaseDefault(let table, let column, let value):
            var schema = try self.table(table).schemaView
            guard let p = schema.index(of: column) else { throw .unknownColumn(model: table, column: column) }
            schema.columns[p].databaseDefault = value
            if value != nil { schema.columns[p].schemaDefault = nil }
            try rebuild(table, as: schema) { $0 }
        }
    }

    /// Puts `temporary`'s values in the place of `column`, with the new type, nullability and default, and
    /// drops `temporary`: the column keeps its position, indexes and foreign key.
    mutating func replaceColumn(
        _ column: String, with temporary: String, in table: String, type: ColumnType, nullable: Bool,
        default value: DatabaseValue?
    ) throws(StrataError) {
        var schema = try self.table(table).schemaView
        guard let p = schema.index(of: column) else { throw .unknownColumn(model: table, column: column) }
        guard let t = schema.index(of: temporary) else { throw .unknownColumn(model: table, column: temporary) }
        let slots = try self.table(table).slots
        if !nullable && slots.contains(where: { !$0.isEmpty && $0[t].isNull }) {
            throw .notNullViolation(table: table, column: column)
        }
        schema.columns[p].type = type
        schema.columns[p].isNullable = nullable
        schema.columns[p].schemaDefault = value
        schema.columns[p].backfill = value
        schema.columns.remove(at: t)
        try rebuild(table, as: schema) { row in
            var row = row
            row[p] = row[t]
            row.remove(at: t)
            return row
        }
        // A foreign key on the column holds for its new values, as SQLite's check of a rebuilt table has it.
        if schema.foreignKeys.contains(where: { $0.columns.contains(column) }) {
            try checkParents(of: self.table(table).slots.filter { !$0.isEmpty }, in: table)
        }
    }

    /// Replaces the table `name` by one of `schema` (which may name it differently) holding every row mapped by
    /// `map`, with the schema's indexes and the old id counter; journaled, so a rollback puts the old one back.
    mutating func rebuild(
        _ name: String, as schema: TableSchema, map: ([DatabaseValue]) -> [DatabaseValue]
    ) throws(StrataError) {
        let old = try table(name)
        var new = try MemoryTable(schema: schema)
        new.lastID = old.lastID
        for row in old.slots where !row.isEmpty { new.put(map(row), at: new.slots.count) }
        for index in schema.indexes {
            try new.addIndex(
                name: index.resolvedName(table: name), columns: index.columns, unique: index.isUnique)
        }
        journal.append(.table(name: name, previous: old))
        if schema.name != name {
            tables[name] = nil
            journal.append(.table(name: schema.name, previous: tables[schema.name]))
        }
        tables[schema.name] = new
    }
}
