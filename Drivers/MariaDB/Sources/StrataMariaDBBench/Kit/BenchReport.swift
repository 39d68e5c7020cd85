// BenchReport: the results as a text table and as JSON, with the date, the load average and the command.
import Foundation

/// What one run of the bench measured, and under what conditions.
public struct BenchReport: Codable, Sendable {
    public var date: String
    /// `/proc/loadavg`'s three figures when the run ended.
    public var loadAverage: String
    public var command: String
    public var iterations: Int
    public var scale: Int
    public var results: [WorkloadResult]

    public init(command: [String], options: BenchOptions, results: [WorkloadResult]) {
        date = ISO8601DateFormatter().string(from: Date())
        loadAverage = Self.loadAverage()
        self.command = command.joined(separator: " ")
        iterations = options.iterations
        scale = options.scale
        self.results = results
    }

    static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// The header of ``row(_:)``'s table.
    public static let header =
        "workload".padding(toLength: 62, withPad: " ", startingAt: 0)
        + "  Strata ms     raw ms   ratio  checksum (equal)"

    /// One workload's line: both medians, Strata / raw, and the checksum both sides agreed on.
    public static func row(_ r: WorkloadResult) -> String {
        func ms(_ v: Double) -> String {
            let s = String(format: "%.1f", v)
            return String(repeating: " ", count: max(0, 9 - s.count)) + s
        }
        let flag = r.ratio > 1.2 ? " !" : "  "
        return r.label.padding(toLength: 62, withPad: " ", startingAt: 0) + "  " + ms(r.strataMedian) + "  "
            + ms(r.rawMedian) + "  " + (r.ratio == 0 ? "    -" : String(format: "%5.2f", r.ratio)) + flag + r.checksum
    }

    /// The report as JSON.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
