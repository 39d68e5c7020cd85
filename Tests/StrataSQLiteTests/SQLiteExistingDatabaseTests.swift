// SQLiteExistingDatabaseTests: files other tools wrote (sqlite3, Django's forms) keep their journal mode and read right.
import Foundation
import Strata
import StrataSQLite
import Testing

/// Django's Chinook `invoice` table on SQLite: `decimal` as REAL, `datetime` as `YYYY-MM-DD HH:MM:SS` text.
@Model(table: "invoice")
struct DjangoInvoice {
    var id: Int64?
    @Column("InvoiceDate", dateFormat: .sqlDateTime) var invoiceDate: Date
    @Column("Total") var total: Decimal
    @Column("Paid", dateFormat: .iso8601) var paid: Date?
}

/// The same invoices with `Total` stored as text by another tool (Django's `Total` on a hand-made table).
@Model(table: "invoice_text")
struct DjangoTextInvoice {
    var id: Int64?
    @Column("Total") var total: Decimal
}

/// A line of a Django invoice, in a table Strata did not create; joined to its invoice by `invoice_id`.
@Model(table: "invoice_line_text")
struct DjangoTextInvoiceLine {
    var id: Int64?
    var invoiceID: Int64
    static let invoice = belongsTo(DjangoTextInvoice.self, key: \.invoiceID)
}

@Suite("SQLite existing databases")
struct SQLiteExistingDatabaseTests {
    /// Runs the real `sqlite3` tool on a database file and returns what it prints.
    @discardableResult
    func sqlite3(_ path: String, _ sql: String) throws -> String {
        let tool = "/usr/bin/sqlite3"
        try #require(
            FileManager.default.isExecutableFile(atPath: tool), "the sqlite3 tool is needed (apt-get install sqlite3)")
        let (status, output) = try ToolRun.run(tool, [path, sql])
        try #require(status == 0)
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The file's 100-byte header (journal format bytes 18 and 19, the change counter, the schema cookie…).
    func header(_ path: String) throws -> Data {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.prefix(100)
    }

    func makeChinook(_ path: String) throws {
        try sqlite3(
            path,
            """
            CREATE TABLE "invoice" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "InvoiceDate" datetime NOT NULL,
                                    "Total" decimal NOT NULL, "Paid" text NULL);
            INSERT INTO invoice VALUES (1, '2008-12-31 23:59:59', 0.99, NULL);
            INSERT INTO invoice VALUES (2, '2009-01-01 00:00:00', 1.98, '2009-01-02T10:00:00Z');
            INSERT INTO invoice VALUES (3, '2009-06-30 12:00:00', 13.86, NULL);
            INSERT INTO invoice VALUES (4, '2009-12-31 23:59:59', 8.91, '2010-01-01T00:00:00+01:00');
            INSERT INTO invoice VALUES (5, '2010-01-01 00:00:00', 25.86, NULL);
            """)
    }

    @Test("migrate=off changes nothing in a file: header, schema and journal mode are the same after use")
    func migrateOffChangesNothing() async throws {
        let file = TemporarySQLiteFile()
        try makeChinook(file.path)
        let schemaBefore = try sqlite3(file.path, ".schema")
        let headerBefore = try header(file.path)
        let db = try Database.open("sqlite:\(file.path)?migrate=off", drivers: [.sqlite])
        try await db.migrate(DjangoInvoice.self)
        #expect(try await DjangoInvoice.query(on: db).count() == 5)
        db.close()
        #expect(try header(file.path) == headerBefore)
        #expect(try sqlite3(file.path, ".schema") == schemaBefore)
        #expect(try sqlite3(file.path, "PRAGMA journal_mode") == "delete")
        #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"))
    }

    @Test("an existing file keeps its journal mode unless journal= asks; a new file gets WAL")
    func journalModeIsAChoice() async throws {
        let existing = TemporarySQLiteFile()
        try makeChinook(existing.path)
        let kept = try Database.open("sqlite:\(existing.path)", drivers: [.sqlite])
        #expect(try await DjangoInvoice.query(on: kept).count() == 5)
        kept.close()
        #expect(try sqlite3(existing.path, "PRAGMA journal_mode") == "delete")

        let asked = try Database.open("sqlite:\(existing.path)?journal=wal", drivers: [.sqlite])
        #expect(try await DjangoInvoice.query(on: asked).count() == 5)
        asked.close()
        #expect(try sqlite3(existing.path, "PRAGMA journal_mode") == "wal")

        let back = try Database.open("sqlite:\(existing.path)?journal=delete&migrate=off", drivers: [.sqlite])
        #expect(try await DjangoInvoice.query(on: back).count() == 5)
        back.close()
        #expect(try sqlite3(existing.path, "PRAGMA journal_mode") == "delete")

        let fresh = TemporarySQLiteFile()
        let created = try Database.open("sqlite:\(fresh.path)", drivers: [.sqlite])
        try await created.migrate(DjangoInvoice.self)
        created.close()
        #expect(try sqlite3(fresh.path, "PRAGMA journal_mode") == "wal")
    }

