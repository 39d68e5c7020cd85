// SQLRenderer+DistinctCollation: a DISTINCT select names the code-point collation on the text columns it orders by.

extension SQLRenderer {
    /// The text columns a DISTINCT select orders by (the main table's as `table: nil`), which it selects with the
    /// dialect's code-point collation so its ORDER BY may name the same expression (PostgreSQL accepts only
    /// what is selected there, and `x COLLATE "C"` is another expression than `x`). Empty for other selects and
    /// for dialects whose text already sorts by code point.
    static func distinctTextOrder(_ s: Select, dialect: any Dialect) -> Set<ColumnRef> {
        guard s.distinct, dialect.binaryTextCollation != nil else { return [] }
        var refs = Set<ColumnRef>()
        for o in s.order where o.isText && o.aggregate == nil && o.expression == nil {
            refs.insert(ColumnRef(o.column, table: o.table == s.table ? nil : o.table))
        }
        return refs
    }

    /// A selected column, followed by ` COLLATE "C"` when it is in `collated` (see `distinctTextOrder`).
    func selected(_ name: String, table: String?, collated: Set<ColumnRef>) throws(StrataError) -> String {
        let sql = try column(name, table: table)
        guard !collated.isEmpty, collated.contains(ColumnRef(name, table: table == mainTable ? nil : table)),
            let c = dialect.binaryTextCollation
        else { return sql }
        return sql + " COLLATE " + (try q(c))
    }
}
