// InstructionBaseline: the committed instruction ratios (docs/benchmark.json) a run is checked against, and written to.
import Foundation

/// One workload's instruction counts on one backend, at the scale of the run that counted them.
public struct InstructionFigure: Sendable, Codable, Equatable {
    /// The backend.
    public var backend: Backend
    /// The workload.
    public var workload: Workload
    /// Instructions Strata's timed section ran.
    public var strata: Int
    /// Instructions the baseline's timed section ran.
    public var baseline: Int
    /// Strata's over the baseline's.
    public var ratio: Double

    /// A figure; `ratio` is `strata / baseline`, rounded to 0.001.
    public init(backend: Backend, workload: Workload, strata: Int, baseline: Int) {
        self.backend = backend
        self.workload = workload
        self.strata = strata
        self.baseline = baseline
        self.ratio = baseline > 0 ? Summary.rounded(Double(strata) / Double(baseline), 1_000) : 0
    }
}

/// The instruction ratios a report commits to: what CI's tenth-scale pass is compared with.
public struct InstructionBaseline: Sendable, Codable, Equatable {
    /// The divisor applied to the counts of the runs that were counted.
    public var scale: Int
    /// When they were counted, ISO 8601, UTC.
    public var date: String
    /// The command line that counted them.
    public var command: String
    /// One figure per backend and workload counted.
    public var figures: [InstructionFigure]

    /// A baseline of `figures` counted at `scale`.
    public init(scale: Int, date: String, command: String, figures: [InstructionFigure]) {
        self.scale = scale
        self.date = date
        self.command = command
        self.figures = figures
    }

    /// The figures a run counted (``BenchOptions/instructions``): nil when it counted none.
    public static func of(_ report: BenchReport) -> InstructionBaseline? {
        let figures = report.backends.flatMap { b in
            b.results.compactMap { r -> InstructionFigure? in
                guard let strata = r.strataInstructions, let baseline = r.baselineInstructions else { return nil }
                return InstructionFigure(backend: b.backend, workload: r.workload, strata: strata, baseline: baseline)
            }
        }
        guard !figures.isEmpty else { return nil }
        return InstructionBaseline(
            scale: report.instructionScale ?? report.scale, date: report.date, command: report.command,
            figures: figures)
    }

    /// `self` with `run`'s figures in place of the ones for the same backend and workload, and added where new.
    ///
    /// - Throws: ``BenchError`` when `run` was counted at another scale: its figures would not compare.
    public func updated(with run: InstructionBaseline) throws -> InstructionBaseline {
        try requireScale(of: run)
        var figures = self.figures
        for f in run.figures {
            if let i = figures.firstIndex(where: { $0.backend == f.backend && $0.workload == f.workload }) {
                figures[i] = f
            } else {
                figures.append(f)
            }
        }
        return InstructionBaseline(scale: scale, date: run.date, command: run.command, figures: figures)
    }

    /// How `run`'s ratios compare with these, workload by workload, with `tolerance` the relative change
    /// (0.10: ten per cent) past which a ratio counts as moved.
    ///
    /// - Throws: ``BenchError`` when `run` was counted at another scale.
    public func compare(_ run: InstructionBaseline, tolerance: Double) throws -> InstructionComparison {
        try requireScale(of: run)
        var out = InstructionComparison(tolerance: tolerance)
        for f in run.figures {
            guard let committed = figures.first(where: { $0.backend == f.backend && $0.workload == f.workload }),
                committed.ratio > 0
            else {
                out.uncommitted.append(f)
                continue
            }
            let change = InstructionChange(committed: committed, measured: f)
            if change.change > tolerance {
                out.regressions.append(change)
            } else if change.change < -tolerance {
                out.improvements.append(change)
            } else {
                out.held.append(change)
            }
        }
        return out
    }

    /// Refuses `run` when it was counted at another scale than these figures: its counts would not compare.
    private func requireScale(of run: InstructionBaseline) throws {
        guard run.scale == scale else {
            throw BenchError(
                "the committed instruction figures were counted at 1/\(scale) and this run at 1/\(run.scale): "
                    + "rerun with --instructions-scale \(scale)")
        }
    }
}

/// One workload's ratio then and now.
public struct InstructionChange: Sendable, CustomStringConvertible {
    /// The committed figure.
    public var committed: InstructionFigure
    /// This run's.
    public var measured: InstructionFigure

    /// Whether the change is read from Strata's own counts rather than the ratio: where the baseline is Strata too
    /// (the memory driver's is Strata on `sqlite::memory:`), a faster SQLite path would read as a slower memory
    /// driver, so what is compared there is the memory side's instructions alone.
    public var comparesCounts: Bool { measured.backend == .memory }

