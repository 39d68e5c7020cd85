// TextTable: prints one backend's results as an aligned table (and a Markdown one for the README).

enum TextTable {
    /// `workload | Strata ms | baseline ms | ratio | target | met?`, plus instruction columns when counted,
    /// a row for the bulk floor, and the stream's peak-memory row.
    static func render(_ report: BackendReport) -> String {
        let counted = report.results.contains { $0.strataInstructions != nil }
        var header = ["workload", "Strata ms", shortName(report) + " ms", "ratio", "target", "met?"]
        if counted {
            header += ["Strata instr.", "baseline instr.", "instr. ratio", "allocations (Strata / baseline)"]
        }
        var rows: [[String]] = [header]
        for r in report.results {
            let ratioTarget = r.target?.maxRatio.map { "≤ " + Format.ratio($0) } ?? "—"
            let ratioMet: String
            if let max = r.target?.maxRatio { ratioMet = r.ratio <= max ? "yes" : "NO" } else { ratioMet = "" }
            var row = [
                r.label, Format.ms(r.strataMs), Format.ms(r.baselineMs), Format.ratio(r.ratio), ratioTarget, ratioMet,
            ]
            if counted {
                row += [
                    r.strataInstructions.map(Format.count) ?? "", r.baselineInstructions.map(Format.count) ?? "",
                    r.instructionRatio.map(Format.ratio) ?? "", allocations(r),
                ]
            }
            rows.append(row)
            if let name = r.floorName, let ms = r.floorMs, let ratio = r.floorRatio {
                var floor = ["  vs raw " + name, "", Format.ms(ms), Format.ratio(ratio), "", ""]
                if counted {
                    floor += [
                        "", r.floorInstructions.map(Format.count) ?? "",
                        r.floorInstructionRatio.map(Format.ratio) ?? "", "",
                    ]
                }
                rows.append(floor)
            }
            if let s = r.strataPeakMB {
                let b = r.baselinePeakMB.map(Format.mb) ?? "?"
                let limit = r.target?.maxPeakMB
                let met = limit.map { s < $0 ? "yes" : "NO" } ?? ""
                var peak = ["  peak memory growth", Format.mb(s), b, "", limit.map { "< \(Int($0)) MB" } ?? "", met]
                if counted { peak += ["", "", "", ""] }
                rows.append(peak)
            }
        }
        return align(rows)
    }

    /// `workload | Strata stmt/s | pgbench stmt/s | ratio | target | met?` (higher is better here).
    static func renderThroughput(_ results: [ThroughputResult]) -> String {
        var rows = [["throughput (vs pgbench)", "Strata stmt/s", "pgbench stmt/s", "ratio", "target", "met?"]]
        for r in results {
            rows.append([
                r.label, Format.fixed(r.strataPerSecond, 0), Format.fixed(r.pgbenchPerSecond, 0), Format.ratio(r.ratio),
                "≥ " + Format.ratio(r.minRatio), r.ratio >= r.minRatio ? "yes" : "NO",
            ])
            if let rate = r.floorPerSecond, let ratio = r.floorRatio {
                rows.append(["↳ vs pgbench pipelined", "", Format.fixed(rate, 0), Format.ratio(ratio), "", ""])
            }
        }
        return align(rows)
    }

    /// The server mix: one row per side, then the ratio.
    static func renderServerMix(_ r: ServerMixResult) -> String {
        var rows = [
            [
                r.label, "req/s", "client µs/req", "server µs/req", "switches/req", "task late p99 ms",
                "thread late p99 ms", "threads",
            ]
        ]
        for (name, side) in [("Strata", r.strata), ("libpq, 8 threads", r.raw)] {
            rows.append([
                name, Format.fixed(side.requestsPerSecond, 0), Format.fixed(side.clientMicroseconds, 1),
                side.serverMicroseconds.map { Format.fixed($0, 1) } ?? "?", Format.fixed(side.contextSwitches, 2),
                Format.fixed(side.taskLagP99, 2), Format.fixed(side.threadLagP99, 2),
                side.peakThreads.map(String.init) ?? "?",
            ])
        }
        let met = r.ratio >= r.minRatio ? "met" : "NOT met"
        return align(rows)
            + "\nStrata over libpq: \(Format.ratio(r.ratio)) (target ≥ \(Format.ratio(r.minRatio)): \(met));"
            + " \(r.writesChecked) updates checked against the balances"
    }

