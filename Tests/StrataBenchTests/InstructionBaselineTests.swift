// InstructionBaselineTests: CI's instruction check fails on a ratio grown past the tolerance, and writing a run's
// figures into the committed report keeps the rest of it.
import Foundation
import Testing

@testable import StrataBench

@Suite("Instruction baseline")
struct InstructionBaselineTests {
    private func baseline(scale: Int = 10, _ figures: [(Backend, Workload, Int, Int)]) -> InstructionBaseline {
        InstructionBaseline(
            scale: scale, date: "2026-11-29T00:00:00Z", command: "strata bench --instructions",
            figures: figures.map { InstructionFigure(backend: $0.0, workload: $0.1, strata: $0.2, baseline: $0.3) })
    }

    @Test("a ratio grown by more than the tolerance is a regression; within it, held; fallen past it, improved")
    func comparesEachWorkload() throws {
        let committed = baseline([
            (.sqlite, .insert, 1_200, 1_000), (.sqlite, .query, 1_300, 1_000), (.memory, .fetch, 300, 1_000),
        ])
        let run = baseline([
            (.sqlite, .insert, 1_330, 1_000),  // 1.20 -> 1.33: +10.8 %
            (.sqlite, .query, 1_420, 1_000),  // 1.30 -> 1.42: +9.2 %
            (.memory, .fetch, 260, 1_000),  // 0.30 -> 0.26: -13.3 %
            (.sqlite, .cteDescendants, 1_700, 1_000),  // none committed
        ])
        let c = try committed.compare(run, tolerance: 0.10)
        #expect(c.regressions.map(\.measured.workload) == [.insert])
        #expect(c.held.map(\.measured.workload) == [.query])
        #expect(c.improvements.map(\.measured.workload) == [.fetch])
        #expect(c.uncommitted.map(\.workload) == [.cteDescendants])
        #expect(c.lines.first == "  REGRESSED by more than 10 %: sqlite insert: 1.200 committed, 1.330 now (+10.8 %)")
        #expect(c.lines.count == 4)
    }

    @Test("on the memory driver, whose baseline is Strata too, its own count is compared, not the ratio")
    func memoryComparesItsOwnCount() throws {
        let committed = baseline([(.memory, .cteDescendants, 580_000, 12_000)])
        // SQLite got faster (the baseline fell): the ratio grows, the memory driver's count does not.
        let sqliteFaster = try committed.compare(
            baseline([(.memory, .cteDescendants, 580_500, 7_000)]), tolerance: 0.10)
        #expect(sqliteFaster.regressions.isEmpty)
        #expect(sqliteFaster.held.count == 1)
        let memorySlower = try committed.compare(
            baseline([(.memory, .cteDescendants, 700_000, 12_000)]), tolerance: 0.10)
        #expect(memorySlower.regressions.count == 1)
        #expect(
            memorySlower.lines.first
                == "  REGRESSED by more than 10 %: memory cte-descendants: 0.6M instructions committed, 0.7M now "
                + "(+20.7 %); ratio 48.333 then, 58.333 now")
    }

    @Test("the same workload on another backend is another figure")
    func backendsAreSeparate() throws {
        let c = try baseline([(.sqlite, .insert, 1_000, 1_000)])
            .compare(baseline([(.memory, .insert, 5_000, 1_000)]), tolerance: 0.10)
        #expect(c.regressions.isEmpty)
        #expect(c.uncommitted.count == 1)
    }

    @Test("figures counted at another scale are refused, not compared")
    func otherScaleRefused() {
        #expect {
            try baseline(scale: 10, [(.sqlite, .insert, 1, 1)])
                .compare(baseline(scale: 100, [(.sqlite, .insert, 1, 1)]), tolerance: 0.10)
        } throws: { "\($0)".contains("counted at 1/10 and this run at 1/100") }
        #expect {
            try baseline(scale: 10, []).updated(with: baseline(scale: 1, [(.sqlite, .insert, 1, 1)]))
        } throws: { "\($0)".contains("--instructions-scale 10") }
    }

    @Test("updating replaces the same backend and workload, adds new ones and keeps the others")
    func updateMerges() throws {
        let committed = baseline([(.sqlite, .insert, 1_200, 1_000), (.memory, .fetch, 300, 1_000)])
        var run = baseline([(.sqlite, .insert, 1_100, 1_000), (.sqlite, .jsonPath, 1_440, 1_000)])
        run.date = "2026-11-30T00:00:00Z"
        let updated = try committed.updated(with: run)
        #expect(updated.figures.map(\.ratio) == [1.1, 0.3, 1.44])
        #expect(updated.date == "2026-11-30T00:00:00Z")
    }

    @Test("the committed report survives a read and a write unchanged but for its instruction figures")
    func committedReportRoundTrips() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/benchmark.json").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let report = try StrataBench.readReport(path)
        let reencoded = String(decoding: try StrataBench.encoded(report), as: UTF8.self)
        #expect(reencoded == text, "docs/benchmark.json is written as --json writes it (keys sorted, pretty)")
        #expect(!report.backends.isEmpty)
        guard let committed = report.instructions else {
            Issue.record("docs/benchmark.json holds no instruction figures for CI to check against")
            return
        }
        #expect(committed.scale == 10)
        #expect(Set(committed.figures.map(\.backend)) == [.sqlite, .memory])

        let copy = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-instructions-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try text.write(toFile: copy, atomically: true, encoding: .utf8)
        var run = report
        run.instructionScale = 10
        run.backends = [
            BackendReport(
                backend: .sqlite, title: "sqlite", baselineName: "raw libsqlite3", skipped: nil,
                results: [result(.insert, strata: 999, baseline: 1_000)], notes: [])
        ]
        try StrataBench.updateInstructions(run, in: copy)
        let written = try StrataBench.readReport(copy)
        #expect(written.backends.map(\.results.count) == report.backends.map(\.results.count))
        let figure = try #require(
            written.instructions?.figures.first { $0.backend == .sqlite && $0.workload == .insert })
        #expect(figure.ratio == 0.999)
        #expect(written.instructions?.figures.count == committed.figures.count)
    }

    @Test("a run that counted nothing (no valgrind) fails the check rather than passing it")
    func nothingCountedFails() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/benchmark.json").path
        var run = try StrataBench.readReport(path)
        run.backends = [
            BackendReport(
                backend: .sqlite, title: "sqlite", baselineName: "raw libsqlite3", skipped: nil,
                results: [result(.insert, strata: nil, baseline: nil)], notes: [])
        ]
        #expect {
            _ = try StrataBench.checkInstructions(run, against: path, tolerance: 0.10) { _ in }
        } throws: { "\($0)".contains("counted no instructions") }
    }

    private func result(_ workload: Workload, strata: Int?, baseline: Int?) -> WorkloadResult {
        var r = WorkloadResult(
            workload: workload, label: workload.rawValue, runs: 1, strataMs: 1, baselineMs: 1, ratio: 1,
            strataRunsMs: [1], baselineRunsMs: [1], target: nil, met: nil, checksumsMatch: true)
        r.strataInstructions = strata
        r.baselineInstructions = baseline
        return r
    }
}
