// MariaDBConnection+Templates: a statement of a fixed shape (a save's INSERT, a find by key, a chunk of insertAll)
// runs from the SQL it rendered the first time.
import Strata

extension MariaDBConnection {
    /// Runs a statement whose shape is `template` from the SQL it rendered the first time on this connection: no
    /// statement to build or render again, only `binds` (in the order ``SQLRenderer/binds(of:dialect:)`` collects
    /// them) for the prepared statement cached by that SQL. An upsert is built and rendered every time, since it
    /// may run row by row (see ``runUpsertByRow(_:onRow:)``).
    public func execute(
        template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        if case .upsertRowsReturningKey = template.kind { return try execute(try statement(), onRow: onRow) }
        if let known = templates[template] {
            return try run(RenderedSQL(sql: known.sql, binds: binds), statement: known.shape, onRow: onRow)
        }
        let built = try statement()
        let rendered = try SQLRenderer.render(built, dialect: dialect)
        // Kept only when the binds the core collected are the ones rendered, in order.
        if rendered.binds == binds { templates[template] = (rendered.sql, Self.shape(of: built)) }
        return try run(rendered, statement: built, onRow: onRow)
    }

    /// `statement` without its rows: its kind and table, what ``run(_:statement:onRow:)`` reads of it.
    static func shape(of statement: Statement) -> Statement {
        guard case .insert(var insert) = statement else { return statement }
        insert.rows = []
        return .insert(insert)
    }
}
