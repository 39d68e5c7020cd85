// PostgresConformanceTests: runs every shared conformance case on a real PostgreSQL server, each in its own schema.
import Foundation
import Strata
import StrataConformance
import StrataPostgres
import Testing

/// Cases run in parallel, so each gets its own schema (`?search_path=strata_conf_N`) and its own tables.
extension PostgresServerTests {
    @Suite("PostgreSQL conformance")
    struct PostgresConformanceTests {
        @Test("conformance case", arguments: ConformanceSuite.caseNames)
        func conformance(_ name: String) async throws {
            let index = try #require(ConformanceSuite.caseNames.firstIndex(of: name))
            let schema = "strata_conf_\(index)"
            let db = try await PostgresTestServer.freshSchema(schema)
            let c = try #require(ConformanceSuite.case(named: name))
            let outcome = await ConformanceSuite.run(c, on: db)
            db.close()
            if case .unsupported = outcome { print("conformance[postgres] \(name): \(outcome)") }
            #expect(!outcome.isFailure, "\(name) on postgres: \(outcome)")
            try await PostgresTestServer.dropSchema(schema)
        }

        @Test("the whole suite in one run, on one database")
        func wholeSuite() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_conf_all")
            defer { db.close() }
            let results = await ConformanceSuite.runAll(on: db)
            let passed = results.filter { $0.outcome == .passed }.count
            print("conformance[postgres]: \(passed)/\(results.count) cases pass")
            for r in results where r.outcome != .passed { print("conformance[postgres] \(r.name): \(r.outcome)") }
            #expect(passed == ConformanceSuite.cases.count)
            try await PostgresTestServer.dropSchema("strata_conf_all")
        }
    }
}
