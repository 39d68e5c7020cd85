// StoreState+Write: INSERT (with auto ids and RETURNING), UPDATE and DELETE, journaled so a failure undoes all.
import Strata

extension StoreState {
    /// Runs `body` on a table in place in the dictionary, so it stays uniquely referenced while it
    /// changes (no copy-on-write of its rows). Every change `body` makes must be journaled before it
    /// is made, so the caller can undo a failed statement.
    mutating func changing<R>(_ name: String, _ body: (inout MemoryTable, inout [UndoStep]) throws(StrataError) -> R)
        throws(StrataError) -> R
    {
        try changing(TableName(name), body)
    }

    /// ``changing(_:_:)`` of the table whose key a plan keeps (its name not hashed again).
    mutating func changing<R>(
        _ key: TableName, _ body: (inout MemoryTable, inout [UndoStep]) throws(StrataError) -> R
    ) throws(StrataError) -> R {
        guard let i = tables.index(forKey: key) else { throw .noSuchTable(key.name) }
        return try body(&tables.values[i], &journal)
    }

    /// Inserts the rows; returns them through `RETURNING` when asked.
    ///
    /// Omitted columns take their schema default, or NULL; an omitted (or NULL) integer primary key
    /// takes the next id: one past the largest id ever inserted, so ids are never reused.
    /// The rows fit the columns (the core's `StatementCheck`, run again here only because the indexing below relies
    /// on it when a caller hands the connection a statement directly).
    mutating func insert(_ i: Insert) throws(StrataError) -> Outcome {
        try StatementCheck.check(.insert(i))
        let i = fillingDatabaseDefaults(i)
        if let onConflict = i.onConflict { return try upsert(i, onConflict) }
        var inserted: [[DatabaseValue]] = []
        let outcome = try changing(i.table) { table, journal throws(StrataError) in
            let plan: InsertPlan
            if let cached = table.insertPlan, cached.columns == i.columns {
                plan = cached
            } else {
                plan = try InsertPlan(i.columns, table: table)
                table.insertPlan = plan
            }
            let returned = try i.returning.map { r throws(StrataError) in
                try table.position(of: r, near: table.primaryKey ?? 0)
            }
            if let error = plan.defaultsError { throw error }
            let generated = try plan.generated.get()
            var returnedValues: [DatabaseValue] = []
            if returned != nil { returnedValues.reserveCapacity(i.rows.count) }
            var counterJournaled = false
            var appendJournaled = false
            for values in i.rows {
                let row = try Self.insertRow(
                    values, plan: plan, generated: generated, into: &table, journal: &journal,
                    counterJournaled: &counterJournaled, appendJournaled: &appendJournaled)
                if let returned { returnedValues.append(row[returned]) }
                if !table.foreignKeys.isEmpty { inserted.append(row) }
            }
            return Outcome(changes: i.rows.count, rows: .values(returnedValues))
        }
        try checkParents(of: inserted, in: i.table)
        return outcome
    }

    /// Appends one row of an INSERT to `table`: `values` (the INSERT's, in its columns' order, which `plan` maps)
    /// stored by each column's type, omitted columns at their defaults, the next id for an omitted or NULL integer
    /// key, `generated` computed; journaled (the counter and the append once a statement, as the two flags say).
    /// The caller checks foreign keys once the statement's rows are in.
    ///
    /// - Returns: the stored row.
    /// - Throws: ``StrataError/notNullViolation(table:column:)``, ``StrataError/typeMismatch(table:column:detail:)``,
    ///   ``StrataError/uniqueViolation(table:columns:)``, or a generated column's error; before anything changes.
    static func insertRow(
        _ values: [DatabaseValue], plan: InsertPlan, generated: [ComputedAssignment], into table: inout MemoryTable,
        journal: inout [UndoStep], counterJournaled: inout Bool, appendJournaled: inout Bool
    ) throws(StrataError) -> [DatabaseValue] {
        let width = table.columns.count
        let given = plan.given
        let defaults = plan.defaults
        let stores = plan.stores
        let key = table.primaryKey ?? -1
        // Appended to an array made by `reserveCapacity`, which is specialized for the values' type: an array made
        // whole (`Array(repeating:count:)`, `Array(unsafeUninitializedCapacity:)`) is allocated by the standard
        // library's unspecialized code, which looks up the array's generic metadata each time (about 300
        // instructions a row; the appends' capacity and uniqueness checks cost about 10 a value).
        var row: [DatabaseValue] = []
        row.reserveCapacity(width)
        for p in 0..<width {
            let k = given[p]
            if k < 0 || (p == key && values[k].isNull) {
                row.append(defaults?[p] ?? .null)
            } else {
                row.append(try stores[p].stored(values[k], column: p, of: table))
            }
        }
        if let pk = table.primaryKey {
            let id: Int64
            if case .integer(let explicit) = row[pk] {
                id = explicit
            } else {
                guard table.lastID < Int64.max else {
                    throw .database(code: 13, message: "no more ids for \(table.name)")
                }
                id = table.lastID + 1
                row[pk] = .integer(id)
            }
            for g in generated { row[g.position] = try g.stored(from: row, in: table) }
            if let columns = table.conflict(for: row, ignoring: nil) {
                throw .uniqueViolation(table: table.name, columns: columns)
            }
            if id > table.lastID {
                if !counterJournaled {
                    journal.append(.lastID(table: table.name, previous: table.lastID))
                    counterJournaled = true
                }
                table.lastID = id
            }
        } else {
            for g in generated { row[g.position] = try g.stored(from: row, in: table) }
            if let columns = table.conflict(for: row, ignoring: nil) {
                throw .uniqueViolation(table: table.name, columns: columns)
            }
        }
        if !appendJournaled {
            // One step for all the rows this statement appends.
            journal.append(.appended(table: table.name, from: table.slots.count))
            appendJournaled = true
        }
        table.put(row, at: table.slots.count)
        return row
    }

