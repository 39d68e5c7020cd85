// PreparedPlan: a prepared query's SELECT with its parameters, and the SQL it was last rendered to, bound by position.
import Synchronization

/// What a ``PreparedQuery`` keeps: its SELECT (with ``ParameterSlot``s where values go), the names of its
/// parameters, and, once it ran on a connection that renders SQL, that SQL and where each parameter's value goes
/// among its binds.
///
/// A run whose values render alike (each of the kind, and for a double the width, the SQL was rendered for: see
/// `RenderShape.standIn(_:)`) at the same generation of the known tables and of their text-stored columns binds
/// them into that SQL and runs it: no query is built, checked or rendered. Any other run substitutes the values into
/// the SELECT and runs it as an unprepared query of the same values would run (every check, the connection's render
/// cache), then remembers its SQL for the runs after it. A driver that renders no SQL (the memory driver) always runs
/// the SELECT with the values substituted, evaluating it itself.
///
/// Shared by copies of its query, and by the connections and tasks a query on a ``Database`` runs on: its SQL is
/// kept under a lock.
package final class PreparedPlan: Sendable {
    /// The SELECT, with a parameter where each value goes.
    package let select: Select
    /// The parameters' names, each once, in the order the SELECT first names them.
    package let names: [String]
    /// How many places of the SELECT hold a parameter.
    let places: Int
    /// The checks a query of the model makes on its SELECT before it runs (the number-storage check), made again
    /// whenever the known tables change.
    let recheck: @Sendable (Transaction, Select) throws -> Void
    private let rendering = Mutex<Rendering?>(nil)
    /// The plan of the same SELECT limited to one row, for `first()`, made on its first use.
    private let firstRow = Mutex<PreparedPlan?>(nil)
    /// The plan of the same SELECT's `COUNT(*)`, for `count()`, made on its first use.
    private let countRows = Mutex<PreparedPlan?>(nil)

    /// The SQL of the last values that rendered alike, for one dialect: a class, so that a run takes it from under
    /// the lock with one retain (a struct of seven fields was copied whole, about 1,200 instructions a run).
    package final class Rendering: Sendable {
        let dialect: String
        package let sql: String
        /// The binds, with the parameters' places holding the values the SQL was rendered with.
        let binds: [DatabaseValue]
        /// What the driver is handed of the statement: nil for a plain SELECT, whose SQL tells a driver all it reads
        /// of it (a copy of the SELECT per run cost about 800 instructions); the SELECT with those values for one
        /// that locks rows (which PostgreSQL's driver guards with a savepoint) or starts with WITH (which it would
        /// take for raw SQL that may write, and guard too).
        package let shape: Statement?
        /// For each parameter's place among ``binds``: the bind, the parameter (its index in the plan's names), and
        /// the slot (its column's date form).
        let slots: [(bind: Int, parameter: Int, slot: ParameterSlot)]
        /// What each parameter's value's SQL depends on (``RenderShape/renderKind(_:)``): values of the same kinds
        /// render alike.
        let kinds: [UInt8]
        /// The generations of the known tables and of their text-stored columns the SQL was checked at.
        let schemas: Int
        let textColumns: Int
        /// The EXPLAIN statement over ``sql``, made on the first `explain()`.
        let explained = Mutex<(prefix: String, sql: String)?>(nil)

        init(
            dialect: String, sql: String, binds: [DatabaseValue], shape: Statement?,
            slots: [(bind: Int, parameter: Int, slot: ParameterSlot)], kinds: [UInt8], schemas: Int, textColumns: Int
        ) {
            self.dialect = dialect
            self.sql = sql
            self.binds = binds
            self.shape = shape
            self.slots = slots
            self.kinds = kinds
            self.schemas = schemas
            self.textColumns = textColumns
        }

        /// Appends the binds to `binds` (empty), with `values` in the parameters' places.
        func fill(_ binds: inout [DatabaseValue], _ values: [DatabaseValue]) {
            // Value by value: `append(contentsOf:)` went through the generic sequence path (about 250 instructions).
            binds.reserveCapacity(self.binds.count)
            for b in self.binds { binds.append(b) }
            for s in slots { binds[s.bind] = s.slot.stored(values[s.parameter]) }
        }

        /// `prefix + " " + sql`, the same string at every call (the driver finds its statement by the string).
        func explaining(prefix: String) -> String {
            explained.withLock { e in
                if let e, e.prefix == prefix { return e.sql }
                let made = prefix + " " + sql
                e = (prefix, made)
                return made
            }
        }
    }

    package init(select: Select, recheck: @escaping @Sendable (Transaction, Select) throws -> Void) {
        self.select = select
        self.recheck = recheck
        var names: [String] = []
        var places = 0
        _ = select.substitutingParameters { slot in
            if !names.contains(slot.name) { names.append(slot.name) }
            places += 1
            return .parameter(slot)
        }
        self.names = names
        self.places = places
    }

    /// The plan of this SELECT limited to one row (a limit of 0 stays 0).
    func firstRowPlan() -> PreparedPlan {
        variant(firstRow) { $0.limit = Swift.min($0.limit ?? 1, 1) }
    }

    /// The plan of this SELECT's `COUNT(*)`, as the builder's `count()` writes it (no order; the limit and offset
    /// kept).
    func countPlan() -> PreparedPlan {
        variant(countRows) { s in
            s.selection = .count
            s.order = []
        }
    }

    /// The plan of this SELECT as `change` makes it, kept in `slot` from its first use.
    private func variant(_ slot: borrowing Mutex<PreparedPlan?>, _ change: (inout Select) -> Void) -> PreparedPlan {
        slot.withLock { cached in
            if let cached { return cached }
            var changed = select
            change(&changed)
            let plan = PreparedPlan(select: changed, recheck: recheck)
            cached = plan
            return plan
        }
    }

    /// The SELECT with `values` (by the index of ``names``) in place of its parameters, each in its column's date form.
    package func substituted(_ values: [DatabaseValue]) -> Select {
        select.substitutingParameters { slot in
            guard let i = names.firstIndex(of: slot.name) else { return .parameter(slot) }
            return .value(slot.stored(values[i]))
        }
    }

    /// The remembered SQL and its binds with `values` in the parameters' places, when `values` render alike at
    /// these generations on `dialect`.
    package func binds(for values: [DatabaseValue], dialect: String, schemas: Int, textColumns: Int) -> (
        Rendering, [DatabaseValue]
    )? {
        var binds: [DatabaseValue] = []
        guard let r = rendering(for: values, dialect: dialect, schemas: schemas, textColumns: textColumns) else {
            return nil
        }
        r.fill(&binds, values)
        return (r, binds)
    }

    /// The remembered SQL, when `values` render alike at these generations on `dialect`.
    func rendering(for values: [DatabaseValue], dialect: String, schemas: Int, textColumns: Int) -> Rendering? {
        guard let r = rendering.withLock({ $0 }), r.schemas == schemas, r.textColumns == textColumns,
            r.kinds.count == values.count, r.dialect == dialect
        else { return nil }
        for i in values.indices where RenderShape.renderKind(values[i]) != r.kinds[i] { return nil }
        return r
    }

    /// Remembers the SQL `values` rendered to on `dialect` (`shape` is the SELECT with them), when every bind but
    /// the parameters' is the same value wherever the parameters stand (else the SQL is not remembered, and each run
    /// renders the SELECT).
    package func remember(
        _ rendered: RenderedSQL, of shape: Select, values: [DatabaseValue], dialect: any Dialect, schemas: Int,
        textColumns: Int
    ) {
        let marked = SQLRenderer.binds(ofSelect: select, dialect: dialect)
        guard marked.count == rendered.binds.count else { return }
        var slots: [(bind: Int, parameter: Int, slot: ParameterSlot)] = []
        for i in marked.indices {
            if let slot = ParameterSlot(marker: marked[i]), let p = names.firstIndex(of: slot.name) {
                guard rendered.binds[i] == slot.stored(values[p]) else { return }
                slots.append((i, p, slot))
            } else if marked[i] != rendered.binds[i] {
                return
            }
        }
        // A text of the query's own that reads as a marker is a place too many: not remembered.
        guard slots.count == places else { return }
        let plain = shape.lock == nil && shape.commonTable == nil
        let r = Rendering(
            dialect: dialect.name, sql: rendered.sql, binds: rendered.binds, shape: plain ? nil : .select(shape),
            slots: slots, kinds: values.map(RenderShape.renderKind), schemas: schemas, textColumns: textColumns)
        rendering.withLock { $0 = r }
    }
}