    @Test("journal= takes wal, delete or keep; anything else is an invalid URL")
    func journalParameterIsChecked() throws {
        #expect(
            throws: StrataError.invalidURL(
                "sqlite::memory:?journal=truncate", reason: "journal must be wal, delete or keep")
        ) {
            try Database.open("sqlite::memory:?journal=truncate", drivers: [.sqlite])
        }
    }

    @Test("Django's Chinook invoices: REAL decimals read exactly, 2009 found by between as sqlite3 counts them")
    func djangoInvoices() async throws {
        let file = TemporarySQLiteFile()
        try makeChinook(file.path)
        let db = try Database.open("sqlite:\(file.path)?migrate=off", drivers: [.sqlite])
        defer { db.close() }
        let all = try await DjangoInvoice.query(on: db).order(\.id).all()
        #expect(
            all.map { Optional($0.total) } == ["0.99", "1.98", "13.86", "8.91", "25.86"].map { Decimal(string: $0) })
        let start = try #require(DateText.parse("2009-01-01 00:00:00"))
        let end = try #require(DateText.parse("2009-12-31 23:59:59"))
        let in2009 = try await DjangoInvoice.query(on: db).where(\.invoiceDate, between: start...end).count()
        let counted = try sqlite3(
            file.path, "SELECT count(*) FROM invoice WHERE InvoiceDate BETWEEN '2009-01-01' AND '2009-12-31 23:59:59'")
        #expect(in2009 == 3)
        #expect("\(in2009)" == counted)
        #expect(try await DjangoInvoice.query(on: db).where(\.invoiceDate == start).count() == 1)
        #expect(all[3].paid == DateText.parse("2009-12-31 23:00:00"))
        var fourth = all[3]
        fourth.invoiceDate = start.addingTimeInterval(3600)
        try await fourth.save(on: db)
        #expect(try sqlite3(file.path, "SELECT InvoiceDate FROM invoice WHERE id = 4") == "2009-01-01 01:00:00")
    }

    @Test("a Decimal over a TEXT column sqlite3 wrote reads exactly; comparing or ordering it is refused, not as text")
    func totalsStoredAsText() async throws {
        let file = TemporarySQLiteFile()
        try sqlite3(
            file.path,
            """
            CREATE TABLE "invoice_text" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "Total" text NOT NULL);
            INSERT INTO invoice_text ("Total") VALUES ('2.98'), ('10'), ('9.5');
            """)
        // What the column answers as text: '2.98' and '9.5' sort after '10', so a text comparison finds three.
        #expect(try sqlite3(file.path, "SELECT count(*) FROM invoice_text WHERE Total >= '10'") == "3")
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        let totals = try await DjangoTextInvoice.query(on: db).order(\.id).all().map { Optional($0.total) }
        #expect(totals == ["2.98", "10", "9.5"].map { Decimal(string: $0) })
        let refused = { (error: any Error) -> Bool in
            guard case StrataError.schemaMismatch("invoice_text", let problems) = error else { return false }
            return problems.count == 1 && problems[0].hasPrefix("column Total (stores text: model DjangoTextInvoice ")
        }
        await #expect(
            performing: {
                try await DjangoTextInvoice.query(on: db).where(\.total >= Decimal(10)).count()
            }, throws: refused)
        await #expect(performing: { try await DjangoTextInvoice.query(on: db).order(\.total).all() }, throws: refused)
        await #expect(performing: { try await DjangoTextInvoice.query(on: db).max(\.total) }, throws: refused)
        #expect(try sqlite3(file.path, "SELECT count(*) FROM invoice_text") == "3")
    }

    @Test("a joined table's numbers stored as text are refused too, while a join over columns storing numbers runs")
    func joinedTotalsStoredAsText() async throws {
        let file = TemporarySQLiteFile()
        try sqlite3(
            file.path,
            """
            CREATE TABLE "invoice_text" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "Total" text NOT NULL);
            INSERT INTO invoice_text ("Total") VALUES ('2.98'), ('10'), ('9.5');
            CREATE TABLE "invoice_line_text" ("id" integer NOT NULL PRIMARY KEY, "invoice_id" integer NOT NULL);
            INSERT INTO invoice_line_text ("invoice_id") VALUES (1), (2), (2), (3);
            """)
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        // Twice: the second time the tables' storage is known from the cache, and still refused.
        for _ in 0..<2 {
            await #expect(
                performing: {
                    try await DjangoTextInvoiceLine.query(on: db).join(DjangoTextInvoiceLine.invoice)
                        .where(DjangoTextInvoiceLine.invoice, \.total >= Decimal(10)).count()
                },
                throws: { error in
                    guard case StrataError.schemaMismatch("invoice_text", let problems) = error else { return false }
                    return problems.count == 1 && problems[0].hasPrefix("column Total (stores text")
                })
            let lines = try await DjangoTextInvoiceLine.query(on: db).join(DjangoTextInvoiceLine.invoice)
                .where(\.invoiceID >= 2).count()
            #expect(lines == 3)
        }
    }
}