    /// Sets the assignments on the matching rows; returns how many rows matched.
    mutating func update(_ u: Update) throws(StrataError) -> Int {
        let u = try resolvingSubqueries(in: u)
        let references = references(to: u.table)
        var before: [[DatabaseValue]] = []
        var after: [[DatabaseValue]] = []
        let count = try changing(u.table) { table, journal throws(StrataError) in
            var assignments: [(position: Int, value: DatabaseValue)] = []
            var computed: [ComputedAssignment] = []
            for a in u.assignments {
                let p = try table.position(of: a.column)
                if table.columns[p].isGenerated { throw table.generatedWrite(p) }
                if let e = a.expression {
                    computed.append(
                        ComputedAssignment(position: p, value: try ComputedValue(e.node, scope: ColumnScope(table))))
                    continue
                }
                let column = table.columns[p]
                // A type error is raised even when no row matches (PostgreSQL checks the bound value's
                // type up front); NOT NULL only when a row is actually updated.
                var value = a.value
                if !value.isNull {
                    switch ColumnCoercion.normalize(value, to: column.type) {
                    case .success(let v): value = v
                    case .failure(let m): throw .typeMismatch(table: table.name, column: column.name, detail: m.detail)
                    }
                }
                assignments.append((p, value))
            }
            let slots = try Self.matching(u.filter, in: table)
            if slots.isEmpty { return 0 }
            let generated = try table.generatedAssignments()
            for a in assignments
            where a.value.isNull && (!table.columns[a.position].isNullable || a.position == table.primaryKey) {
                throw .notNullViolation(table: table.name, column: table.columns[a.position].name)
            }
            // Foreign keys are checked only where the update writes one of their columns, as SQLite and PostgreSQL
            // check them: a row's parent when it writes a referencing column, its children when it writes a
            // referenced one.
            func writes(_ position: Int) -> Bool {
                assignments.contains { $0.position == position } || computed.contains { $0.position == position }
                    || generated.contains { $0.position == position }
            }
            var referenced = false
            for r in references where !referenced {
                for c in r.key.definition.referencedColumns where writes(try table.position(of: c)) {
                    referenced = true
                    break
                }
            }
            let referencing = table.foreignKeys.contains { $0.columns.contains(where: writes) }
            var counterJournaled = false
            for slot in slots {
                guard let old = table.row(at: slot) else { continue }
                var row = old
                for a in assignments { row[a.position] = a.value }
                for c in computed { row[c.position] = try c.stored(from: old, in: table) }
                for g in generated { row[g.position] = try g.stored(from: row, in: table) }
                if let columns = table.conflict(for: row, ignoring: slot) {
                    throw .uniqueViolation(table: table.name, columns: columns)
                }
                if let pk = table.primaryKey, case .integer(let id) = row[pk], id > table.lastID {
                    if !counterJournaled {
                        journal.append(.lastID(table: table.name, previous: table.lastID))
                        counterJournaled = true
                    }
                    table.lastID = id
                }
                journal.append(.slot(table: table.name, slot: slot, previous: old))
                table.put(row, at: slot)
                if referenced { before.append(old) }
                if referencing { after.append(row) }
            }
            return slots.count
        }
        try checkParents(of: after, in: u.table)
        try applyReferences(to: u.table, removed: before, deleted: false)
        return count
    }

    /// Deletes the matching rows; returns how many. Foreign keys that reference them cascade, set
    /// NULL, or refuse the delete.
    mutating func delete(_ d: Delete) throws(StrataError) -> Int {
        let d = try resolvingSubqueries(in: d)
        guard let i = tables.index(forKey: d.table) else { throw .noSuchTable(d.table) }
        if d.filter == nil {
            // Every row: journal the table whole (a copy-on-write reference, not a step per row) and
            // empty it in O(1).
            let count = tables.values[i].liveCount
            if count == 0 { return 0 }
            let before = tables.values[i]
            journal.append(.table(name: d.table, previous: before))
            tables.values[i].removeAllRows()
            let removed = references(to: d.table).isEmpty ? [] : before.slots.filter { !$0.isEmpty }
            try applyReferences(to: d.table, removed: removed, deleted: true)
            return count
        }
        let slots = try Self.matching(d.filter, in: tables.values[i])
        if slots.isEmpty { return 0 }
        let removed = try removeRows(slots, from: d.table)
        try applyReferences(to: d.table, removed: removed, deleted: true)
        return slots.count
    }

    /// The slots of `table` that `filter` selects.
    private static func matching(_ filter: SQLExpression?, in table: MemoryTable) throws(StrataError) -> [Int] {
        // `pk = id` (what `save` and `delete` of a model send): the map answers exactly.
        if let id = table.primaryKeyEquality(filter) { return table.slotByID[id].map { [$0] } ?? [] }
        guard let filter else { return try table.matchingSlots(nil) }
        return try table.matchingSlots(try CompiledCondition(filter.node, table: table))
    }
}
