// MemoryStore+Templates: a planned find or save run under the store's lock, straight from its binds.
import Strata

/// What running a planned template gave.
enum TemplateOutcome {
    /// A find's row as stored (nil: no row has the key).
    case found([DatabaseValue]?)
    /// An insert's RETURNING value (nil: it returns none).
    case inserted(DatabaseValue?)
    /// The statement must be built and run the ordinary way, which waits, reads what is committed, or throws:
    /// the template's shape is not planned, another connection's transaction is open, or (`replan`) the schema
    /// changed since the plan was made.
    case unplanned(replan: Bool)
}

extension MemoryStore {
    /// Runs a planned template for `connection`: all of it or, when it throws, none of it (as
    /// ``execute(_:connection:busyTimeout:)`` runs a statement).
    ///
    /// - Throws: the insert's constraint errors (``StrataError/uniqueViolation(table:columns:)``,
    ///   ``StrataError/notNullViolation(table:column:)``, ``StrataError/typeMismatch(table:column:detail:)``,
    ///   ``StrataError/foreignKeyViolation(table:)``), with the store as it was.
    func run(
        _ planned: PlannedTemplate, binds: [DatabaseValue], connection: Int
    ) throws(StrataError) -> TemplateOutcome {
        try state.withLock { s throws(StrataError) -> TemplateOutcome in
            guard s.schemaGeneration == planned.generation else { return .unplanned(replan: true) }
            if s.isHeld(against: connection) { return .unplanned(replan: false) }
            switch planned.plan {
            case .find(let table, _):
                guard binds.count == 1, case .integer(let id) = binds[0] else { return .unplanned(replan: false) }
                return s.findRow(id, in: table)
            case .findByIndex(let table, let index, _):
                return s.findRow(binds, in: table, index: index)
            case .insert(let table, let plan, let generated, let returned):
                guard binds.count == plan.columns.count else { return .unplanned(replan: false) }
                return .inserted(
                    try s.insertPlanned(binds, into: table, plan: plan, generated: generated, returned: returned))
            case .general:
                return .unplanned(replan: false)
            }
        }
    }

    /// The plan of a template whose `statement` just ran with `binds` for `connection`, at the schema it ran on; nil
    /// while another connection's transaction is open (the statement saw the committed tables: planned next time).
    func plan(
        _ template: StatementTemplate, statement: Statement, binds: [DatabaseValue], connection: Int
    ) -> PlannedTemplate? {
        state.withLock { s in
            if s.isHeld(against: connection) { return nil }
            let plan = TemplatePlan.make(statement, binds: binds, state: s)
            return PlannedTemplate(template: template, plan: plan, generation: s.schemaGeneration)
        }
    }
}

extension StoreState {
    /// `SELECT … WHERE pk = id` on `table`: its row, read in place (``TemplateOutcome/unplanned`` when the table
    /// is gone).
    mutating func findRow(_ id: Int64, in table: TableName) -> TemplateOutcome {
        guard let i = tables.index(forKey: table) else { return .unplanned(replan: true) }
        return Self.row(id, of: &tables.values[i])
    }

    /// The row whose key is `id`, read in place (`&`: a copy of the table out of the dictionary retains every field).
    @inline(__always)
    private static func row(_ id: Int64, of table: inout MemoryTable) -> TemplateOutcome {
        guard let slot = table.slotByID[id] else { return .found(nil) }
        return .found(table.slots[slot])
    }

    /// `SELECT … WHERE a = ? AND b = ?` on `table`, every column of the unique index at position `index` compared
    /// with the bind at its position: its row, read in place by one probe of the index (``TemplateOutcome/unplanned``
    /// when the table is gone, or a bind is not of its column's kind, which only the statement compares as SQL does).
    mutating func findRow(_ key: [DatabaseValue], in table: TableName, index: Int) -> TemplateOutcome {
        guard let i = tables.index(forKey: table) else { return .unplanned(replan: true) }
        return Self.row(key, index: index, of: &tables.values[i])
    }

    /// The row whose key in the index at `index` is `key`, read in place.
    @inline(__always)
    private static func row(_ key: [DatabaseValue], index: Int, of table: inout MemoryTable) -> TemplateOutcome {
        guard let slot = table.slot(forKey: key, inIndex: index) else { return .unplanned(replan: false) }
        guard let slot else { return .found(nil) }
        return .found(table.slots[slot])
    }

    /// A planned one-row INSERT of `values` into `table`, its `generated` columns computed, atomic as
    /// ``execute(_:connection:)`` is: returns the RETURNING value.
    mutating func insertPlanned(
        _ values: [DatabaseValue], into table: TableName, plan: InsertPlan, generated: [ComputedAssignment],
        returned: Int?
    ) throws(StrataError) -> DatabaseValue? {
        let mark = journal.count
        do {
            let (row, referencing) = try changing(table) { t, journal throws(StrataError) in
                var counterJournaled = false
                var appendJournaled = false
                let row = try Self.insertRow(
                    values, plan: plan, generated: generated, into: &t, journal: &journal,
                    counterJournaled: &counterJournaled, appendJournaled: &appendJournaled)
                return (row, !t.foreignKeys.isEmpty)
            }
            if referencing { try checkParents(of: [row], in: table.name) }
            if transaction == nil && !journal.isEmpty { settle(table) }
            return returned.map { row[$0] }
        } catch {
            undo(to: mark)
            if transaction == nil { journal.removeAll(keepingCapacity: true) }
            throw error
        }
    }
}