    /// The server mix in Markdown.
    static func markdownServerMix(_ r: ServerMixResult) -> String {
        var lines = [
            "| \(r.label) | req/s | client µs/req | server µs/req | switches/req | task late p99 ms | thread late p99 ms"
                + " | threads |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for (name, side) in [("Strata", r.strata), ("libpq, 8 threads", r.raw)] {
            lines.append(
                "| \(name) | \(Format.fixed(side.requestsPerSecond, 0)) | \(Format.fixed(side.clientMicroseconds, 1)) | "
                    + "\(side.serverMicroseconds.map { Format.fixed($0, 1) } ?? "?") | "
                    + "\(Format.fixed(side.contextSwitches, 2)) | \(Format.fixed(side.taskLagP99, 2)) | "
                    + "\(Format.fixed(side.threadLagP99, 2)) | \(side.peakThreads.map(String.init) ?? "?") |")
        }
        lines.append("| Strata over libpq | \(Format.ratio(r.ratio)) (≥ \(Format.ratio(r.minRatio))) | | | | | | |")
        return lines.joined(separator: "\n")
    }

    /// `12.0 / 3.0 per insert`, or the totals where the workload has no unit; empty when not counted.
    static func allocations(_ r: WorkloadResult) -> String {
        guard let s = r.strataAllocations, let b = r.baselineAllocations else { return "" }
        guard let n = r.countedOperations, n > 0, let unit = r.operationUnit else {
            return Format.count(s) + " / " + Format.count(b)
        }
        return Format.fixed(Double(s) / Double(n), 1) + " / " + Format.fixed(Double(b) / Double(n), 1) + " per " + unit
    }

    private static func align(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { c in rows.map { c < $0.count ? $0[c].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { c, cell in
                c == 0 ? Format.padRight(cell, widths[c]) : Format.padLeft(cell, widths[c])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// The same table in Markdown.
    static func markdown(_ report: BackendReport) -> String {
        let counted = report.results.contains { $0.strataInstructions != nil }
        var lines = [
            "| workload | Strata ms | \(shortName(report)) ms | ratio | target | met? |"
                + (counted ? " Strata instr. | baseline instr. | instr. ratio |" : ""),
            "|---|---:|---:|---:|---|---|" + (counted ? "---:|---:|---:|" : ""),
        ]
        for r in report.results {
            let target = r.target?.description ?? "—"
            let met = r.met.map { $0 ? "✅" : "❌" } ?? ""
            var line =
                "| \(r.label) | \(Format.ms(r.strataMs)) | \(Format.ms(r.baselineMs)) | \(Format.ratio(r.ratio)) | \(target) | \(met) |"
            if counted {
                line +=
                    " \(r.strataInstructions.map(Format.count) ?? "") | \(r.baselineInstructions.map(Format.count) ?? "") | \(r.instructionRatio.map(Format.ratio) ?? "") |"
            }
            lines.append(line)
            if let name = r.floorName, let ms = r.floorMs, let ratio = r.floorRatio {
                var floor = "| ↳ vs raw \(name) | | \(Format.ms(ms)) | \(Format.ratio(ratio)) | | |"
                if counted {
                    floor +=
                        " | \(r.floorInstructions.map(Format.count) ?? "") | \(r.floorInstructionRatio.map(Format.ratio) ?? "") |"
                }
                lines.append(floor)
            }
            if let s = r.strataPeakMB {
                lines.append(
                    "| ↳ peak memory growth | \(Format.mb(s)) | \(r.baselinePeakMB.map(Format.mb) ?? "?") | | | |"
                        + (counted ? " | | |" : ""))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The throughput table in Markdown.
    static func markdownThroughput(_ results: [ThroughputResult]) -> String {
        var lines = [
            "| throughput (vs pgbench, same server) | Strata stmt/s | pgbench stmt/s | ratio | target | met? |",
            "|---|---:|---:|---:|---|---|",
        ]
        for r in results {
            lines.append(
                "| \(r.label) (`\(r.pgbench)`) | \(Format.fixed(r.strataPerSecond, 0)) | \(Format.fixed(r.pgbenchPerSecond, 0)) | \(Format.ratio(r.ratio)) | ≥ \(Format.ratio(r.minRatio)) | \(r.ratio >= r.minRatio ? "✅" : "❌") |"
            )
            if let shown = r.floorPgbench, let rate = r.floorPerSecond, let ratio = r.floorRatio {
                lines.append("| ↳ vs `\(shown)` | | \(Format.fixed(rate, 0)) | \(Format.ratio(ratio)) | | |")
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func shortName(_ report: BackendReport) -> String {
        switch report.backend {
        case .sqlite: return "libsqlite3"
        case .postgres: return "libpq"
        case .memory: return "sqlite::memory:"
        }
    }
}
