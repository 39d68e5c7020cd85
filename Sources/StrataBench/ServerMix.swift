// ServerMix: a server's load on PostgreSQL (lookups, pages, read-and-update transactions) from 64 tasks through
// Strata, against the same statements through libpq from 8 threads, and what the rest of the process feels meanwhile.
import CPostgres
import Foundation
import Strata
import StrataPostgres
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One side of ``Workload/serverMix``: its rate, what each request cost the client and the server, and how the
/// process's other work fared.
public struct ServerMixSide: Sendable, Codable {
    /// Requests per second (a lookup, a page or a transaction is one request).
    public var requestsPerSecond: Double
    /// This process's CPU per request, microseconds (every thread).
    public var clientMicroseconds: Double
    /// The server's CPU per request, microseconds: its backends' and background processes' (Linux `/proc`), or nil.
    public var serverMicroseconds: Double?
    /// This process's context switches per request.
    public var contextSwitches: Double
    /// How late a task sleeping 1 ms at a time woke, 99th percentile, milliseconds: what an async request handler
    /// that does not touch the database waits for a cooperative thread.
    public var taskLagP99: Double
    /// How late a thread sleeping 1 ms at a time woke, 99th percentile, milliseconds: what an event loop waits for
    /// a core.
    public var threadLagP99: Double
    /// The most threads the process had while the side ran (Linux), or nil: all of them, the bystander's and the
    /// other side's idle ones included (Strata's connection threads wait idle while libpq runs; libpq's threads end
    /// with each of its runs).
    public var peakThreads: Int?
    /// This process's calls into the C allocator per request (every thread's), or nil where they are not counted.
    public var allocations: Double? = nil
}

/// The result of ``Workload/serverMix``.
public struct ServerMixResult: Sendable, Codable {
    public var label: String
    /// What the raw side is.
    public var baseline: String
    /// Seconds per timed run.
    public var seconds: Double
    /// The medians of each side's runs.
    public var strata: ServerMixSide
    public var raw: ServerMixSide
    /// Strata's requests per second over libpq's: higher is better.
    public var ratio: Double
    /// The least ratio asked for.
    public var minRatio: Double
    /// Every write transaction committed by both sides, checked against the sum of the balances after each run
    /// (a lost update would show as a smaller sum).
    public var writesChecked: Int
}

extension ThroughputRunner {
    /// Requests from one side: `(kind, aid)` chosen the same way on both sides.
    enum MixRequest {
        case lookup(Int64)
        case page(Int64)
        case update(Int64)

        /// 6 lookups, 2 pages and 2 read-and-update transactions in 10.
        init(_ random: inout SplitMix) {
            let draw = random.next()
            let aid = Int64((draw >> 8) % UInt64(ThroughputRunner.accounts)) + 1
            switch draw % 10 {
            case 0..<6: self = .lookup(aid)
            case 6..<8: self = .page(aid)
            default: self = .update(aid)
            }
        }
    }

    /// What the mix should reach, as a share of libpq's rate from 8 threads.
    static let serverMixMinRatio = 0.8

    /// The page request: the 20 accounts at and below `aid`, newest key first (a backward scan of the key's index).
    static let pageSize = 20

