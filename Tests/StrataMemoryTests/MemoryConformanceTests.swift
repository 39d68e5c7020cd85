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
        if case .unsupported = outcome { print("conformance[memory] \(name): \(outcome)") }
        #expect(!outcome.isFailure, "\(name) on memory: \(outcome)")
    }

    @Test("raw SQL is reported unsupported on the memory driver, never passed")
    func rawSQLUnsupported() async throws {
        let db = try Database.open("memory:", drivers: [.memory])
        let c = try #require(ConformanceSuite.case(named: "where.unsafe-raw"))
        let outcome = await ConformanceSuite.run(c, on: db)
        #expect(outcome == .unsupported("raw SQL on memory"))
    }
}
