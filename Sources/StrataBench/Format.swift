// Format: how figures are spelled in tables and the chart (milliseconds, ratios, megabytes, padding).

enum Format {
    static func ms(_ x: Double) -> String { fixed(x, x >= 100 ? 1 : 2) }
    static func ratio(_ x: Double) -> String { fixed(x, 2) }
    static func mb(_ x: Double) -> String { fixed(x, 1) + " MB" }
    /// `12.3M`, `456.7k`, `890`: an instruction count.
    static func count(_ n: Int) -> String {
        if n >= 1_000_000_000 { return fixed(Double(n) / 1e9, 2) + "G" }
        if n >= 1_000_000 { return fixed(Double(n) / 1e6, 1) + "M" }
        if n >= 1_000 { return fixed(Double(n) / 1e3, 1) + "k" }
        return "\(n)"
    }

    static func duration(_ d: Duration) -> String {
        let c = d.components
        return fixed(Double(c.seconds) + Double(c.attoseconds) / 1e18, 2) + " s"
    }

    /// `x` with exactly `digits` decimals, without Foundation's locale-dependent formatting.
    static func fixed(_ x: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let n = (abs(x) * scale).rounded()
        let whole = Int(n / scale)
        var frac = String(Int(n.truncatingRemainder(dividingBy: scale)))
        while frac.count < digits { frac = "0" + frac }
        let sign = x < 0 && n != 0 ? "-" : ""
        return digits == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(frac)"
    }

    static func padLeft(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
    }

    static func padRight(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
}
