// MariaDBConformanceTests: every shared conformance case on a real MariaDB server, each in its own database, held to
// the committed list of known gaps (MariaDBKnownGaps).
import Foundation
import Strata
import StrataConformance
import StrataMariaDB
import Testing

@Suite("MariaDB conformance")
struct MariaDBConformanceTests {
    /// Every case, or those `STRATA_MARIADB_CASES` names (comma-separated) to run a few while working on them, or
    /// with `STRATA_MARIADB_SAMPLE=N` every Nth case from `STRATA_MARIADB_SAMPLE_OFFSET` (CI: a different Nth each
    /// run, as its fuzz seed picks).
    static let selected: [String] = {
        let environment = ProcessInfo.processInfo.environment
        if let n = environment["STRATA_MARIADB_SAMPLE"].flatMap({ Int($0) }), n > 1 {
            let offset = (environment["STRATA_MARIADB_SAMPLE_OFFSET"].flatMap { Int($0) } ?? 0) % n
            print("conformance[mariadb]: every \(n)th case from case \(offset)")
            return ConformanceSuite.caseNames.enumerated().filter { $0.offset % n == offset }.map(\.element)
        }
        guard let list = environment["STRATA_MARIADB_CASES"], !list.isEmpty else {
            return ConformanceSuite.caseNames
        }
        let wanted = Set(list.split(separator: ",").map(String.init))
        return ConformanceSuite.caseNames.filter(wanted.contains)
    }()

    /// How many cases run at once (`STRATA_MARIADB_PARALLEL`, default 8): each holds up to three connections, well
    /// within the throwaway server's 600.
    static let gate = CaseGate(
        limit: ProcessInfo.processInfo.environment["STRATA_MARIADB_PARALLEL"].flatMap { Int($0) } ?? 8)

    /// Every case not in ``MariaDBKnownGaps`` passes; a case listed as failing fails, one listed as unsupported is
    /// refused with `unsupported`. A listed case that passes fails this test, so the lists only shrink. Cases run
    /// in parallel, a few at a time (``gate``).
    @Test("conformance case", arguments: MariaDBConformanceTests.selected)
    func conformance(_ name: String) async throws {
        await Self.gate.enter()
        do {
            try await run(name)
        } catch {
            await Self.gate.leave()
            throw error
        }
        await Self.gate.leave()
    }

    private func run(_ name: String) async throws {
        let index = try #require(ConformanceSuite.caseNames.firstIndex(of: name))
        let database = "strata_conf_\(index)"
        let db = try await MariaDBTestServer.freshDatabase(database)
        let c = try #require(ConformanceSuite.case(named: name))
        let outcome = await ConformanceSuite.run(c, on: db)
        db.close()
        try await MariaDBTestServer.dropDatabase(database)
        switch (outcome, MariaDBKnownGaps.failing[name], MariaDBKnownGaps.unsupported[name]) {
        case (.passed, nil, nil): break
        case (.passed, _, _):
            Issue.record("\(name) passes on mariadb now: take it off MariaDBKnownGaps")
        case (.failed(let why), _?, nil): print("conformance[mariadb]: \(name) fails, as listed: \(why.prefix(300))")
        case (.failed(let why), _, _): Issue.record("\(name) on mariadb: FAIL: \(why)")
        case (.unsupported, nil, _?): break
        case (.unsupported(let why), _, _):
            Issue.record("\(name) on mariadb: unsupported (\(why)), and not listed as unsupported")
        }
    }

    @Test("the known gaps name real cases, none twice, and stay within 5% unsupported")
    func knownGaps() {
        let names = Set(ConformanceSuite.caseNames)
        let listed = Array(MariaDBKnownGaps.failing.keys) + Array(MariaDBKnownGaps.unsupported.keys)
        #expect(Set(listed).count == listed.count)
        for name in listed { #expect(names.contains(name), "\(name) is no conformance case") }
        #expect(MariaDBKnownGaps.unsupported.count * 20 <= names.count)
        print(
            "conformance[mariadb]: \(names.count) cases, \(MariaDBKnownGaps.failing.count) known failing, "
                + "\(MariaDBKnownGaps.unsupported.count) unsupported, "
                + "\(names.count - listed.count) must pass")
    }
}

/// Lets at most `limit` callers between ``enter()`` and ``leave()`` at once; the others wait in order.
actor CaseGate {
    private let limit: Int
    private var inside = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = max(1, limit) }

    func enter() async {
        if inside < limit {
            inside += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            inside -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
