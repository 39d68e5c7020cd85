// PostgresRowLockRenderTests: the exact SQL of isolation levels and row locks in the PostgreSQL dialect.
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL SQL: isolation levels and row locks")
struct PostgresRowLockRenderTests {
    let dialect = PostgresDialect()

    func sql(_ lock: RowLock, joins: [Join] = []) throws -> String {
        var s = Select(
            table: "job", selection: .columns(["id"]), joins: joins,
            filter: .compare(.equal, .column("status"), .value(.text("pending"))), order: [Ordering("id")], limit: 1)
        s.lock = lock
        try StatementCheck.check(.select(s))  // what the core refuses before any driver
        return try SQLRenderer.render(.select(s), dialect: dialect).sql
    }

    @Test("BEGIN ISOLATION LEVEL for each level")
    func isolation() throws {
        #expect(try SQLRenderer.render(.beginIsolated(.readCommitted), dialect: dialect).sql
            == "BEGIN ISOLATION LEVEL READ COMMITTED")
        #expect(try SQLRenderer.render(.beginIsolated(.repeatableRead), dialect: dialect).sql
            == "BEGIN ISOLATION LEVEL REPEATABLE READ")
        #expect(try SQLRenderer.render(.beginIsolated(.serializable), dialect: dialect).sql
            == "BEGIN ISOLATION LEVEL SERIALIZABLE")
    }

    @Test("FOR UPDATE / FOR SHARE with NOWAIT and SKIP LOCKED, after LIMIT")
    func locks() throws {
        let base = #"SELECT "id" FROM "job" WHERE ("status" = $1) ORDER BY "id" ASC NULLS FIRST LIMIT $2"#
        #expect(try sql(RowLock(.update)) == base + " FOR UPDATE")
        #expect(try sql(RowLock(.update, .noWait)) == base + " FOR UPDATE NOWAIT")
        #expect(try sql(RowLock(.update, .skipLocked)) == base + " FOR UPDATE SKIP LOCKED")
        #expect(try sql(RowLock(.share)) == base + " FOR SHARE")
        #expect(try sql(RowLock(.share, .skipLocked)) == base + " FOR SHARE SKIP LOCKED")
    }

    @Test("a joined query locks only the main table: FOR UPDATE OF")
    func joined() throws {
        let join = Join(.inner, table: "worker", alias: "w", on: .compare(.equal, .column("id", table: "w"), .column("id")))
        #expect(
            try sql(RowLock(.update, .skipLocked), joins: [join])
                == #"SELECT "job"."id" FROM "job" INNER JOIN "worker" AS "w" ON ("w"."id" = "job"."id") "#
                + #"WHERE ("job"."status" = $1) ORDER BY "job"."id" ASC NULLS FIRST LIMIT $2 FOR UPDATE OF "job" SKIP LOCKED"#)
        let right = Join(.right, table: "worker", alias: "w", on: .compare(.equal, .column("id", table: "w"), .column("id")))
        #expect(throws: StrataError.self) { try sql(RowLock(.update), joins: [right]) }
    }

    @Test("a lock with COUNT, an aggregate or DISTINCT is refused before any SQL")
    func refused() throws {
        var count = Select(table: "job", selection: .count)
        count.lock = RowLock(.update)
        #expect(throws: StrataError.invalidQuery("FOR UPDATE on job cannot apply to a count: lock the rows with a plain query first")) {
            try StatementCheck.check(.select(count))
        }
        var distinct = Select(table: "job", selection: .columns(["status"]))
        distinct.distinct = true
        distinct.lock = RowLock(.share, .noWait)
        #expect(throws: StrataError.self) { try StatementCheck.check(.select(distinct)) }
    }
}
