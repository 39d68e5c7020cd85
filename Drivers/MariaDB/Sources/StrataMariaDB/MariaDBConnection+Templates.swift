// MariaDBConnection+Templates: a statement of a fixed shape (a save's INSERT, a find by key, a chunk of insertAll)
// runs from the SQL it rendered the first time.
import Strata

extension MariaDBConnection {
    /// Runs a statement whose shape is `template` from the SQL it rendered the first time on this connection: no
    /// statement to build or render again, only `binds` (in the order ``SQLRenderer/binds(of:dialect:)`` collects
    /// them) for the prepared statement kept with the template (no SQL to hash either). An upsert that must run row by
    /// row (see ``runUpsertByRow(_:onRow:)``) is built every time.
    public func execute(
        template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        if var known = templates[template] {
            // An upsert that must run row by row (see `upsertRunsByRow(_:)`) needs its rows: it is built.
            if case .insert(let shape) = known.shape, try upsertRunsByRow(shape) {
                return try execute(try statement(), onRow: onRow)
            }
            let changed = try run(
                RenderedSQL(sql: known.sql, binds: binds), statement: known.shape, known: known.prepared,
                readsIDs: known.readsIDs, onRow: onRow)
            if known.prepared?.isClosed ?? true {
                known.prepared = cachedStatement(known.sql)
                templates[template] = known
            }
            return changed
        }
        let built = try statement()
        var rendered = try SQLRenderer.render(built, dialect: dialect)
        // An INSERT whose keys come from the insert id runs (and is kept) without its RETURNING clause.
        let readsIDs: Bool
        if let sql = try insertIDPlan(built, sql: rendered.sql) {
            rendered.sql = sql
            readsIDs = true
        } else {
            readsIDs = false
        }
        let changed = try run(rendered, statement: built, known: nil, readsIDs: readsIDs, onRow: onRow)
        // Kept only when the binds the core collected are the ones rendered, in order.
        if rendered.binds == binds {
            templates[template] = KnownTemplate(
                sql: rendered.sql, shape: Self.shape(of: built), prepared: cachedStatement(rendered.sql),
                readsIDs: readsIDs)
        }
        return changed
    }

    /// A template's SQL, its statement without rows, the prepared statement last found for the SQL (nil, or
    /// closed after a failure: looked up again by the SQL), and whether it is an INSERT whose keys come from the
    /// insert id (its RETURNING clause removed, see `insertIDPlan(_:sql:)`).
    struct KnownTemplate {
        var sql: String
        var shape: Statement
        var prepared: MariaDBStatement?
        var readsIDs = false
    }

    /// `statement` without its rows: its kind and table, what ``run(_:statement:onRow:)`` reads of it.
    static func shape(of statement: Statement) -> Statement {
        guard case .insert(var insert) = statement else { return statement }
        insert.rows = []
        return .insert(insert)
    }
}
