// Select+Window: the rules a SELECT with window functions must keep, checked once by the core before any driver.

extension Select {
    /// The window functions among the SELECT's items.
    public var windows: [WindowFunction] {
        guard case .items(let items) = selection else { return [] }
        return items.compactMap { if case .window(let w) = $0 { w } else { nil } }
    }

    /// Checks what backends would answer differently or refuse: `LAG` or `LEAD` without a column or with a
    /// negative offset (PostgreSQL reads the other way, SQLite refuses), a ranking function given a column, a
    /// running aggregate without a column (but `COUNT(*)`) or over a type it takes differently on each backend, a
    /// window ordered by an aggregate (nothing to nest it in a SELECT that is not grouped) or by an expression, and
    /// a window in a SELECT that takes a row lock (PostgreSQL refuses `FOR UPDATE` with windows). A window in a
    /// grouped SELECT or in HAVING is refused by ``checkGrouping()``. The core calls it before any driver sees the statement (`StatementCheck`).
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the window function and the table.
    public func checkWindows() throws(StrataError) {
        for w in windows {
            switch w.function {
            case .lag, .lead:
                guard w.argument != nil else { throw .invalidQuery("\(w.summary) on \(table) needs a column") }
                guard w.offset >= 0 else {
                    throw .invalidQuery("the offset of \(w.summary) on \(table) is \(w.offset); it must be 0 or more")
                }
            case .rowNumber, .rank, .denseRank:
                guard w.argument == nil else { throw .invalidQuery("\(w.summary) on \(table) takes no column") }
            case .sum, .avg, .count, .min, .max:
                guard w.argument != nil || w.function == .count else {
                    throw .invalidQuery("\(w.summary) on \(table) needs a column")
                }
                if let problem = w.aggregate?.typeProblem {
                    throw .invalidQuery("\(w.summary) on \(table): \(problem)")
                }
            }
            for o in w.order {
                if let a = o.aggregate {
                    throw .invalidQuery(
                        "\(w.summary) on \(table) is ordered by \(a.summary): a window cannot nest an aggregate")
                }
                if o.expression != nil || o.column.isEmpty {
                    throw .invalidQuery("\(w.summary) on \(table) is ordered by an expression: order it by columns")
                }
            }
            if let lock {
                throw .invalidQuery(
                    "\(lock) on \(table) cannot apply to \(w.summary): lock the rows with a plain query")
            }
        }
    }
}
