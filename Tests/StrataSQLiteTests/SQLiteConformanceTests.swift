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
        if case .unsupported = outcome { print("conformance[sqlite] \(name): \(outcome)") }
        #expect(!outcome.isFailure, "\(name) on sqlite: \(outcome)")
    }

    @Test("the suite has the cases the issue asks for")
    func caseCount() {
        #expect(ConformanceSuite.cases.count >= 60)
        #expect(Set(ConformanceSuite.caseNames).count == ConformanceSuite.cases.count, "case names are unique")
    }
}
