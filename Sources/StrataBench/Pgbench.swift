// Pgbench: finds and runs PostgreSQL's pgbench against the benchmark's server and reads its rate.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `pgbench` of PostgreSQL 15, run as a child process with the same connection settings.
struct Pgbench {
    let path: String
    /// Passed as pgbench's database name, which libpq reads as a connection URI.
    let url: String

    /// pgbench from postgresql-15 (`/usr/lib/postgresql/15/bin/pgbench`), else the first on `PATH`.
    static func find() -> String? {
        let fm = FileManager.default
        var candidates = ["/usr/lib/postgresql/15/bin/pgbench"]
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { "\($0)/pgbench" }
        return candidates.first { fm.isExecutableFile(atPath: $0) }
    }

    /// Runs pgbench with `arguments` (the URL is added last) and returns what it printed.
    func run(_ arguments: [String]) throws -> String {
        let (status, text) = try ChildProcess.run(path, arguments + [url])
        guard status == 0 else {
            throw BenchError("pgbench \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    /// The `tps = N (without initial connection time)` figure of a pgbench run's output.
    static func rate(in output: String) -> Double? {
        for line in output.split(separator: "\n") where line.hasPrefix("tps = ") {
            let number = line.dropFirst("tps = ".count).prefix { $0.isNumber || $0 == "." }
            return Double(number)
        }
        return nil
    }
}
