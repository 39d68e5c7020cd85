// Correlation: the column pairs a correlated EXISTS matches between its subquery's row and the enclosing row.

/// The column pairs of a correlated `EXISTS` (``SQLExpression/Node/correlatedExists(_:_:negated:)``): `inner[i]`, a
/// column of the subquery (its main table, or a join alias), equals `outer[i]`, a column of the enclosing statement's
/// main table `outerTable`, for every `i`.
package struct Correlation: Sendable, Hashable {
    /// The subquery's columns, one per pair.
    package var inner: [ColumnRef]
    /// The name (or alias) the enclosing statement's main table goes by, which qualifies ``outer`` in SQL.
    package var outerTable: String
    /// The enclosing statement's main-table columns, one per pair.
    package var outer: [String]

    package init(inner: [ColumnRef], outerTable: String, outer: [String]) {
        self.inner = inner
        self.outerTable = outerTable
        self.outer = outer
    }

    /// The same pairs with the outer columns read from the table `alias` instead.
    func outer(in alias: String) -> Correlation {
        Correlation(inner: inner, outerTable: alias, outer: outer)
    }

    /// `inner = outer AND …` over `subquery`'s columns, each qualified (the inner by the subquery's table): the
    /// terms a renderer adds to the subquery's WHERE.
    func terms(in subquery: Select) -> [SQLExpression] {
        zip(inner, outer).map { i, o in
            .compare(.equal, .column(i.name, table: i.table ?? subquery.table), .column(o, table: outerTable))
        }
    }

    /// Refuses pairs the SQL could not name unambiguously: none, unequal counts, or an outer table that the
    /// subquery also names.
    func check(in subquery: Select) throws(StrataError) {
        guard !inner.isEmpty, inner.count == outer.count else {
            throw .invalidQuery("a correlated EXISTS needs as many outer columns as inner ones, at least one")
        }
        guard subquery.table != outerTable, !subquery.joins.contains(where: { $0.alias == outerTable }) else {
            throw .invalidQuery(
                "a correlated EXISTS over \(subquery.table) cannot name the outer table \(outerTable) "
                    + "that the subquery also names")
        }
    }
}
