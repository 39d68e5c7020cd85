// Transaction+Schema: introspection of the live schema and schema changes checked before they run.

extension Transaction {
    /// The driver's schema editor.
    ///
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` for a connection that cannot edit schemas.
    func schemaEditor() throws -> any SchemaEditing {
        try checkOpen()
        guard let editor = connection as? any SchemaEditing else {
            throw StrataError.unsupported(feature: "schema introspection and changes", driver: driverName)
        }
        return editor
    }

    /// The live schema: every table with its columns, primary key, indexes and foreign keys.
    ///
    /// ```swift
    /// let schema = try await db.withConnection { tx in try tx.introspect() }
    /// print(schema[table: "user"]?.columns.map(\.name) ?? [])
    /// ```
    public func introspect() throws -> DatabaseSchema {
        try schemaEditor().introspect()
    }

    /// Applies one schema change after checking it against the live schema. Run it inside a transaction (a
    /// migration step is one) so that a failure leaves nothing changed. On SQLite, the changes that rebuild a
    /// table (drop a column, change a type or nullability, add or drop a foreign key) need a migration step,
    /// which turns foreign keys off around its transaction; elsewhere they throw `unsupported`.
    ///
    /// - Throws: ``StrataError/noSuchTable(_:)``, ``StrataError/unknownColumn(model:column:)`` (naming the
    ///   table) for a column that does not exist, ``StrataError/invalidQuery(_:)`` for a name already taken or a
    ///   table or column other tables still reference, ``StrataError/typeMismatch(table:column:detail:)`` for
    ///   a value that does not convert, ``StrataError/notNullViolation(table:column:)`` for NULLs without a
    ///   fill, ``StrataError/missingReferencedTable(table:column:references:)``, and the database's own
    ///   constraint errors (a unique index over duplicates, a foreign key over orphans). A default that is not
    ///   of the column's type is `typeMismatch`; a blob or non-finite default is `invalidValue`.
    public func apply(_ change: SchemaChange) throws {
        database.textStoredColumns.forget()
        defer { database.textStoredColumns.forget() }
        do {
            try applyChecked(change)
        } catch {
            // A change that failed part way may have left its tables changed: what was known of them is forgotten
            // (and put back if the transaction rolls back).
            followSchema(.dropTable(change.table))
            if case .renameTable(_, let name) = change { followSchema(.dropTable(name)) }
            throw error
        }
        // The tables Strata knows follow the change (and are put back if the transaction rolls back).
        followSchema(change)
    }

