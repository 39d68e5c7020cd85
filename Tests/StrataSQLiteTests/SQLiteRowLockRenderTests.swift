// SQLiteRowLockRenderTests: SQLite's isolation (every level is BEGIN IMMEDIATE) and row locks (no clause).
import Strata
import StrataSQLite
import Testing

@Suite("SQLite SQL: isolation levels and row locks")
struct SQLiteRowLockRenderTests {
    let dialect = SQLiteDialect()

    @Test("every isolation level begins IMMEDIATE: the transaction is serializable")
    func isolation() throws {
        for level in IsolationLevel.allCases {
            #expect(try SQLRenderer.render(.beginIsolated(level), dialect: dialect).sql == "BEGIN IMMEDIATE")
            #expect(dialect.isolationLevels.serving(level) == .serializable)
        }
    }

    @Test("a row lock adds no clause: the transaction holds the write lock")
    func locks() throws {
        var s = Select(table: "job", selection: .columns(["id"]), order: [Ordering("id")], limit: 1)
        for lock in [RowLock(.update), RowLock(.update, .noWait), RowLock(.share, .skipLocked)] {
            s.lock = lock
            #expect(
                try SQLRenderer.render(.select(s), dialect: dialect).sql
                    == #"SELECT "id" FROM "job" ORDER BY "id" ASC LIMIT ?"#)
        }
        s.selection = .count
        #expect(throws: StrataError.self) { try StatementCheck.check(.select(s)) }  // by the core, before any driver
    }
}
