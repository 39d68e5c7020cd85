// PostgresIndexOrderTests: a paged, ordered query walks the index Strata created instead of sorting the whole range.
import Foundation
import Testing

@testable import Strata
@testable import StrataPostgres

@Model
struct PGPagedPost {
    var id: Int64?
    var views: Int64
    var score: Int64?
    static var indexes: [Index] { [.on(\PGPagedPost.views), .on(\PGPagedPost.score)] }
}

extension PostgresServerTests {
    @Suite("PostgreSQL ordered pages use indexes")
    struct PostgresIndexOrderTests {
        /// The plan PostgreSQL picks for `query`, as `EXPLAIN` prints it.
        static func plan(_ query: QueryBuilder<PGPagedPost, Database>, _ db: Database) async throws -> String {
            let rendered = try SQLRenderer.render(.select(try query.selectStatement()), dialect: PostgresDialect())
            let sql = rendered.sql.replacing(#/\$[0-9]+/#, with: "?")
            let binds: [any DatabaseValueConvertible] = try rendered.binds.map { value in
                guard case .integer(let n) = value else { throw StrataError.invalidQuery("unexpected bind \(value)") }
                return n
            }
            let rows = try await db.unsafeRawExecute("EXPLAIN " + sql, binds)
            return rows.compactMap { if case .text(let t) = $0.first { t } else { nil } }.joined(separator: "\n")
        }

        @Test("a 20-row page ordered by an indexed column is an index scan, nullable or not, either direction")
        func pageUsesIndex() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_index_order")
            defer { db.close() }
            try await db.migrate(PGPagedPost.self)
            var posts = (0..<10_000).map { PGPagedPost(views: Int64($0), score: $0 % 10 == 0 ? nil : Int64($0)) }
            try await PGPagedPost.insertAll(&posts, on: db)
            try await db.unsafeRawExecute("ANALYZE " + (try PostgresDialect().quote(PGPagedPost.schema.name)))

            let byViews = PGPagedPost.query(on: db).where(\.views >= 5000).order(\.views, .descending).limit(20)
            let rendered = try SQLRenderer.render(.select(try byViews.selectStatement()), dialect: PostgresDialect())
            #expect(rendered.sql.hasSuffix(#"ORDER BY "views" DESC LIMIT $2"#))
            let viewsPlan = try await Self.plan(byViews, db)
            #expect(viewsPlan.contains("Index Scan Backward using"), "\(viewsPlan)")
            #expect(!viewsPlan.contains("Sort"), "\(viewsPlan)")
            #expect(try await byViews.all().map(\.views) == Array((9980...9999).reversed()).map(Int64.init))

            // A nullable column keeps its NULLS clause, and its index was created NULLS FIRST to match.
            for direction in [Ordering.Direction.ascending, .descending] {
                let byScore = PGPagedPost.query(on: db).order(\.score, direction).limit(20)
                let plan = try await Self.plan(byScore, db)
                #expect(plan.contains("Index Scan"), "\(direction): \(plan)")
                #expect(!plan.contains("Sort"), "\(direction): \(plan)")
            }
            let firstScores = try await PGPagedPost.query(on: db).order(\.score).limit(3).all().map(\.score)
            #expect(firstScores == [nil, nil, nil])
            let lastScores = try await PGPagedPost.query(on: db).order(\.score, .descending).limit(2).all()
            #expect(lastScores.map(\.score) == [9999, 9998])
            try await PostgresTestServer.dropSchema("strata_index_order")
        }
    }
}
