// TextTable: prints one backend's results as an aligned table (and a Markdown one for the README).

enum TextTable {
    /// `workload | Strata ms | baseline ms | ratio | target | met?`, plus the stream's peak-memory row.
    static func render(_ report: BackendReport) -> String {
        var rows: [[String]] = [["workload", "Strata ms", shortName(report) + " ms", "ratio", "target", "met?"]]
        for r in report.results {
            let ratioTarget = r.target?.maxRatio.map { "≤ " + Format.ratio($0) } ?? "—"
            let ratioMet: String
            if let max = r.target?.maxRatio { ratioMet = r.ratio <= max ? "yes" : "NO" } else { ratioMet = "" }
            rows.append([
                r.label + (r.checksumsMatch ? "" : " (!)"), Format.ms(r.strataMs), Format.ms(r.baselineMs),
                Format.ratio(r.ratio), ratioTarget, ratioMet,
            ])
            if let s = r.strataPeakMB {
                let b = r.baselinePeakMB.map(Format.mb) ?? "?"
                let limit = r.target?.maxPeakMB
                let met = limit.map { s < $0 ? "yes" : "NO" } ?? ""
                rows.append(["  peak memory growth", Format.mb(s), b, "", limit.map { "< \(Int($0)) MB" } ?? "", met])
            }
        }
        let widths = (0..<6).map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { c, cell in
                c == 0 ? Format.padRight(cell, widths[c]) : Format.padLeft(cell, widths[c])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// The same table in Markdown.
    static func markdown(_ report: BackendReport) -> String {
        var lines = [
            "| workload | Strata ms | \(shortName(report)) ms | ratio | target | met? |",
            "|---|---:|---:|---:|---|---|",
        ]
        for r in report.results {
            let target = r.target?.description ?? "—"
            let met = r.met.map { $0 ? "✅" : "❌" } ?? ""
            lines.append(
                "| \(r.label) | \(Format.ms(r.strataMs)) | \(Format.ms(r.baselineMs)) | \(Format.ratio(r.ratio)) | \(target) | \(met) |"
            )
            if let s = r.strataPeakMB {
                lines.append(
                    "| ↳ peak memory growth | \(Format.mb(s)) | \(r.baselinePeakMB.map(Format.mb) ?? "?") | | | |")
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