    /// ``apply(_:)``'s checks and the change.
    private func applyChecked(_ change: SchemaChange) throws {
        let editor = try schemaEditor()
        let live = try editor.introspect()
        func table(_ name: String) throws -> TableSchema {
            guard let t = live[table: name] else { throw StrataError.noSuchTable(name) }
            return t
        }
        func column(_ name: String, of t: TableSchema) throws -> TableColumn {
            guard let c = t.column(named: name) else { throw StrataError.unknownColumn(model: t.name, column: name) }
            return c
        }
        func free(_ name: String, in t: TableSchema) throws {
            try Self.checkIdentifiers([
                TableSchema(name: t.name, columns: [TableColumn(name: name, type: .text, isNullable: true)])
            ])
            if t.columns.contains(where: { $0.name.lowercased() == name.lowercased() }) {
                throw StrataError.invalidQuery("table \(t.name) already has a column \(name)")
            }
        }
        switch change {
        case .createTable(let schema):
            try Self.checkIdentifiers([schema])
            if live[table: schema.name] != nil { throw StrataError.invalidQuery("table \(schema.name) already exists") }
            for fk in schema.foreignKeys
            where fk.referencedTable != schema.name && live[table: fk.referencedTable] == nil {
                throw StrataError.missingReferencedTable(
                    table: schema.name, column: fk.column, references: fk.referencedTable)
            }
            for fk in schema.foreignKeys {
                guard let parent = fk.referencedTable == schema.name ? schema : live[table: fk.referencedTable] else {
                    continue
                }
                try Self.checkKeyTypes(fk, of: schema.name, columns: schema.columns, parent: parent, editor: editor)
            }
            // The statements the editor will run, refused as `execute` would refuse them (see `StatementCheck`).
            try StatementCheck.check(.createTable(schema))
            for index in schema.indexes { try StatementCheck.check(.createIndex(table: schema.name, index)) }
            try editor.apply(change, live: live)
        case .dropTable(let name):
            _ = try table(name)
            if let other = live.references(to: name).first(where: { $0.table != name }) {
                throw StrataError.invalidQuery(
                    "cannot drop table \(name): \(other.table).\(other.key.column) references it (drop that foreign key first)"
                )
            }
            try editor.apply(change, live: live)
        case .renameTable(let name, let to):
            _ = try table(name)
            try Self.checkIdentifiers([TableSchema(name: to, columns: [])])
            if live.tableNames.contains(where: { $0.lowercased() == to.lowercased() }) {
                throw StrataError.invalidQuery("cannot rename table \(name): a table \(to) exists")
            }
            try editor.apply(change, live: live)
        case .addColumn(let name, let c):
            let t = try table(name)
            try free(c.name, in: t)
            if c.isPrimaryKey { throw StrataError.invalidQuery("cannot add a primary key column to \(name)") }
            try TableSchema(name: name, columns: [c]).checkDatabaseDefaults(model: name)
            if try !c.isNullable && c.backfill == nil && !c.isGenerated && c.databaseDefault == nil && count(name) > 0 {
                throw StrataError.notNullViolation(table: name, column: c.name)
            }
            try addColumn(c, to: name, editor: editor, live: live)
        case .dropColumn(let name, let c):
            let t = try table(name)
            let dropped = try column(c, of: t)
            if dropped.isPrimaryKey { throw StrataError.invalidQuery("cannot drop the primary key \(name).\(c)") }
            if let other = live.references(to: name).first(where: { $0.key.referencedColumns.contains(c) }) {
                throw StrataError.invalidQuery(
                    "cannot drop \(name).\(c): \(other.table).\(other.key.column) references it")
            }
            for index in t.indexes where index.columns.contains(c) {
                try apply(.dropIndex(table: name, name: index.resolvedName(table: name)))
            }
            for key in t.foreignKeys where key.columns.contains(c) {
                try apply(.dropForeignKey(table: name, column: key.column))
            }
            try editor.apply(change, live: try editor.introspect())
        case .renameColumn(let name, let c, let to):
            let t = try table(name)
            _ = try column(c, of: t)
            try free(to, in: t)
            try editor.apply(change, live: live)
        case .alterColumn(let name, let c, let type, let nullable, let fill):
            try alterColumn(
                try table(name), try column(c, of: try table(name)), type: type, nullable: nullable, fill: fill,
                editor: editor, live: live)
        case .addIndex(let name, let index):
            let t = try table(name)
            for c in index.columns { _ = try column(c, of: t) }
            if index.columns.isEmpty { throw StrataError.invalidQuery("index on \(name) has no columns") }
            let indexName = index.resolvedName(table: name)
            try Self.checkIdentifiers([TableSchema(name: indexName, columns: [])])
            if live.tables.contains(where: { t in t.indexes.contains { $0.resolvedName(table: t.name) == indexName } })
            {
                throw StrataError.invalidQuery("an index named \(indexName) exists")
            }
            var named = index  // keeps its NULLS order when it was read from the database
            named.name = indexName
            try editor.apply(.addIndex(table: name, named), live: live)
        case .dropIndex(let name, let indexName):
            let t = try table(name)
            guard t.indexes.contains(where: { $0.name == indexName }) else {
                throw StrataError.invalidQuery("table \(name) has no index named \(indexName)")
            }
            try editor.apply(change, live: live)
        case .addForeignKey(let name, let fk):
            let t = try table(name)
            for c in fk.columns { _ = try column(c, of: t) }
            guard let parent = live[table: fk.referencedTable] else {
                throw StrataError.missingReferencedTable(table: name, column: fk.column, references: fk.referencedTable)
            }
            for c in fk.referencedColumns { _ = try column(c, of: parent) }
            guard !fk.columns.isEmpty, fk.columns.count == fk.referencedColumns.count else {
                throw StrataError.invalidQuery(
                    "the foreign key \(name) (\(fk.columns.joined(separator: ", "))) lists \(fk.columns.count) column(s) "
                        + "for \(fk.referencedColumns.count) of \(fk.referencedTable)")
            }
            if t.foreignKeys.contains(where: { $0.column == fk.column }) {
                throw StrataError.invalidQuery("\(name).\(fk.column) already has a foreign key")
            }
            try Self.checkKeyTypes(fk, of: name, columns: t.columns, parent: parent, editor: editor)
            try editor.apply(change, live: live)
        case .dropForeignKey(let name, let c):
            let t = try table(name)
            guard t.foreignKeys.contains(where: { $0.column == c }) else {
                throw StrataError.invalidQuery("\(name).\(c) has no foreign key")
            }
            try editor.apply(change, live: live)
        case .setDefault(let name, let c, let value):
            let t = try table(name)
            let old = try column(c, of: t)
            if old.isPrimaryKey {
                throw StrataError.invalidQuery("cannot set a default on the primary key \(name).\(c)")
            }
            var converted: DatabaseValue?
            if let value, !value.isNull {
                guard let v = ValueConversion.convert(ValueConversion.normalize(value, as: old.type), to: old.type)
                else {
                    throw StrataError.typeMismatch(
                        table: name, column: c,
                        detail: "default \(SchemaChange.literal(value)) does not convert to \(old.type.rawValue)")
                }
                var storable = ValueCheck.isStorable(v)
                if case .blob = v { storable = false }
                if case .double(let d) = v, !d.isFinite { storable = false }
                guard storable else {
                    throw StrataError.invalidValue(
                        table: name, column: c, reason: "default \(SchemaChange.literal(value)) cannot be stored")
                }
                converted = v
            }
            try editor.apply(.setDefault(table: name, column: c, to: converted), live: live)
        case .setDatabaseDefault(let name, let c, let value):
            let old = try column(c, of: try table(name))
            var changed = old
            changed.databaseDefault = value
            let dialect = (connection as? any SQLConnection)?.dialect
            try TableSchema(name: name, columns: [changed]).checkDatabaseDefaults(model: name) { live, wanted in
                live == wanted || dialect.map { $0.sqlType(live) == $0.sqlType(wanted) } == true
            }
            try editor.apply(change, live: live)
        }
    }

