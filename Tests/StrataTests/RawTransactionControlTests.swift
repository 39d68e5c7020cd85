// RawTransactionControlTests: which raw statements begin or end a transaction or a savepoint, by their first words.
import Strata
import Testing

@Suite("Raw transaction control")
struct RawTransactionControlTests {
    @Test("BEGIN, COMMIT, ROLLBACK and savepoints in their spellings; anything else is nil")
    func keywords() {
        let cases: [(String, RawTransactionControl?)] = [
            ("BEGIN", .begin), ("begin immediate", .begin), ("START TRANSACTION", .begin),
            ("  -- a comment\n /* another */ BEGIN;", .begin), ("COMMIT", .commit), ("end transaction", .commit),
            ("ROLLBACK", .rollback), ("abort", .rollback), ("ROLLBACK WORK", .rollback),
            ("ROLLBACK TO mine", .savepoint), ("rollback transaction to savepoint mine", .savepoint),
            ("SAVEPOINT mine", .savepoint), ("RELEASE mine", .savepoint), ("PREPARE TRANSACTION 'x'", .commit),
            ("SELECT 1", nil), ("PREPARE q AS SELECT 1", nil), ("", nil), ("-- BEGIN", nil), ("\"BEGIN\"", nil),
            ("UPDATE t SET a = 1 -- COMMIT", nil), ("beginning", nil),
        ]
        for (sql, expected) in cases { #expect(RawTransactionControl(sql) == expected, "\(sql)") }
    }
}