    /// The relative change: of the ratio (0.12 is twelve per cent more instructions per baseline instruction), or
    /// of Strata's count where ``comparesCounts``.
    public var change: Double {
        comparesCounts
            ? Double(measured.strata) / Double(max(1, committed.strata)) - 1 : measured.ratio / committed.ratio - 1
    }

    /// `sqlite insert: 1.220 committed, 1.402 now (+14.9 %)`; for the memory driver, its count, then the ratio.
    public var description: String {
        let sign = change >= 0 ? "+" : ""
        let what = "\(measured.backend.rawValue) \(measured.workload.rawValue): "
        let moved = " (\(sign)\(Format.fixed(change * 100, 1)) %)"
        guard comparesCounts else {
            return what + "\(Format.fixed(committed.ratio, 3)) committed, \(Format.fixed(measured.ratio, 3)) now"
                + moved
        }
        return what + "\(Format.fixed(Double(committed.strata) / 1e6, 1))M instructions committed, "
            + "\(Format.fixed(Double(measured.strata) / 1e6, 1))M now\(moved); ratio \(Format.fixed(committed.ratio, 3)) "
            + "then, \(Format.fixed(measured.ratio, 3)) now"
    }
}

/// The result of ``InstructionBaseline/compare(_:tolerance:)``.
public struct InstructionComparison: Sendable {
    /// The relative change past which a ratio moved.
    public var tolerance: Double
    /// Ratios that grew by more than the tolerance: the check fails on any.
    public var regressions: [InstructionChange] = []
    /// Ratios that fell by more than the tolerance: commit them (``InstructionBaseline/updated(with:)``).
    public var improvements: [InstructionChange] = []
    /// Ratios within the tolerance.
    public var held: [InstructionChange] = []
    /// Figures this run counted that have no committed ratio yet.
    public var uncommitted: [InstructionFigure] = []

    /// The lines to print: every workload, the moved ones marked.
    public var lines: [String] {
        let percent = Format.fixed(tolerance * 100, 0)
        return regressions.map { "  REGRESSED by more than \(percent) %: \($0)" }
            + improvements.map { "  improved by more than \(percent) % (commit it with --update-instructions): \($0)" }
            + held.map { "  held: \($0)" }
            + uncommitted.map {
                "  new, not committed: \($0.backend.rawValue) \($0.workload.rawValue) \(Format.fixed($0.ratio, 3))"
            }
    }
}

extension StrataBench {
    /// Compares `report`'s instruction ratios with the ones committed in the report at `path`, printing every
    /// workload through `log`.
    ///
    /// - Returns: the comparison; the check fails when ``InstructionComparison/regressions`` is not empty.
    /// - Throws: ``BenchError`` when the run counted no instructions (no valgrind: a check that did not run is not a
    ///   pass), the file holds no instruction figures, or the scales differ.
    public static func checkInstructions(
        _ report: BenchReport, against path: String, tolerance: Double, log: (String) -> Void
    )
        throws -> InstructionComparison
    {
        guard let measured = InstructionBaseline.of(report) else {
            throw BenchError("this run counted no instructions, so there is nothing to check against \(path)")
        }
        guard let committed = try readReport(path).instructions else {
            throw BenchError("\(path) holds no instruction figures: write them with --update-instructions \(path)")
        }
        let comparison = try committed.compare(measured, tolerance: tolerance)
        log("Instruction ratios against \(path) (counted \(committed.date), 1/\(committed.scale) scale):")
        for line in comparison.lines { log(line) }
        return comparison
    }

    /// Writes `report`'s instruction figures into the report at `path` (created when missing), over the committed
    /// ones of the same backends and workloads; the rest of the file is kept as it was.
    ///
    /// - Throws: ``BenchError`` when the run counted no instructions, or at another scale than the committed ones.
    public static func updateInstructions(_ report: BenchReport, in path: String) throws {
        guard let measured = InstructionBaseline.of(report) else {
            throw BenchError("this run counted no instructions, so there is nothing to write to \(path)")
        }
        var file: BenchReport
        if FileManager.default.fileExists(atPath: path) {
            file = try readReport(path)
            file.instructions = try file.instructions?.updated(with: measured) ?? measured
        } else {
            file = report
            file.instructions = measured
        }
        try encoded(file).write(to: URL(fileURLWithPath: path))
    }

    /// The report a `--json` run wrote at `path`.
    static func readReport(_ path: String) throws -> BenchReport {
        do {
            return try JSONDecoder().decode(BenchReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw BenchError("\(path) is not a strata bench report: \(error)")
        }
    }

    /// A report as `--json` writes it: pretty, keys sorted.
    static func encoded(_ report: BenchReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(report)
    }
}