    /// Refuses a foreign key that would pair columns of different types (`typeMismatch` naming the referencing
    /// column): PostgreSQL cannot build such a key, and SQLite and the memory driver would compare an integer with a
    /// text and keep a row whose parent is gone. Types a backend stores alike (SQLite's text and UUID) pair.
    static func checkKeyTypes(
        _ key: ForeignKey, of table: String, columns: [TableColumn], parent: TableSchema, editor: any SchemaEditing
    ) throws {
        for (name, referenced) in zip(key.columns, key.referencedColumns) {
            guard let c = columns.first(where: { $0.name == name }), let r = parent.column(named: referenced),
                c.type != r.type, !editor.storesAlike(c.type, r.type)
            else { continue }
            throw StrataError.typeMismatch(
                table: table, column: name,
                detail: "\(table).\(name) (\(c.type.rawValue)) cannot reference \(parent.name).\(referenced) "
                    + "(\(r.type.rawValue)): a foreign key's columns take the types of the columns they reference")
        }
    }

    /// The number of rows of a table (that match `filter`).
    func count(_ table: String, where filter: SQLExpression? = nil) throws -> Int64 {
        var n: Int64 = 0
        _ = try execute(.select(Select(table: table, selection: .count, filter: filter))) { r in
            n = r.int64(at: 0) ?? 0
        }
        return n
    }