    /// Runs the mix: `pgbench -i` fills the accounts, then Strata and libpq alternate.
    func serverMix() async throws -> ServerMixResult {
        log("  pgbench -i -s \(Self.scale)…")
        _ = try pgbench.run(["-i", "-q", "-s", "\(Self.scale)"])
        defer { _ = try? pgbench.run(["-i", "-I", "d"]) }
        let db = try Database.open(
            options.postgresURL, drivers: [.postgres],
            configuration: options.configuration(Configuration(maxConnections: Self.pool, migration: .disabled)))
        defer { db.close() }
        let probe = try RawPostgres(url: options.postgresURL)
        let server = ServerCPU(backendPID: try probe.scalar("SELECT pg_backend_pid()"))
        let balance = { try probe.scalar("SELECT sum(abalance)::bigint FROM pgbench_accounts") }

        let seconds = options.throughputSeconds.rounded(.up)
        let runs = max(1, min(options.iterations, 3))
        log("  \(Workload.serverMix.rawValue): \(runs) runs per side of \(Format.fixed(seconds, 1)) s…")
        _ = try await strataMix(db, seconds: 1)  // opens the 8 connections, prepares
        let connections = try rawConnections()
        var sides: [[ServerMixSide]] = [[], []]
        var writes = 0
        for i in 0..<runs {
            for k in 0..<2 {
                let side = (k + i) % 2  // each side first in turn
                let before = (balance: try balance(), cpu: ProcessCPU.now(), server: server.snapshot())
                let watch = Bystanders.start()
                let started = ContinuousClock.now
                let done =
                    side == 0 ? try await strataMix(db, seconds: seconds) : try rawMix(connections, seconds: seconds)
                let elapsed = (ContinuousClock.now - started).components
                let elapsedSeconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
                let lags = await watch.stop()
                let used = ProcessCPU.now().ownUsage - before.cpu.ownUsage
                let serverUsed = ServerCPU.seconds(from: before.server, to: server.snapshot())
                let added = try balance() - before.balance
                guard added == Int64(done.writes) else {
                    throw BenchError(
                        "\(side == 0 ? "Strata" : "libpq") committed \(done.writes) updates, the balances grew by "
                            + "\(added): an update was lost")
                }
                writes += done.writes
                let result = ServerMixSide(
                    requestsPerSecond: Double(done.requests) / elapsedSeconds,
                    clientMicroseconds: used.seconds / Double(max(1, done.requests)) * 1e6,
                    serverMicroseconds: serverUsed.map { $0 / Double(max(1, done.requests)) * 1e6 },
                    contextSwitches: used.switches / Double(max(1, done.requests)), taskLagP99: lags.task,
                    threadLagP99: lags.thread, peakThreads: lags.peakThreads,
                    allocations: used.allocations.map { $0 / Double(max(1, done.requests)) })
                sides[side].append(result)
                log("    \(side == 0 ? "strata" : "libpq ") \(Self.describe(result))")
            }
        }
        let strata = Self.median(sides[0])
        let raw = Self.median(sides[1])
        let ratio = raw.requestsPerSecond > 0 ? strata.requestsPerSecond / raw.requestsPerSecond : 0
        log("  \(Workload.serverMix.rawValue): strata over libpq \(Format.fixed(ratio, 3))×")
        return ServerMixResult(
            label: Workload.serverMix.label(WorkloadSizes(scale: 1)),
            baseline: "the same statements through libpq (prepared) from 8 threads", seconds: seconds,
            strata: strata, raw: raw, ratio: Summary.rounded(ratio, 1_000), minRatio: Self.serverMixMinRatio,
            writesChecked: writes)
    }

    static func describe(_ s: ServerMixSide) -> String {
        "\(Format.fixed(s.requestsPerSecond, 0)) req/s, client \(Format.fixed(s.clientMicroseconds, 1)) µs"
            + ", server \(s.serverMicroseconds.map { Format.fixed($0, 1) } ?? "?") µs"
            + ", \(Format.fixed(s.contextSwitches, 2)) switches"
            + (s.allocations.map { ", \(Format.fixed($0, 1)) allocations" } ?? "")
            + " per request; bystander p99 late: task "
            + "\(Format.fixed(s.taskLagP99, 2)) ms, thread \(Format.fixed(s.threadLagP99, 2)) ms; "
            + "peak threads \(s.peakThreads.map(String.init) ?? "?")"
    }

    /// Each figure's median over the runs.
    private static func median(_ runs: [ServerMixSide]) -> ServerMixSide {
        func m(_ f: (ServerMixSide) -> Double) -> Double { Summary.median(runs.map(f)) }
        let servers = runs.compactMap(\.serverMicroseconds)
        let threads = runs.compactMap(\.peakThreads)
        let allocations = runs.compactMap(\.allocations)
        return ServerMixSide(
            requestsPerSecond: Summary.rounded(m(\.requestsPerSecond), 1),
            clientMicroseconds: Summary.rounded(m(\.clientMicroseconds), 10),
            serverMicroseconds: servers.isEmpty ? nil : Summary.rounded(Summary.median(servers), 10),
            contextSwitches: Summary.rounded(m(\.contextSwitches), 100),
            taskLagP99: Summary.rounded(m(\.taskLagP99), 100), threadLagP99: Summary.rounded(m(\.threadLagP99), 100),
            peakThreads: threads.max(),
            allocations: allocations.isEmpty ? nil : Summary.rounded(Summary.median(allocations), 10))
    }

