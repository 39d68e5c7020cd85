// PostgresJSONPathIndexTests: an index on a JSON path serves a range filter and an ordered page by the same path.
import Foundation
import Testing

@testable import Strata
@testable import StrataPostgres

/// A document with a size, indexed by path.
struct PGSized: Codable, Hashable, Sendable, DatabaseValueConvertible {
    var size: Int
    var label: String
}

@Model(table: "pg_sized")
struct PGSizedRow {
    var id: Int64?
    var doc: PGSized
    static var indexes: [Index] { [.on(json(\PGSizedRow.doc, "size", as: Int.self))] }
}

extension PostgresServerTests {
    @Suite("PostgreSQL JSON path indexes")
    struct PostgresJSONPathIndexTests {
        /// The plan PostgreSQL picks for `query`, as `EXPLAIN` prints it.
        static func plan(_ query: QueryBuilder<PGSizedRow, Database>, _ db: Database) async throws -> String {
            let rendered = try SQLRenderer.render(.select(try query.selectStatement()), dialect: PostgresDialect())
            // `$n` become `?` markers; the `?` inside the path's quoted regular expression stays text.
            let sql = rendered.sql.replacing(#/\$[0-9]+/#, with: "?")
            let binds: [any DatabaseValueConvertible] = try rendered.binds.map { value in
                guard case .integer(let n) = value else { throw StrataError.invalidQuery("unexpected bind \(value)") }
                return n
            }
            let rows = try await db.unsafeRawExecute("EXPLAIN " + sql, binds)
            return rows.compactMap { if case .text(let t) = $0.first { t } else { nil } }.joined(separator: "\n")
        }

        @Test("a range of the indexed path and a 20-row page ordered by it are index scans")
        func planUsesIndex() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_json_index")
            defer { db.close() }
            try await db.migrate(PGSizedRow.self)
            try await db.migrate(PGSizedRow.self)
            var rows = (0..<10_000).map { PGSizedRow(doc: PGSized(size: ($0 * 7) % 10_000, label: "l\($0 % 5)")) }
            try await PGSizedRow.insertAll(&rows, on: db)
            try await db.unsafeRawExecute("ANALYZE " + (try PostgresDialect().quote(PGSizedRow.schema.name)))

            let size = json(\PGSizedRow.doc, "size", as: Int.self)
            let range = PGSizedRow.query(on: db).where(size >= 100 && size < 120)
            let rangePlan = try await Self.plan(range, db)
            #expect(rangePlan.contains("pg_sized_doc_size_idx"), "\(rangePlan)")
            #expect(try await range.count() == 20)
            for direction in [Ordering.Direction.ascending, .descending] {
                let page = PGSizedRow.query(on: db).order(size, direction).limit(20)
                let plan = try await Self.plan(page, db)
                #expect(plan.contains("Index Scan"), "\(direction): \(plan)")
                #expect(!plan.contains("Sort"), "\(direction): \(plan)")
            }
            let top = try await PGSizedRow.query(on: db).order(size, .descending).limit(2).all()
            #expect(top.map(\.doc.size) == [9_999, 9_998])
            try await PostgresTestServer.dropSchema("strata_json_index")
        }
    }
}
