// Select+Grouping: the rules a grouped, aggregate or DISTINCT SELECT must keep, checked alike by every driver.

extension Select {
    /// Whether the SELECT returns groups: it has GROUP BY, or aggregates over all its rows.
    public var isAggregated: Bool {
        guard groupBy.isEmpty else { return true }
        guard case .items(let items) = selection else { return false }
        return items.contains { if case .aggregate = $0 { true } else { false } }
    }

    /// Checks what backends would answer differently or not at all: HAVING without GROUP BY, a column neither
    /// grouped nor aggregated (SQLite picks an arbitrary row, PostgreSQL refuses), an aggregate over a type it
    /// does not take alike everywhere, DISTINCT ordered by something not selected. The core calls it before any
    /// driver sees the statement (`StatementCheck`), so a bad AST fails the same way on every driver.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the column or aggregate.
    public func checkGrouping() throws(StrataError) {
        // The common SELECT (no grouping, aggregate or DISTINCT) costs nothing here.
        if groupBy.isEmpty && having == nil && !distinct && !order.contains(where: { $0.aggregate != nil }) {
            if case .items = selection {} else { return }
        }
        if having != nil && groupBy.isEmpty { throw .invalidQuery("HAVING without GROUP BY") }
        var selected: [SelectItem] = []
        switch selection {
        case .count:
            if distinct || !groupBy.isEmpty {
                throw .invalidQuery("COUNT(*) of a grouped or DISTINCT select: select a count item instead")
            }
            return
        case .columns(let names):
            selected = names.map { .column(ColumnRef($0)) }
        case .refs(let refs):
            selected = refs.map { .column($0) }
        case .items(let items):
            guard !items.isEmpty else { throw .invalidQuery("SELECT without columns") }
            selected = items
        }
        if !groupBy.isEmpty, case .columns = selection { throw .invalidQuery("GROUP BY needs a list of items") }
        if !groupBy.isEmpty, case .refs = selection { throw .invalidQuery("GROUP BY needs a list of items") }
        let grouped = groupBy.map(normalized)
        for item in selected + (having?.items ?? []) {
            switch item {
            case .aggregate(let a):
                if a.column == nil && (a.function != .count || a.distinct) {
                    throw .invalidQuery("\(a.summary) needs a column")
                }
                if let problem = a.typeProblem { throw .invalidQuery("\(a.summary): \(problem)") }
            case .column(let c):
                if isAggregated && !grouped.contains(normalized(c)) {
                    throw .invalidQuery("column \(c.name) is neither grouped nor aggregated")
                }
            case .window(let w):
                // A window in HAVING, or over groups, needs the groups' aggregates nested in it: refused alike.
                guard isAggregated else { break }
                throw .invalidQuery(
                    "\(w.summary) in a grouped or aggregate select: a window cannot nest an aggregate nor filter "
                        + "groups; read the groups through a WITH query")
            case .expression(let e):
                guard isAggregated else { break }
                throw .invalidQuery(
                    "an expression item (\(e.summary)) in a grouped or aggregate select is neither grouped nor "
                        + "aggregated")
            }
        }
        for o in order {
            if let a = o.aggregate {
                guard isAggregated else { throw .invalidQuery("ORDER BY \(a.summary) of a select that is not grouped") }
                if let problem = a.typeProblem { throw .invalidQuery("\(a.summary): \(problem)") }
            } else if isAggregated && !grouped.contains(normalized(ColumnRef(o.column, table: o.table))) {
                throw .invalidQuery("ORDER BY column \(o.column), neither grouped nor aggregated")
            }
            if distinct {
                let item = o.aggregate.map(SelectItem.aggregate) ?? .column(ColumnRef(o.column, table: o.table))
                guard selected.map(normalized).contains(normalized(item)) else {
                    throw .invalidQuery("SELECT DISTINCT ordered by \(o.aggregate?.summary ?? o.column), not selected")
                }
            }
        }
    }

    /// A column of the main table named by nil, whatever the reference said.
    private func normalized(_ c: ColumnRef) -> ColumnRef { c.table == table ? ColumnRef(c.name) : c }

    private func normalized(_ item: SelectItem) -> SelectItem {
        switch item {
        case .column(let c): return .column(normalized(c))
        case .aggregate(var a):
            a.column = a.column.map(normalized)
            return .aggregate(a)
        case .window, .expression: return item
        }
    }
}
