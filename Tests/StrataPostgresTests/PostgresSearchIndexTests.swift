// PostgresSearchIndexTests: migration gives a searchable model's document a GIN index, and a match reads it.
import Foundation
import Testing

@testable import Strata
@testable import StrataPostgres

@Model(table: "pg_searched")
struct PGSearched {
    var id: Int64?
    var title: String
    var searchDocument = ""
    static var searchable: SearchableColumns<PGSearched>? { .init(\.title, document: \.searchDocument) }
}

extension PostgresServerTests {
    @Suite("PostgreSQL full-text search index")
    struct PostgresSearchIndexTests {
        @Test("migrate creates the GIN index (twice is harmless), a match is a bitmap scan of it, and plans ignore it")
        func planUsesIndex() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_search_index")
            defer { db.close() }
            try await db.migrate(PGSearched.self)
            try await db.migrate(PGSearched.self)
            var rows = (0..<10_000).map { PGSearched(title: "w\($0 % 1_000) x\($0 % 77)") }
            try await PGSearched.insertAll(&rows, on: db)
            try await db.unsafeRawExecute("ANALYZE " + (try PostgresDialect().quote(PGSearched.schema.name)))

            let query = PGSearched.query(on: db).match("w12 x1*")
            let rendered = try SQLRenderer.render(.select(try query.selectStatement()), dialect: PostgresDialect())
            let sql = rendered.sql.replacing(#/\$[0-9]+/#, with: "?")
            let binds: [any DatabaseValueConvertible] = rendered.binds.compactMap {
                if case .text(let t) = $0 { t } else { nil }
            }
            let plan = try await db.unsafeRawExecute("EXPLAIN " + sql, binds)
                .compactMap { if case .text(let t) = $0.first { t } else { nil } }.joined(separator: "\n")
            #expect(plan.contains("pg_searched_search_document_search_idx"), "\(plan)")
            // Rows 12, 1012, …: x(k % 77) starts with x1 for 12 % 77 = 12, 1012 % 77 = 11, …
            let expected = (0..<10_000).filter { $0 % 1_000 == 12 && String($0 % 77).hasPrefix("1") }.count
            #expect(try await query.count() == expected)
            #expect(expected > 0)
            let pending = try await db.withConnection { tx in try tx.plan([PGSearched.self]) }
            #expect(pending.changes.isEmpty, "\(pending.changes)")
            try await PostgresTestServer.dropSchema("strata_search_index")
        }
    }
}
