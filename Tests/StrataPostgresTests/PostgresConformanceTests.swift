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
            ConformanceReport.check(outcome, case: name, driver: "postgres")
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

/// How one case's outcome is reported under `swift test`: a pass, a failure, or (unsupported) a known issue
/// with its reason, which the runner prints apart and counts apart ("with N known issues"), never as a pass.
private enum ConformanceReport {
    static func check(_ outcome: ConformanceOutcome, case name: String, driver: String) {
        switch outcome {
        case .passed: break
        case .failed(let why): Issue.record("\(name) on \(driver): FAIL: \(why)")
        case .unsupported(let why):
            withKnownIssue("\(name) is unsupported on \(driver), not passed") {
                Issue.record("unsupported: \(why)")
            }
        }
    }
}