    /// Requests and committed updates that 64 tasks complete through Strata in `seconds`.
    private func strataMix(_ db: Database, seconds: Double) async throws -> (requests: Int, writes: Int) {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1_000))
        return try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for t in 0..<Self.tasks {
                group.addTask {
                    var random = SplitMix(seed: UInt64(t) &* 0x9E37_79B9_7F4A_7C15 &+ 7)
                    var done = (requests: 0, writes: 0)
                    repeat {  // at least one request each, however late a busy machine starts the task
                        switch MixRequest(&random) {
                        case .lookup(let aid):
                            guard try await PgbenchAccount.find(aid, on: db)?.id == aid else {
                                throw BenchError("pgbench_accounts has no row \(aid)")
                            }
                        case .page(let aid):
                            let page = try await PgbenchAccount.query(on: db).where(\.id <= aid)
                                .order(\.id, .descending).limit(Self.pageSize).all()
                            guard page.first?.id == aid else { throw BenchError("the page at \(aid) is wrong") }
                        case .update(let aid):
                            try await db.transaction { tx in
                                guard
                                    var account = try PgbenchAccount.query(on: tx).where(\.id == aid).forUpdate()
                                        .first()
                                else { throw BenchError("pgbench_accounts has no row \(aid)") }
                                account.abalance += 1
                                try account.save(tx)
                            }
                            done.writes += 1
                        }
                        done.requests += 1
                    } while ContinuousClock.now < deadline
                    return done
                }
            }
            return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
    }

    /// The raw side's 8 connections with the statements prepared, kept open across its runs: a backend that exits
    /// takes its CPU time with it (``ServerCPU``).
    private func rawConnections() throws -> [RawPostgres] {
        try (0..<Self.pool).map { _ in
            let c = try RawPostgres(url: options.postgresURL)
            try c.prepare("lookup", "SELECT aid, abalance FROM pgbench_accounts WHERE aid = $1", parameters: 1)
            try c.prepare(
                "page", "SELECT aid, abalance FROM pgbench_accounts WHERE aid <= $1 ORDER BY aid DESC LIMIT $2",
                parameters: 2)
            try c.prepare("lock", "SELECT aid, abalance FROM pgbench_accounts WHERE aid = $1 FOR UPDATE", parameters: 1)
            try c.prepare("update", "UPDATE pgbench_accounts SET abalance = $1 WHERE aid = $2", parameters: 2)
            return c
        }
    }

    /// The same requests through libpq from 8 threads, each with its own connection and prepared statements.
    private func rawMix(_ connections: [RawPostgres], seconds: Double) throws -> (requests: Int, writes: Int) {
        let outcomes = Collected<Result<(Int, Int), any Error>>()
        let group = DispatchGroup()
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1_000))
        for (t, c) in connections.enumerated() {
            nonisolated(unsafe) let connection = c
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                let outcome = Result { try Self.rawLoop(connection, seed: UInt64(t) &+ 11, until: deadline) }
                outcomes.values.withLock { $0.append(outcome) }
            }
            thread.start()
        }
        group.wait()
        return try outcomes.values.withLock { all in
            try all.reduce((requests: 0, writes: 0)) { sum, outcome in
                let (requests, writes) = try outcome.get()
                return (sum.requests + requests, sum.writes + writes)
            }
        }
    }

    /// One libpq thread's loop: what a C server would do for each request.
    private static func rawLoop(_ c: RawPostgres, seed: UInt64, until deadline: ContinuousClock.Instant) throws -> (
        Int, Int
    ) {
        let params = TextParams()
        var random = SplitMix(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 7)
        var done = (requests: 0, writes: 0)
        func run(_ name: String, _ bind: (TextParams) -> Void) throws -> OpaquePointer {
            params.removeAll()
            bind(params)
            return try c.run(name, params)
        }
        repeat {  // at least one request, however late a busy machine starts the thread
            switch MixRequest(&random) {
            case .lookup(let aid):
                let r = try run("lookup") { $0.append(aid) }
                defer { PQclear(r) }
                guard PQntuples(r) == 1, RawPostgres.int64(r, 0, 0) == aid else {
                    throw BenchError("pgbench_accounts has no row \(aid)")
                }
            case .page(let aid):
                let r = try run("page") {
                    $0.append(aid)
                    $0.append(pageSize)
                }
                defer { PQclear(r) }
                guard PQntuples(r) > 0, RawPostgres.int64(r, 0, 0) == aid else {
                    throw BenchError("the page at \(aid) is wrong")
                }
                var sum: Int64 = 0  // read every row, as Strata decodes every row
                for row in 0..<PQntuples(r) { sum &+= RawPostgres.int64(r, row, 1) }
                _ = sum
            case .update(let aid):
                try c.exec("BEGIN")
                let r = try run("lock") { $0.append(aid) }
                let balance = RawPostgres.int64(r, 0, 1)
                PQclear(r)
                PQclear(
                    try run("update") {
                        $0.append(balance + 1)
                        $0.append(aid)
                    })
                try c.exec("COMMIT")
                done.writes += 1
            }
            done.requests += 1
        } while ContinuousClock.now < deadline
        return done
    }
}

