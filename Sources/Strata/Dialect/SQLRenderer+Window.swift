// SQLRenderer+Window: a window function of a SELECT's list, `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …)`.

extension SQLRenderer {
    /// `RANK() OVER (PARTITION BY "user_id" ORDER BY "views" DESC NULLS LAST, "id" ASC)`, `LAG("views", 1, ?) OVER
    /// (…)`: the window's order terms are written as the SELECT's own ORDER BY (NULLs first ascending, last
    /// descending; text by code point). Ranking and offset functions have no frame: they read the partition's
    /// order, never a frame, on every backend, so none is written.
    mutating func window(_ w: WindowFunction, in s: Select) throws(StrataError) {
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
        }
        try over(w, in: s)
    }

    /// ` OVER (PARTITION BY … ORDER BY …)`, with `frame` after the order when given.
    private mutating func over(_ w: WindowFunction, in s: Select, frame: String? = nil) throws(StrataError) {
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
        }
        if let frame { sql += (w.partition.isEmpty && w.order.isEmpty ? "" : " ") + frame }
        sql += ")"
    }
}
