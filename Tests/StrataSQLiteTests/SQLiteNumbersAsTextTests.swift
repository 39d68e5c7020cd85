// SQLiteNumbersAsTextTests: number properties over TEXT columns sqlite3 wrote are refused before any query runs.
import Foundation
import Strata
import StrataSQLite
import Testing

/// Django's `Total` and a line count on a hand-made table that declared them as text.
@Model(table: "invoice_text")
struct TextTotalInvoice {
    var id: Int64?
    @Column("Total") var total: Decimal
    @Column("Lines") var lines: Int64
}

/// The same table mapped as it stores: strings.
@Model(table: "invoice_text")
struct TextTotalInvoiceRaw {
    var id: Int64?
    @Column("Total") var total: String
    @Column("Lines") var lines: String
}

@Suite("SQLite numbers stored as text")
struct SQLiteNumbersAsTextTests {
    static let totals = ["2.98", "10", "9.5", "12345678901234567.89", "12345678901234567.88"]
    static let lines = ["9", "10", "2", "100", "3"]

    func sqlite3(_ path: String, _ sql: String) throws -> String {
        let p = Process()
        let out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [path, sql]
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func makeTable(_ path: String) throws {
        let rows = zip(Self.totals, Self.lines).map { "('\($0)', '\($1)')" }.joined(separator: ", ")
        _ = try sqlite3(
            path,
            """
            CREATE TABLE invoice_text (id integer PRIMARY KEY, "Total" text NOT NULL, "Lines" varchar(10) NOT NULL);
            INSERT INTO invoice_text ("Total", "Lines") VALUES \(rows);
            """)
    }

    func isRefusal(_ error: any Error) -> Bool {
        guard case StrataError.schemaMismatch("invoice_text", let problems) = error, problems.count == 2 else {
            return false
        }
        return problems[0].hasPrefix("column Total (declared text: model TextTotalInvoice reads it as a Decimal")
            && problems[1].hasPrefix(
                "column Lines (declared varchar(10): model TextTotalInvoice reads it as an integer")
            && problems.allSatisfy { $0.contains("compare as text") }
    }

    @Test("text compares as text in the file, and CAST to REAL merges decimals past 15 digits: why Strata refuses")
    func whyRefused() throws {
        let file = TemporarySQLiteFile()
        try makeTable(file.path)
        let posix = Locale(identifier: "en_US_POSIX")
        let numeric = Self.totals.compactMap { Decimal(string: $0, locale: posix) }.filter { $0 >= 10 }.count
        let asText = try sqlite3(file.path, #"SELECT count(*) FROM invoice_text WHERE "Total" >= '10'"#)
        #expect(asText != "\(numeric)", "text order answers \(asText) rows, numbers \(numeric)")
        // The boundary of a numeric CAST: two totals one cent apart compare equal as REAL (and as NUMERIC).
        let merged = try sqlite3(
            file.path,
            #"SELECT count(DISTINCT CAST("Total" AS REAL)), count(DISTINCT CAST("Total" AS NUMERIC)) FROM invoice_text"#
        )
        #expect(merged == "\(Self.totals.count - 1)|\(Self.totals.count - 1)")
    }

    @Test(
        "every query on a Decimal or Int64 over TEXT is refused, migrated or not, and the file is unchanged",
        arguments: ["", "?migrate=off"])
    func refusedOnEveryPath(parameters: String) async throws {
        let file = TemporarySQLiteFile()
        try makeTable(file.path)
        let before = try sqlite3(file.path, "SELECT group_concat(\"Total\" || '/' || \"Lines\", ',') FROM invoice_text")
        let db = try Database.open("sqlite:\(file.path)\(parameters)", drivers: [.sqlite])
        defer { db.close() }
        let ten = Decimal(10)
        await #expect(
            performing: { try await TextTotalInvoice.query(on: db).where(\.total >= ten).all() }, throws: isRefusal)
        await #expect(performing: { try await TextTotalInvoice.query(on: db).order(\.total).all() }, throws: isRefusal)
        await #expect(performing: { try await TextTotalInvoice.query(on: db).min(\.total) }, throws: isRefusal)
        await #expect(performing: { try await TextTotalInvoice.query(on: db).max(\.lines) }, throws: isRefusal)
        await #expect(
            performing: { try await TextTotalInvoice.query(on: db).where(\.lines, in: [9, 10]).count() },
            throws: isRefusal)
        await #expect(
            performing: { try await TextTotalInvoice.query(on: db).where(\.total < ten).delete() }, throws: isRefusal)
        // Migrating (refused under migrate=off, a no-op on the existing table otherwise) does not let it through.
        _ = try? await db.migrate(TextTotalInvoice.self)
        await #expect(performing: { try await TextTotalInvoice.query(on: db).count() }, throws: isRefusal)
        let raw = try await TextTotalInvoiceRaw.query(on: db).order(\.id).all()
        #expect(raw.map(\.total) == Self.totals)
        #expect(raw.map(\.lines) == Self.lines)
        #expect(
            try sqlite3(file.path, "SELECT group_concat(\"Total\" || '/' || \"Lines\", ',') FROM invoice_text")
                == before)
    }
}