extension ParameterSlot {
    /// The bind `SQLRenderer.binds(of:)` collects in a parameter's place: a text no query binds (a private-use
    /// character, the date form and the name), read back by ``init(marker:)``. A prepared plan compares each place
    /// with the SQL it rendered with the values substituted, so a query's own text equal to a marker is never taken
    /// for one.
    var marker: DatabaseValue { .text("\u{F8FF}strata.parameter:\(dateFormat?.rawValue ?? ""):\(name)") }

    /// The slot whose ``marker`` `value` is, or nil.
    init?(marker value: DatabaseValue) {
        guard case .text(let t) = value, t.hasPrefix("\u{F8FF}strata.parameter:") else { return nil }
        let rest = t.dropFirst("\u{F8FF}strata.parameter:".count)
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        let format = rest[..<colon]
        self.init(
            name: String(rest[rest.index(after: colon)...]),
            dateFormat: format.isEmpty ? nil : DateFormat(rawValue: String(format)))
        if !format.isEmpty && dateFormat == nil { return nil }
    }
}

extension Select {
    /// This SELECT with each parameter replaced by what `replace` makes of its slot, in every part that holds
    /// expressions (the filter, joins, orderings, named and compound queries, subqueries).
    func substitutingParameters(_ replace: (ParameterSlot) -> SQLExpression.Node) -> Select {
        var s = self
        if let w = s.commonTable {
            var mapped: CommonTable
            if let step = w.step, let recursion = w.recursion {
                mapped = CommonTable(
                    w.name, base: w.select.substitutingParameters(replace), step: step.substitutingParameters(replace),
                    recursion: recursion)
            } else {
                mapped = w
                mapped.select = w.select.substitutingParameters(replace)
            }
            mapped.windowColumn = w.windowColumn
            s.commonTable = mapped
        }
        if var c = s.compound {
            c.first = c.first.substitutingParameters(replace)
            for i in c.rest.indices { c.rest[i].select = c.rest[i].select.substitutingParameters(replace) }
            s.compound = c
        }
        for i in s.joins.indices {
            s.joins[i].on = SQLExpression(s.joins[i].on.node.substitutingParameters(replace))
        }
        if let f = s.filter { s.filter = SQLExpression(f.node.substitutingParameters(replace)) }
        for i in s.order.indices {
            guard let e = s.order[i].expression else { continue }
            s.order[i].expression = SQLExpression(e.node.substitutingParameters(replace))
        }
        return s
    }
}

