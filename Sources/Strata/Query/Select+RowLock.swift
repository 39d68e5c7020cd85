// Select+RowLock: which SELECTs may carry a row lock, checked once by the core before any driver sees the query.

extension Select {
    /// Checks that the row lock applies to rows of the main table, one by one, as every backend can lock them:
    /// not a count, an aggregate, a grouping or DISTINCT (PostgreSQL refuses `FOR UPDATE` there), nor a query
    /// whose main table is the nullable side of a RIGHT or FULL join.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the table.
    public func checkLock() throws(StrataError) {
        guard let lock else { return }
        func refuse(_ what: String) -> StrataError {
            .invalidQuery("\(lock) on \(table) cannot apply to \(what): lock the rows with a plain query first")
        }
        if case .count = selection { throw refuse("a count") }
        if isAggregated || having != nil { throw refuse("groups or aggregates") }
        if distinct { throw refuse("SELECT DISTINCT") }
        if joins.contains(where: { $0.kind == .right || $0.kind == .full }) {
            throw refuse("the nullable side of a RIGHT or FULL join")
        }
    }
}
