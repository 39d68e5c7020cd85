// PostgresConnection+StagedInsert: large insertAll batches with ids back: binary COPY into a temporary staging
// table, then one INSERT … SELECT … ORDER BY the input's order RETURNING the key.
import CPostgres
import Strata

extension PostgresConnection {
    /// Rows from which ``bulkInsertReturning(table:columns:count:returning:row:)`` beats multi-row
    /// `INSERT … RETURNING` (measured with `strata bench --only copy-ids --scale N`: see the README's bulk-load notes).
    /// On an engine without temporary tables (``PostgresEngine/hasTemporaryTables``), never: every batch takes
    /// multi-row INSERTs.
    public var bulkInsertReturningThreshold: Int { engine.hasTemporaryTables ? 1_500 : .max }

    /// Inserts the rows through a temporary staging table and returns each row's `returning` value in input order:
    ///
    /// ```sql
    /// SAVEPOINT strata_stage
    /// CREATE TEMPORARY TABLE "strata_stage" AS SELECT 0::int8 AS "strata_ord", "c1", … FROM "t" WITH NO DATA
    /// COPY "strata_stage" ("strata_ord", "c1", …) FROM STDIN (FORMAT binary)
    /// INSERT INTO "t" ("c1", …) SELECT "c1", … FROM "strata_stage" ORDER BY "strata_ord" RETURNING "id"
    /// DROP TABLE "strata_stage"
    /// RELEASE SAVEPOINT strata_stage
    /// ```
    ///
    /// The staging table has the target's column types and none of its constraints, so the INSERT checks them
    /// (and fires the target's triggers) as a multi-row INSERT would. Identity values are drawn in the
    /// SELECT's order, so the keys come back in input order. Returns nil, with nothing written and the
    /// transaction as it was, when a column has no binary COPY encoding here or a value is of another kind
    /// than its column's (the caller inserts those rows instead, converting the value).
    public func bulkInsertReturning(
        table: String, columns: [String], count: Int, returning: String, row: (Int) throws -> [DatabaseValue]
    ) throws -> [DatabaseValue]? {
        try checkUsable()
        guard engine.hasTemporaryTables else { return nil }
        guard let fields = try copyFields(table: table, columns: columns) else { return nil }
        let stage = try dialect.quote("strata_stage")
        let ord = try dialect.quote("strata_ord")
        let target = try dialect.quote(table)
        let list = try columns.map { try dialect.quote($0) }.joined(separator: ", ")
        try plain("SAVEPOINT strata_stage", table: table)
        do {
            try plain(
                "CREATE TEMPORARY TABLE \(stage) AS SELECT 0::int8 AS \(ord), \(list) FROM \(target) WITH NO DATA",
                table: table)
            let written = try copyIn(
                "COPY \(stage) (\(ord), \(list)) FROM STDIN (FORMAT binary)", fields: fields, table: table,
                columns: columns, count: count, ordinals: true, row: row)
            guard written == count else {
                throw StrataError.database(
                    code: 0, message: "COPY into \(table)'s staging table took \(written) of \(count) rows")
            }
            var keys: [DatabaseValue] = []
            keys.reserveCapacity(count)
            _ = try executeRaw(
                "INSERT INTO \(target) (\(list)) SELECT \(list) FROM \(stage) ORDER BY \(ord) RETURNING "
                    + (try dialect.quote(returning)), []
            ) { r in keys.append(r.value(at: 0)) }
            guard keys.count == count else {
                throw StrataError.database(
                    code: 0, message: "INSERT into \(table) returned \(keys.count) keys for \(count) rows")
            }
            try plain("DROP TABLE \(stage)", table: table)
            try plain("RELEASE SAVEPOINT strata_stage", table: table)
            return keys
        } catch {
            if !isBroken {
                try? plain("ROLLBACK TO SAVEPOINT strata_stage", table: table)
                try? plain("RELEASE SAVEPOINT strata_stage", table: table)
            }
            if error is CopyKindRefusal { return nil }
            throw error
        }
    }

    /// Runs one statement without parameters or rows (savepoints and the staging table's DDL).
    private func plain(_ sql: String, table: String) throws {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        guard let result, PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw copyFailure(PostgresFailure(result: result, connection: handle), table: table)
        }
    }
}