extension SQLExpression.Node {
    /// This node with each parameter replaced by what `replace` makes of its slot.
    func substitutingParameters(_ replace: (ParameterSlot) -> Self) -> Self {
        func each(_ items: [Self]) -> [Self] { items.map { $0.substitutingParameters(replace) } }
        switch self {
        case .parameter(let slot): return replace(slot)
        case .column, .joinedColumn, .value, .constant, .unsafeRaw, .search, .searchRank: return self
        case .compare(let op, let l, let r):
            return .compare(op, l.substitutingParameters(replace), r.substitutingParameters(replace))
        case .and(let items): return .and(each(items))
        case .or(let items): return .or(each(items))
        case .not(let e): return .not(e.substitutingParameters(replace))
        case .isNull(let e, let negated): return .isNull(e.substitutingParameters(replace), negated: negated)
        case .inList(let e, let values, let negated):
            return .inList(e.substitutingParameters(replace), values, negated: negated)
        case .like(let e, let pattern, let caseInsensitive, let negated):
            return .like(
                e.substitutingParameters(replace), pattern: pattern, caseInsensitive: caseInsensitive,
                negated: negated)
        case .between(let e, let low, let high, let negated):
            return .between(
                e.substitutingParameters(replace), low: low.substitutingParameters(replace),
                high: high.substitutingParameters(replace), negated: negated)
        case .arithmetic(let op, let l, let r):
            return .arithmetic(op, l.substitutingParameters(replace), r.substitutingParameters(replace))
        case .concat(let l, let r): return .concat(l.substitutingParameters(replace), r.substitutingParameters(replace))
        case .caseMapped(let e, let upper): return .caseMapped(e.substitutingParameters(replace), upper: upper)
        case .coalesce(let items): return .coalesce(each(items))
        case .inSubquery(let e, let s, let negated):
            return .inSubquery(
                e.substitutingParameters(replace), s.substitutingParameters(replace), negated: negated)
        case .scalarSubquery(let s): return .scalarSubquery(s.substitutingParameters(replace))
        case .correlatedExists(let s, let correlation, let negated):
            return .correlatedExists(s.substitutingParameters(replace), correlation, negated: negated)
        case .typed(let e, let type): return .typed(e.substitutingParameters(replace), type)
        case .jsonPath(let e, let path): return .jsonPath(e.substitutingParameters(replace), path)
        }
    }
}