    /// Adds a column whose fill is for the rows already there: afterwards its DEFAULT is its own
    /// ``TableColumn/schemaDefault`` (or none), never the fill, on every driver. A nullable column or one with a
    /// default of its own is added with that default and then filled by an UPDATE; a NOT NULL column without one
    /// is added with the fill as its DEFAULT (existing rows need a value), which is then dropped.
    private func addColumn(_ c: TableColumn, to table: String, editor: any SchemaEditing, live: DatabaseSchema) throws {
        let declared = ColumnDefault.normalized(c.schemaDefault, as: c.type)
        guard let fill = c.backfill, !fill.isNull, ColumnDefault.normalized(fill, as: c.type) != declared else {
            try editor.apply(.addColumn(table: table, c), live: live)
            // Without a value for existing rows, `ADD COLUMN` cannot say NOT NULL (SQLite refuses it even on an
            // empty table): the column, added to an empty table, is made NOT NULL after.
            if !c.isNullable, !c.isGenerated,
                try editor.introspect()[table: table]?.column(named: c.name)?.isNullable == true
            {
                try editor.apply(
                    .alterColumn(table: table, column: c.name, type: c.type, nullable: false, fill: nil),
                    live: try editor.introspect())
            }
            return
        }
        if c.isNullable || declared != nil {
            var plain = c
            plain.backfill = c.schemaDefault
            try editor.apply(.addColumn(table: table, plain), live: live)
            _ = try execute(.update(Update(table: table, assignments: [Assignment(c.name, fill)], filter: nil)))
        } else {
            try editor.apply(.addColumn(table: table, c), live: live)
            try editor.apply(.setDefault(table: table, column: c.name, to: nil), live: try editor.introspect())
        }
    }

