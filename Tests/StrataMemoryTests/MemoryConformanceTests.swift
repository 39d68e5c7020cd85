// MemoryConformanceTests: runs every shared conformance case on the in-memory driver, reporting each by name.
import Strata
import StrataConformance
import StrataMemory
import Testing

@Suite("Memory conformance")
struct MemoryConformanceTests {
    @Test("conformance case", arguments: ConformanceSuite.caseNames)
    func conformance(_ name: String) async throws {
        let db = try Database.open("memory:", drivers: [.memory])
        defer { db.close() }
        let c = try #require(ConformanceSuite.case(named: name))
        let outcome = await ConformanceSuite.run(c, on: db)
        ConformanceReport.check(outcome, case: name, driver: "memory")
    }

    @Test("a raw SQL condition in the common subset passes on the memory driver, which parses it")
    func rawConditionPasses() async throws {
        let db = try Database.open("memory:", drivers: [.memory])
        defer { db.close() }
        let c = try #require(ConformanceSuite.case(named: "where.unsafe-raw"))
        let outcome = await ConformanceSuite.run(c, on: db)
        #expect(outcome == .passed)
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
