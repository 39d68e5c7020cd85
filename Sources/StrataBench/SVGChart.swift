// SVGChart: a hand-written SVG bar chart of the ratios (log scale) with each workload's target marked.
import Foundation

/// Draws one horizontal bar per workload and backend: Strata's median over the baseline's.
///
/// The axis is logarithmic (0.05× to 5×) so that the memory driver's "5× faster" and PostgreSQL's
/// overheads read on one chart; the line at 1 is parity, a red tick is the target. Green bars meet
/// their ratio target, orange ones miss it, grey ones have none; the stream adds its peak memory growth.
enum SVGChart {
    private static let width = 1_080.0
    private static let labelWidth = 250.0
    private static let plotLeft = labelWidth + 16
    private static let plotWidth = 620.0
    private static let rowHeight = 24.0
    private static let minRatio = 0.05
    private static let maxRatio = 5.0
    private static let ticks = [0.05, 0.1, 0.2, 0.5, 1, 2, 5]

    static func render(_ report: BenchReport) -> String {
        let backends = report.backends.filter { $0.skipped == nil && !$0.results.isEmpty }
        let rows = backends.reduce(0) { $0 + $1.results.count }
        let height = 140 + Double(rows) * rowHeight + Double(backends.count) * 34
        var out: [String] = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\""
                + " viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"Helvetica, Arial, sans-serif\""
                + " font-size=\"13\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>",
            text(16, 26, "Strata ÷ baseline, median time (lower is better)", "font-size=\"17\" font-weight=\"bold\""),
            text(16, 46, "\(report.command) · \(report.date) · \(report.host)", "font-size=\"12\" fill=\"#555\""),
        ]
        var y = 70.0
        let plotTop = y
        for b in backends {
            y += 26
            out.append(text(16, y, "\(b.title) vs \(b.baselineName)", "font-weight=\"bold\""))
            y += 8
            for r in b.results {
                out += bar(r, top: y)
                y += rowHeight
            }
        }
        let plotBottom = y + 6
        for t in ticks {
            let tx = x(t)
            out.append(line(tx, plotTop, tx, plotBottom, t == 1 ? "stroke=\"#333\"" : "stroke=\"#ddd\""))
            out.append(text(tx, plotBottom + 16, tickLabel(t), "text-anchor=\"middle\" fill=\"#555\""))
        }
        out.append(
            text(
                plotLeft, plotBottom + 36,
                "log scale · red tick: target · green: met · orange: missed · grey: no target", "fill=\"#555\""))
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    /// The label, bar, value and target tick of one result whose row starts at `top`.
    private static func bar(_ r: WorkloadResult, top: Double) -> [String] {
        let start = x(minRatio)
        let end = x(r.ratio)
        let color = r.target?.maxRatio.map { r.ratio <= $0 ? "#3a9d5d" : "#e08a1e" } ?? "#9a9a9a"
        var value = Format.ratio(r.ratio) + "×"
        if let peak = r.strataPeakMB {
            value += " · peak +\(Format.mb(peak))" + (r.target?.maxPeakMB.map { peak < $0 ? " ✓" : " ✗" } ?? "")
        }
        var out = [
            text(labelWidth, top + 16, r.label, "text-anchor=\"end\""),
            "<rect x=\"\(n(start))\" y=\"\(n(top + 3))\" width=\"\(n(max(1, end - start)))\""
                + " height=\"\(n(rowHeight - 6))\" fill=\"\(color)\"/>",
        ]
        if let t = r.target?.maxRatio {
            out.append(line(x(t), top + 1, x(t), top + rowHeight - 1, "stroke=\"#c62828\" stroke-width=\"3\""))
        }
        out.append(text(max(end, x(r.target?.maxRatio ?? 0)) + 6, top + 16, value, ""))
        return out
    }

    private static func text(_ x: Double, _ y: Double, _ content: String, _ attributes: String) -> String {
        "<text x=\"\(n(x))\" y=\"\(n(y))\" \(attributes)>\(escape(content))</text>"
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ attributes: String) -> String {
        "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" \(attributes)/>"
    }

    /// The horizontal position of a ratio on the log axis (clamped to its ends).
    private static func x(_ ratio: Double) -> Double {
        let r = min(max(ratio, minRatio), maxRatio)
        return plotLeft + plotWidth * (log(r) - log(minRatio)) / (log(maxRatio) - log(minRatio))
    }

    private static func tickLabel(_ t: Double) -> String {
        t >= 1 ? "\(Int(t))×" : Format.fixed(t, t < 0.1 ? 2 : 1) + "×"
    }

    private static func n(_ v: Double) -> String { Format.fixed(v, 1) }

    private static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