/// The server's CPU seconds so far: its postmaster's children (backends, writers, checkpointer), from Linux's
/// `/proc`; nil elsewhere or when unreadable. Backends that exit take their CPU with them, so read it while the
/// measured connections are open.
struct ServerCPU {
    let postmaster: Int32?

    init(backendPID: Int64) {
        postmaster = Self.stat(Int32(backendPID)).map(\.ppid)
    }

    /// Each server process's clock ticks so far, by pid.
    func snapshot() -> [Int32: Int]? {
        #if os(Linux)
            guard let postmaster,
                let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc")
            else { return nil }
            var ticks: [Int32: Int] = [:]
            for entry in entries {
                guard let pid = Int32(entry), let s = Self.stat(pid), s.ppid == postmaster else { continue }
                ticks[pid] = s.ticks
            }
            return ticks
        #else
            return nil
        #endif
    }

    /// The server's CPU seconds between two snapshots: what each process still running used since the first (all
    /// of it for one started since). A backend of another client that exited meanwhile took its CPU with it, and
    /// is left out rather than subtracted.
    static func seconds(from before: [Int32: Int]?, to after: [Int32: Int]?) -> Double? {
        #if os(Linux)
            guard let before, let after else { return nil }
            let ticks = after.reduce(0) { $0 + max(0, $1.value - (before[$1.key] ?? 0)) }
            return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
        #else
            return nil
        #endif
    }

    /// The parent and the user plus system clock ticks of `pid`, from `/proc/pid/stat`.
    private static func stat(_ pid: Int32) -> (ppid: Int32, ticks: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm) ": state, ppid, … field 14 utime and 15 stime (counting from 1 at pid).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let ppid = Int32(fields[1]), let user = Int(fields[11]), let system = Int(fields[12])
        else { return nil }
        return (ppid, user + system)
    }
}

/// A task and a thread that sleep 1 ms at a time while a side runs, and how late each wakes; and the process's
/// threads, counted each time the thread wakes.
final class Bystanders: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let taskLags = Mutex<[Double]>([])
    private let threadLags = Mutex<[Double]>([])
    private let peak = Atomic<Int>(0)
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let threadDone = DispatchSemaphore(value: 0)

    static func start() -> Bystanders {
        let watch = Bystanders()
        let task = Task.detached {
            var lags: [Double] = []
            while !watch.stopped.load(ordering: .relaxed) {
                let start = ContinuousClock.now
                try? await Task.sleep(for: .milliseconds(1))
                lags.append(lateMilliseconds(since: start))
            }
            watch.taskLags.withLock { $0 = lags }
        }
        watch.task.withLock { $0 = task }
        let thread = Thread {
            var lags: [Double] = []
            var n = 0
            while !watch.stopped.load(ordering: .relaxed) {
                let start = ContinuousClock.now
                usleep(1_000)
                lags.append(lateMilliseconds(since: start))
                if n % 10 == 0, let count = threads() { watch.peak.max(count, ordering: .relaxed) }
                n += 1
            }
            watch.threadLags.withLock { $0 = lags }
            watch.threadDone.signal()
        }
        thread.start()
        return watch
    }

    /// Stops both and returns the 99th percentile of each one's lateness, milliseconds, and the peak thread count.
    func stop() async -> (task: Double, thread: Double, peakThreads: Int?) {
        stopped.store(true, ordering: .relaxed)
        await task.withLock { $0 }?.value
        threadDone.wait()  // within about a millisecond
        let peakThreads = peak.load(ordering: .relaxed)
        return (
            Self.p99(taskLags.withLock { $0 }), Self.p99(threadLags.withLock { $0 }),
            peakThreads > 0 ? peakThreads : nil
        )
    }

    private static func lateMilliseconds(since start: ContinuousClock.Instant) -> Double {
        let c = (ContinuousClock.now - start - .milliseconds(1)).components
        return max(0, Double(c.seconds) * 1e3 + Double(c.attoseconds) / 1e15)
    }

    private static func p99(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
    }

    /// The process's threads now (Linux: `/proc/self/task`), or nil.
    private static func threads() -> Int? {
        #if os(Linux)
            return (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task"))?.count
        #else
            return nil
        #endif
    }
}

/// Values the raw side's threads hand back.
private final class Collected<T: Sendable>: Sendable {
    let values = Mutex<[T]>([])
}
