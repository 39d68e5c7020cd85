// SQLRenderer+SetOperation: a compound's SELECTs joined by UNION, UNION ALL, INTERSECT and EXCEPT, left to right.

extension SQLRenderer {
    /// `first`, then each of `rest` in turn, so that operators apply left to right on every backend: an INTERSECT
    /// after another operator gets the rows so far as a derived table (`SELECT cols FROM (a UNION b) AS
    /// "strata_set_1" INTERSECT c`), since PostgreSQL binds INTERSECT tighter than UNION and EXCEPT and SQLite
    /// does not, and SQLite takes no parenthesised branch.
    mutating func compound(_ first: Select, _ rest: ArraySlice<SetOperation>, depth: Int) throws(StrataError) {
        guard let last = rest.last else {
            try select(first)
            return
        }
        let before = rest.dropLast()
        if last.kind == .intersect, before.contains(where: { $0.kind != .intersect }) {
            guard case .columns(let columns) = first.selection else {
                throw .invalidQuery("branch 1 of the INTERSECT on \(first.table) must select columns")
            }
            sql += "SELECT " + (try columns.map { c throws(StrataError) in try q(c) }.joined(separator: ", "))
            sql += " FROM ("
            try compound(first, before, depth: depth + 1)
            sql += ") AS " + (try q("strata_set_\(depth + 1)"))
        } else {
            try compound(first, before, depth: depth)
        }
        sql += " " + last.kind.rawValue + " "
        try select(last.select)
    }
}
