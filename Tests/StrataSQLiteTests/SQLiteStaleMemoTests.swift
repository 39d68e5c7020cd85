// SQLiteStaleMemoTests: what a transaction remembers between queries (a model free of numbers stored as text, the
// plan's text) never outlives a schema change, and explain() returns the connection's lines joined.
import Foundation
import StrataSQLite
import Testing

@testable import Strata

/// A model over a table the tests make with raw SQL: `Total` stores numbers, then (made again) text.
@Model(table: "stale_invoice")
struct StaleInvoice {
    var id: Int64?
    @Column("Total") var total: Decimal
}

@Suite("Stale memos: a transaction's remembered answers end with a schema change")
struct SQLiteStaleMemoTests {
    @Test("a model found free of numbers stored as text is checked again after raw SQL remakes its table")
    func numberStorageMemo() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-stale-\(UUID()).sqlite").path
        let db = try Database.open("sqlite:" + path, drivers: [.sqlite])
        defer {
            db.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        try await db.withConnection { tx in
            try tx.unsafeRawExecute(
                #"CREATE TABLE "stale_invoice" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "Total" real NOT NULL)"#
            )
            try tx.unsafeRawExecute(#"INSERT INTO "stale_invoice" ("Total") VALUES (2.98), (10), (9.5)"#)
            // Twice: the second query is answered by the transaction's memo of the model.
            for _ in 0..<2 {
                #expect(try StaleInvoice.query(on: tx).where(\.total >= Decimal(10)).all().count == 1)
            }
            #expect(tx.textFreeModel?.model == ObjectIdentifier(StaleInvoice.self))
            try tx.unsafeRawExecute(#"DROP TABLE "stale_invoice""#)
            try tx.unsafeRawExecute(
                #"CREATE TABLE "stale_invoice" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "Total" text NOT NULL)"#
            )
            try tx.unsafeRawExecute(#"INSERT INTO "stale_invoice" ("Total") VALUES ('2.98'), ('10'), ('9.5')"#)
            let refused = { (error: any Error) -> Bool in
                guard case StrataError.schemaMismatch("stale_invoice", let problems) = error else { return false }
                return problems.count == 1 && problems[0].hasPrefix("column Total (stores text")
            }
            // Refused, as a transaction that never saw the model would refuse it, and the table left as it was.
            for _ in 0..<2 {
                #expect(
                    performing: { try StaleInvoice.query(on: tx).where(\.total >= Decimal(10)).all() }, throws: refused)
                #expect(performing: { try StaleInvoice.query(on: tx).order(\.total).explain() }, throws: refused)
            }
            let rows = try tx.unsafeRawExecute(#"SELECT "Total" FROM "stale_invoice" ORDER BY "id""#)
            #expect(rows == [[.text("2.98")], [.text("10")], [.text("9.5")]])
        }
    }

    @Test("explain() is the connection's plan lines joined by newlines, for one line and several, cached or not")
    func explainText() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-plan-\(UUID()).sqlite").path
        let db = try Database.open("sqlite:" + path, drivers: [.sqlite])
        defer {
            db.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        try await db.withConnection { tx in
            try tx.unsafeRawExecute(
                #"CREATE TABLE "stale_invoice" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "Total" real NOT NULL)"#
            )
            for bound in [1, 2] {  // the second time from the render cache
                let one = StaleInvoice.query(on: tx).where(\.id == Int64(bound))
                let lines = try tx.connection.explain(try one.selectStatement())
                #expect(lines.count == 1)
                #expect(try one.explain() == lines[0])
                let several = StaleInvoice.query(on: tx).where(\.total > Decimal(bound)).order(\.total).limit(3)
                let many = try tx.connection.explain(try several.selectStatement())
                #expect(many.count > 1, "a scan and a sort")
                #expect(try several.tagged("plan.\(bound)").explain() == many.joined(separator: "\n"))
            }
        }
    }
}
