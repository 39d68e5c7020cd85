// SQLRenderer+Window: a window function of a SELECT's list, `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …)`.

extension SQLRenderer {
    /// `RANK() OVER (PARTITION BY "user_id" ORDER BY "views" DESC NULLS LAST, "id" ASC)`, `LAG("views", 1, ?) OVER
    /// (…)`: the window's order terms are written as the SELECT's own ORDER BY (NULLs first ascending, last
    /// descending; text by code point). Ranking and offset functions have no frame: they read the partition's
    /// order, never a frame, on every backend, so none is written. A running aggregate's frame is always written:
    /// `ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW` with an order (the default `RANGE` frame would add a
    /// row's peers at once), the whole partition without one.
    mutating func window(_ written: WindowFunction, in s: Select) throws(StrataError) {
        let w = dialect.unkeyedWindow == .borrowedKey ? Self.borrowingKey(written, in: s) : written
        if let function = w.function.aggregate {
            // The dialect's call (PostgreSQL's cast of an integer sum, SQLite's checked sums) with the window after
            // each aggregate it calls; the frame is written out so that peers read alike on every backend.
            let before = sql
            sql = ""
            try over(
                w, in: s,
                frame: written.order.isEmpty
                    ? "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"
                    : "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")
            let window = sql
            sql = before
            guard let c = w.argument else {
                guard function == .count else { throw .invalidQuery("\(w.summary) needs a column") }
                sql += "COUNT(*)" + window
                return
            }
            sql += dialect.aggregateCall(
                function, over: w.argumentType, argument: try column(c.name, table: c.table), window: window)
            return
        }
        switch w.function {
        case .rowNumber: sql += "ROW_NUMBER()"
        case .rank: sql += "RANK()"
        case .denseRank: sql += "DENSE_RANK()"
        case .lag, .lead:
            guard let c = w.argument else { throw .invalidQuery("\(w.summary) needs a column") }
            // The offset is an Int of the AST, written as digits (PostgreSQL's LAG takes an integer, not the
            // bigint a bound Int64 would be); the default is bound.
            let call = (w.function == .lag ? "LAG(" : "LEAD(") + (try column(c.name, table: c.table)) + ", \(w.offset)"
            if w.defaultValue.isNull {
                sql += call + ")"
            } else if dialect.windowDefault == .argument {
                sql += call + ", "
                bind(w.defaultValue)
                sql += ")"
            } else if w.offset == 0 {
                sql += call + ")"  // the row itself: it always exists
            } else {
                // The offset row exists when a frame of just that row counts one.
                let side = w.function == .lag ? " PRECEDING" : " FOLLOWING"
                sql += "CASE WHEN COUNT(*)"
                try over(w, in: s, frame: "ROWS BETWEEN \(w.offset)\(side) AND \(w.offset)\(side)")
                sql += " > 0 THEN " + call + ")"
                try over(w, in: s)
                sql += " ELSE "
                bind(w.defaultValue)
                sql += " END"
                return
            }
        case .sum, .avg, .count, .min, .max: throw .invalidQuery("\(w.summary) is an aggregate")
        }
        let unorderedRank = w.order.isEmpty && (w.function == .rank || w.function == .denseRank)
        try over(w, in: s, orderByNull: unorderedRank && dialect.unorderedRank == .orderByNull)
    }

    /// `w` with the key of the first window of `s` that has a partition or an order, when `w` has neither
    /// (``UnkeyedWindowSyntax/borrowedKey``): that key's partition columns, then its order terms, become `w`'s
    /// order (its frame stays the whole result, see ``window(_:in:)``), or, for `RANK` and `DENSE_RANK`, its
    /// partition (every row still a peer, ranked 1). `w` as it is otherwise.
    static func borrowingKey(_ w: WindowFunction, in s: Select) -> WindowFunction {
        guard w.partition.isEmpty, w.order.isEmpty, case .items(let items) = s.selection else { return w }
        var keyed: [WindowFunction] = []
        for case .window(let other) in items where !other.partition.isEmpty || !other.order.isEmpty {
            keyed.append(other)
        }
        guard let first = keyed.first else { return w }
        var borrowing = w
        if w.function == .rank || w.function == .denseRank {
            let columns = first.order.filter { $0.expression == nil && $0.aggregate == nil }
            borrowing.partition = first.partition + columns.map { ColumnRef($0.column, table: $0.table) }
        } else {
            borrowing.order = first.partition.map { Ordering($0.name, table: $0.table) } + first.order
        }
        return borrowing
    }

    /// ` OVER (PARTITION BY … ORDER BY …)`, with `frame` after the order when given; `ORDER BY NULL` for a window
    /// without an order when `orderByNull` (``UnorderedRankSyntax/orderByNull``).
    private mutating func over(_ w: WindowFunction, in s: Select, frame: String? = nil, orderByNull: Bool = false)
        throws(StrataError)
    {
        sql += " OVER ("
        if !w.partition.isEmpty {
            sql += "PARTITION BY "
            sql += try w.partition.map { c throws(StrataError) in try column(c.name, table: c.table) }
                .joined(separator: ", ")
        }
        if !w.order.isEmpty {
            if !w.partition.isEmpty { sql += " " }
            sql += "ORDER BY "
            try orderTerms(w.order, in: s)
        } else if orderByNull {
            sql += (w.partition.isEmpty ? "" : " ") + "ORDER BY NULL"
        }
        if let frame { sql += (w.partition.isEmpty && w.order.isEmpty ? "" : " ") + frame }
        sql += ")"
    }
}
