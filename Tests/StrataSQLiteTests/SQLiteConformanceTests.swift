// SQLiteConformanceTests: runs every shared conformance case on a real SQLite file, reporting each by name.
import Foundation
import Strata
import StrataConformance
import StrataSQLite
import Testing

/// A fresh SQLite file in the temporary directory, removed (with its WAL files) at the end.
struct TemporarySQLiteFile: ~Copyable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-\(UUID().uuidString).sqlite").path
    }

    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

@Suite("SQLite conformance")
struct SQLiteConformanceTests {
    @Test("conformance case", arguments: ConformanceSuite.caseNames)
    func conformance(_ name: String) async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        let c = try #require(ConformanceSuite.case(named: name))
        let outcome = await ConformanceSuite.run(c, on: db)
        ConformanceReport.check(outcome, case: name, driver: "sqlite")
    }

    @Test("the suite has the cases the issue asks for")
    func caseCount() {
        #expect(ConformanceSuite.cases.count >= 60)
        #expect(Set(ConformanceSuite.caseNames).count == ConformanceSuite.cases.count, "case names are unique")
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
