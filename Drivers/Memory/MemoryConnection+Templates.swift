// MemoryConnection+Templates: a model's save and find run from their binds, the statement built only to plan them.
import Strata

extension MemoryConnection {
    /// Runs a statement of a fixed shape (``StatementTemplate``): the first two times on this connection (and the
    /// first after any schema change) it builds the statement and runs it as any other, and the second time it
    /// plans the template (``TemplatePlan``; not the first, as a fresh test database runs most templates once);
    /// then a find (or the read-back of a model's generated columns) reads the row by its key and a save inserts its
    /// binds, computing the generated columns, building, copying and matching no statement. A shape the plan does not
    /// cover (a soft-deleted model's find, a table with database defaults, a multi-row insert) is built and run every
    /// time.
    ///
    /// The answers, the errors and what the store holds after a failure are those of ``execute(_:onRow:)``.
    func execute(
        template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        switch template.kind {
        case .findByKey, .insertReturningKey, .readBackByKey: break
        case .insertRowsReturningKey, .upsertRowsReturningKey:
            return try execute(try statement(), onRow: onRow)
        }
        let planned = plannedTemplate(template)
        var replan = planned != nil
        if let planned {
            switch try store.run(planned, binds: binds, connection: id) {
            case .found(let row):
                guard let row else { return 0 }
                let reader = takeRow(row, projection: planned.plan.projection)
                defer { spareRow = reader }
                try onRow(reader)
                return 0
            case .inserted(let value):
                if let value {
                    let one = spareValue ?? SingleValueRow(value: value)
                    spareValue = nil
                    defer { spareValue = one }
                    one.value = value
                    try onRow(one)
                }
                return 1
            case .unplanned(let stale):
                replan = stale
            }
        }
        let built = try statement()
        let changes = try execute(built, onRow: onRow)
        if planned == nil {
            remember(PlannedTemplate(template: template, plan: .general, generation: PlannedTemplate.seenOnce))
        } else if replan, let planned = store.plan(template, statement: built, binds: binds, connection: id) {
            remember(planned)
        }
        return changes
    }

    /// The plan this connection keeps for `template`, if any.
    @inline(__always)
    private func plannedTemplate(_ template: StatementTemplate) -> PlannedTemplate? {
        for p in plans where Self.same(p.template, template) { return p }
        return nil
    }

    /// `a == b`, in place (the synthesized `==` copied each template it compared), the kind compared by its number
    /// unless it carries a payload (``StatementTemplate/isSame(as:)``; the kinds' derived `==` cost about 50
    /// instructions a find).
    @inline(__always)
    private static func same(_ a: borrowing StatementTemplate, _ b: borrowing StatementTemplate) -> Bool {
        a.isSame(as: b)
    }

    /// Keeps `planned`, in place of an older plan of its template; a connection keeps a few dozen at most.
    private func remember(_ planned: PlannedTemplate) {
        if let k = plans.firstIndex(where: { Self.same($0.template, planned.template) }) {
            plans[k] = planned
            return
        }
        if plans.count >= Self.plannedTemplateLimit { plans.removeAll(keepingCapacity: true) }
        plans.append(planned)
    }

    /// How many templates a connection keeps plans for (an app's models, a find and a save each).
    static let plannedTemplateLimit = 64
}
