// SQLiteJSONPathIndexTests: an index on a JSON path is created by migrate, survives a second migrate and a table
// rebuild's introspection, and serves a filter and an order by the same path (EXPLAIN QUERY PLAN names it).
import Foundation
import Strata
import StrataSQLite
import Testing

/// A document with a size, indexed by path.
struct SQLiteSized: Codable, Hashable, Sendable, DatabaseValueConvertible {
    var size: Int
    var label: String
}

@Model(table: "sq_sized")
struct SQLiteSizedRow {
    var id: Int64?
    var doc: SQLiteSized
    static var indexes: [Index] { [.on(json(\SQLiteSizedRow.doc, "size", as: Int.self))] }
}

@Suite("SQLite JSON path indexes")
struct SQLiteJSONPathIndexTests {
    @Test("a filter and an order by the indexed path use the index; migrating again keeps it")
    func planUsesIndex() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(SQLiteSizedRow.self)
        try await db.migrate(SQLiteSizedRow.self)
        var rows = (0..<2_000).map { SQLiteSizedRow(doc: SQLiteSized(size: ($0 * 7) % 2_000, label: "l\($0 % 5)")) }
        try await SQLiteSizedRow.insertAll(&rows, on: db)
        _ = try await db.unsafeRawExecute("ANALYZE")

        let size = json(\SQLiteSizedRow.doc, "size", as: Int.self)
        let range = SQLiteSizedRow.query(on: db).where(size >= 100 && size < 110)
        let plan = try await range.explain()
        #expect(plan.contains("sq_sized_doc_size_idx"), "\(plan)")
        #expect(try await range.count() == 10)
        let ordered = SQLiteSizedRow.query(on: db).order(size, .descending).limit(3)
        let orderPlan = try await ordered.explain()
        #expect(orderPlan.contains("sq_sized_doc_size_idx"), "\(orderPlan)")
        #expect(!orderPlan.contains("TEMP B-TREE"), "\(orderPlan)")
        #expect(try await ordered.all().map(\.doc.size) == [1_999, 1_998, 1_997])
        let other = try await SQLiteSizedRow.query(on: db).where(json(\.doc, "label", as: String.self) == "l1")
            .explain()
        #expect(!other.contains("sq_sized_doc_size_idx"), "another path scans: \(other)")
        let schema = try await db.withConnection { tx in try tx.introspect() }
        #expect(schema.tables.first { $0.name == "sq_sized" }?.indexes.isEmpty == true, "no column index listed")
    }
}
