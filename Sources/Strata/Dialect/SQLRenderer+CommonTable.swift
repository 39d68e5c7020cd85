// SQLRenderer+CommonTable: the WITH (or WITH RECURSIVE) clause that names a SELECT the statement reads.

extension SQLRenderer {
    /// `WITH "name" AS (SELECT …) `, before the SELECT that reads `"name"` under its model's table name; for a
    /// recursive walk `WITH RECURSIVE "name" ("c1", …, "depth") AS (SELECT c1, …, 0 FROM … UNION ALL SELECT t.c1,
    /// …, "name"."depth" + 1 FROM t INNER JOIN "name" … WHERE … AND ("name"."depth" < ?)) `.
    mutating func with(_ w: CommonTable) throws(StrataError) {
        if w.windowColumn != nil, let columns = w.columns {
            // The window's value needs a name the outer SELECT reads: a column list, as both backends take.
            sql += "WITH " + (try q(w.name)) + " ("
            sql += try columns.map { c throws(StrataError) in try q(c) }.joined(separator: ", ") + ") AS ("
            try select(w.select)
            sql += ") "
            return
        }
        guard let r = w.recursion, let step = w.boundedStep, let columns = w.columns else {
            sql += "WITH " + (try q(w.name)) + " AS ("
            try select(w.select)
            sql += ") "
            return
        }
        sql += "WITH RECURSIVE " + (try q(w.name)) + " ("
        sql += try columns.map { c throws(StrataError) in try q(c) }.joined(separator: ", ") + ") AS ("
        extraItem = "0"
        try select(w.select)
        sql += r.distinct ? " UNION " : " UNION ALL "
        extraItem = try q(w.name) + "." + (try q(r.depthColumn)) + " + 1"
        try select(step)
        sql += ") "
    }
}
