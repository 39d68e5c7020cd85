// ThroughputRunner: statements per second from 64 tasks through pool=8, beside pgbench on the same server.
import Foundation
import Strata
import StrataPostgres

/// Runs the throughput workloads (``Workload/sleep``, ``Workload/pointSelect``): Strata from 64 tasks
/// sharing a pool of 8 connections, then pgbench with 8 clients on 2 threads, alternating, each for
/// ``BenchOptions/throughputSeconds``; connections are opened and statements prepared before the clock
/// starts on both sides (pgbench's `tps` excludes its connection time).
struct ThroughputRunner {
    let options: BenchOptions
    let pgbench: Pgbench
    let log: (String) -> Void

    static let tasks = 64
    static let pool = 8
    /// Accounts `pgbench -i -s 1` creates.
    static let scale = 1
    static let accounts = 100_000 * scale
    /// What each workload should reach, as a share of pgbench's rate.
    static let minRatio = 0.9

    func run(_ workloads: [Workload]) async throws -> [ThroughputResult] {
        let db = try Database.open(
            options.postgresURL, drivers: [.postgres],
            configuration: options.configuration(Configuration(maxConnections: Self.pool, migration: .disabled)))
        defer { db.close() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pgbench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var results: [ThroughputResult] = []
        for w in workloads {
            switch w {
            case .sleep:
                let script = dir.appendingPathComponent("sleep.sql").path
                try "SELECT pg_sleep(0.001);\n".write(toFile: script, atomically: true, encoding: .utf8)
                results.append(
                    try await compare(
                        w, pgbenchArguments: ["-n", "-f", script, "-c", "8", "-j", "2"],
                        shown: "pgbench -n -f sleep.sql -c 8 -j 2"
                    ) { _ in
                        _ = try await db.unsafeRawExecute("SELECT pg_sleep(0.001)")
                    })
            case .pointSelect:
                log("  pgbench -i -s \(Self.scale)…")
                _ = try pgbench.run(["-i", "-q", "-s", "\(Self.scale)"])
                defer { _ = try? pgbench.run(["-i", "-I", "d"]) }
                // Strata groups the lookups that queue for a busy connection under one Sync (up to 8); pgbench -S
                // sends each alone. The same lookups pipelined 8 per Sync by pgbench are the fair floor for that.
                let pipelined = dir.appendingPathComponent("select-pipelined.sql").path
                let sets = (1...Self.group).map { "\\set aid\($0) random(1, \(Self.accounts))" }
                let selects = (1...Self.group).map { "SELECT abalance FROM pgbench_accounts WHERE aid = :aid\($0);" }
                try (sets + ["\\startpipeline"] + selects + ["\\endpipeline"]).joined(separator: "\n")
                    .appending("\n").write(toFile: pipelined, atomically: true, encoding: .utf8)
                let floor = Floor(
                    arguments: ["-n", "-f", pipelined, "-c", "8", "-j", "2", "-M", "prepared"],
                    shown: "pgbench -n -f select-pipelined.sql -c 8 -j 2 -M prepared (\(Self.group) lookups per Sync)",
                    statements: Double(Self.group))
                results.append(
                    try await compare(
                        w, pgbenchArguments: ["-n", "-S", "-c", "8", "-j", "2", "-M", "prepared"],
                        shown: "pgbench -n -S -c 8 -j 2 -M prepared", floor: floor
                    ) { random in
                        let aid = Int64(random.next() % UInt64(Self.accounts)) + 1
                        guard let account = try await PgbenchAccount.find(aid, on: db), account.id == aid else {
                            throw BenchError("pgbench_accounts has no row \(aid): pgbench -i did not fill it")
                        }
                    })
            default:
                continue
            }
        }
        return results
    }

    /// Lookups per pipelined group in the pipelined pgbench script (the statement loop's group limit).
    static let group = 8

    /// A second pgbench run beside the first: its arguments, how it is shown, and statements per pgbench transaction.
    struct Floor {
        let arguments: [String]
        let shown: String
        let statements: Double
    }

    /// Alternates pgbench and Strata runs (and the floor's pgbench, if any) and summarizes the rates.
    private func compare(
        _ w: Workload, pgbenchArguments: [String], shown: String, floor: Floor? = nil,
        _ statement: @escaping @Sendable (inout SplitMix) async throws -> Void
    ) async throws -> ThroughputResult {
        let seconds = options.throughputSeconds
        let runs = max(1, min(options.iterations, 3))
        log("  \(w.rawValue): \(runs) runs per side of \(Format.fixed(seconds, 1)) s…")
        _ = try await strataRate(seconds: min(1, seconds), statement)  // opens the 8 connections, prepares
        var strata: [Double] = []
        var bench: [Double] = []
        var floorRates: [Double] = []
        // CPU microseconds per statement: Strata's process (all its threads), pgbench's (a child).
        var strataCPU: [Double] = []
        var benchCPU: [Double] = []
        for i in 0..<runs {
            let sides = floor == nil ? [0, 1] : [0, 1, 2]
            for k in sides.indices {
                let side = sides[(k + i) % sides.count]  // each side first in turn
                let before = ProcessCPU.now()
                if side == 2, let floor {
                    let (rate, used) = try timedPgbench(floor.arguments, seconds: seconds, statements: floor.statements)
                    floorRates.append(rate)
                    log(
                        "    pgbench pipelined \(Format.fixed(rate, 0))/s, \(used.perStatement(rate * seconds.rounded(.up)))"
                    )
                } else if side == 0 {
                    let (rate, used) = try timedPgbench(pgbenchArguments, seconds: seconds, statements: 1)
                    bench.append(rate)
                    let statements = rate * seconds.rounded(.up)
                    benchCPU.append(used.seconds / statements * 1e6)
                    log("    pgbench \(Format.fixed(rate, 0))/s, \(used.perStatement(statements))")
                } else {
                    let sent = PostgresLoopCounters.statements.load(ordering: .relaxed)
                    let groups = PostgresLoopCounters.groups.load(ordering: .relaxed)
                    let rate = try await strataRate(seconds: seconds.rounded(.up), statement)
                    strata.append(rate)
                    let used = ProcessCPU.now().ownUsage - before.ownUsage
                    let statements = rate * seconds.rounded(.up)
                    strataCPU.append(used.seconds / statements * 1e6)
                    let looped = PostgresLoopCounters.statements.load(ordering: .relaxed) - sent
                    let grouped = PostgresLoopCounters.groups.load(ordering: .relaxed) - groups
                    let mean = grouped > 0 ? ", \(Format.fixed(Double(looped) / Double(grouped), 1)) per group" : ""
                    log("    strata  \(Format.fixed(rate, 0))/s, \(used.perStatement(statements))\(mean)")
                }
            }
        }
        let s = Summary.median(strata)
        let b = Summary.median(bench)
        let f = floorRates.isEmpty ? nil : Summary.median(floorRates)
        if let f {
            log(
                "  \(w.rawValue): strata over pgbench pipelined \(Format.fixed(f, 0))/s: \(Format.fixed(f > 0 ? s / f : 0, 3))×"
            )
        }
        log(
            "  \(w.rawValue): strata \(Format.fixed(s, 0))/s, pgbench \(Format.fixed(b, 0))/s (\(Format.fixed(b > 0 ? s / b : 0, 3))×);"
                + " CPU per statement (median): strata \(Format.fixed(Summary.median(strataCPU), 1)) µs,"
                + " pgbench \(Format.fixed(Summary.median(benchCPU), 1)) µs")
        return ThroughputResult(
            workload: w, label: w.label(WorkloadSizes(scale: 1)), pgbench: shown, seconds: seconds.rounded(.up),
            strataPerSecond: Summary.rounded(s, 1), pgbenchPerSecond: Summary.rounded(b, 1),
            ratio: b > 0 ? Summary.rounded(s / b, 1_000) : 0, minRatio: Self.minRatio,
            strataRuns: strata.map { Summary.rounded($0, 1) }, pgbenchRuns: bench.map { Summary.rounded($0, 1) },
            floorPgbench: floor?.shown, floorPerSecond: f.map { Summary.rounded($0, 1) },
            floorRatio: f.map { Summary.rounded($0 > 0 ? s / $0 : 0, 1_000) })
    }

    /// One pgbench run of `seconds` (rounded up): its statements per second (`statements` per pgbench transaction)
    /// and the CPU it used.
    private func timedPgbench(_ arguments: [String], seconds: Double, statements: Double) throws
        -> (rate: Double, used: ProcessCPU.Usage)
    {
        let before = ProcessCPU.now()
        let out = try pgbench.run(arguments + ["-T", "\(Int(seconds.rounded(.up)))"])
        guard let tps = Pgbench.rate(in: out) else { throw BenchError("pgbench printed no tps: \(out)") }
        return (tps * statements, ProcessCPU.now().childrenUsage - before.childrenUsage)
    }

    /// Statements per second that 64 tasks complete in `seconds`, each running `statement` in a loop.
    private func strataRate(seconds: Double, _ statement: @escaping @Sendable (inout SplitMix) async throws -> Void)
        async throws -> Double
    {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .milliseconds(Int64(seconds * 1_000))
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for t in 0..<Self.tasks {
                group.addTask {
                    var random = SplitMix(seed: UInt64(t) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
                    var done = 0
                    while clock.now < deadline {
                        try await statement(&random)
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = start.duration(to: clock.now).components
        return Double(total) / (Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
    }
}

/// A small, fast, seedable random generator (SplitMix64), one per task.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