    /// Changes a column's type (through a new column filled value by value, converted in Swift) and nullability.
    private func alterColumn(
        _ t: TableSchema, _ old: TableColumn, type: ColumnType, nullable: Bool, fill: DatabaseValue?,
        editor: any SchemaEditing, live: DatabaseSchema
    ) throws {
        let table = t.name
        if old.isPrimaryKey { throw StrataError.invalidQuery("cannot alter the primary key \(table).\(old.name)") }
        if type != old.type {
            // A foreign key on the column, or one that references it, must still pair columns of one type.
            var retyped = t
            if let i = retyped.columns.firstIndex(where: { $0.name == old.name }) { retyped.columns[i].type = type }
            for key in t.foreignKeys where key.columns.contains(old.name) {
                guard let parent = key.referencedTable == table ? retyped : live[table: key.referencedTable] else {
                    continue
                }
                try Self.checkKeyTypes(key, of: table, columns: retyped.columns, parent: parent, editor: editor)
            }
            for reference in live.references(to: table) where reference.key.referencedColumns.contains(old.name) {
                guard let child = reference.table == table ? retyped : live[table: reference.table] else { continue }
                try Self.checkKeyTypes(
                    reference.key, of: reference.table, columns: child.columns, parent: retyped, editor: editor)
            }
        }
        // Each row's key with its value: converted values are written back by key, not by the value read back,
        // which a column need not compare equal to (PostgreSQL's `real` 1.1 against a float8 1.1, `char(5)`
        // 'ab   ' against text 'ab   ').
        let primaryKey = t.columns.filter(\.isPrimaryKey).map(\.name)
        var rows: [(key: [DatabaseValue], value: DatabaseValue)] = []
        var values: [DatabaseValue] = []
        var seen = Set<DatabaseValue>()
        _ = try execute(.select(Select(table: table, selection: .columns(primaryKey + [old.name])))) { r in
            let v = r.value(at: primaryKey.count)
            if !primaryKey.isEmpty { rows.append(((0..<primaryKey.count).map { r.value(at: $0) }, v)) }
            if seen.insert(v).inserted { values.append(v) }
        }
        var converted: [(DatabaseValue, DatabaseValue)] = []
        var conversions: [DatabaseValue: DatabaseValue] = [:]
        for v in values where !v.isNull {
            guard let c = ValueConversion.convert(ValueConversion.normalize(v, as: old.type), to: type) else {
                throw StrataError.typeMismatch(
                    table: table, column: old.name,
                    detail: "\(ValueConversion.normalize(v, as: old.type)) does not convert to \(type.rawValue)")
            }
            converted.append((v, c))
            conversions[v] = c
        }
        var fillValue: DatabaseValue?
        if let fill, !fill.isNull {
            guard let f = ValueConversion.convert(fill, to: type) else {
                throw StrataError.typeMismatch(
                    table: table, column: old.name, detail: "fill \(fill) is not a \(type.rawValue)")
            }
            fillValue = f
        }
        if !nullable && fillValue == nil && values.contains(where: \.isNull) {
            throw StrataError.notNullViolation(table: table, column: old.name)
        }
        let column = SQLExpression.column(old.name)
        if editor.storesAlike(type, old.type) && type == old.type {
            if let fillValue, !nullable {
                _ = try execute(
                    .update(
                        Update(table: table, assignments: [Assignment(old.name, fillValue)], filter: .isNull(column))))
            }
            if nullable != old.isNullable {
                try editor.apply(
                    .alterColumn(table: table, column: old.name, type: type, nullable: nullable, fill: nil), live: live)
            }
            return
        }
        let temporary = "strata_tmp_" + old.name
        try apply(.addColumn(table: table, TableColumn(name: temporary, type: type, isNullable: true)))
        if primaryKey.isEmpty {
            for (from, to) in converted {
                _ = try execute(
                    .update(
                        Update(
                            table: table, assignments: [Assignment(temporary, to)],
                            filter: .compare(.equal, column, .value(from)))))
            }
        } else {
            for row in rows {
                guard let to = conversions[row.value] else { continue }
                let match = zip(primaryKey, row.key).map { SQLExpression.compare(.equal, .column($0), .value($1)) }
                _ = try execute(
                    .update(
                        Update(
                            table: table, assignments: [Assignment(temporary, to)],
                            filter: match.count == 1 ? match[0] : .and(match))))
            }
        }
        // Nothing is dropped unless every value reached the new column.
        let missed = try count(table, where: .and([.isNull(column, negated: true), .isNull(.column(temporary))]))
        if missed > 0 {
            throw StrataError.typeMismatch(
                table: table, column: old.name,
                detail: "\(missed) stored value(s) could not be matched to write their converted value back "
                    + "(no primary key, and the values do not compare equal to themselves as read); nothing changed")
        }
        if let fillValue, !nullable {
            _ = try execute(
                .update(Update(table: table, assignments: [Assignment(temporary, fillValue)], filter: .isNull(column))))
        }
        // The old default carried over when it converts (else dropped: a diff then shows it).
        let keptDefault = old.schemaDefault.flatMap {
            ValueConversion.convert(ValueConversion.normalize($0, as: old.type), to: type)
        }
        if try editor.replaceColumn(
            old.name, with: temporary, in: table, type: type, nullable: nullable, default: keptDefault,
            live: try editor.introspect())
        {
            // The temporary column took the old one's place: the tables Strata knows lose it too.
            followSchema(.dropColumn(table: table, column: temporary))
            return
        }
        let indexes = t.indexes.filter { $0.columns.contains(old.name) }
        let keys = t.foreignKeys.filter { $0.columns.contains(old.name) }
        let objects = try editor.schemaObjects(of: table)
        try apply(.dropColumn(table: table, column: old.name))
        try apply(.renameColumn(table: table, column: temporary, to: old.name))
        if !nullable {
            try editor.apply(
                .alterColumn(table: table, column: old.name, type: type, nullable: false, fill: nil),
                live: try editor.introspect())
        }
        for index in indexes { try apply(.addIndex(table: table, index)) }
        for key in keys { try apply(.addForeignKey(table: table, key)) }
        if let keptDefault { try apply(.setDefault(table: table, column: old.name, to: keptDefault)) }
        // What dropping the old column took with it and nothing re-created: refused, never lost (the step's
        // transaction rolls all of it back).
        let lost = objects.subtracting(try editor.schemaObjects(of: table))
        if !lost.isEmpty {
            throw StrataError.invalidQuery(
                "cannot change the type of \(table).\(old.name): it would drop or change "
                    + lost.sorted().joined(separator: "; ")
                    + " with the old column; drop them in the step first and re-create them after")
        }
    }
}
