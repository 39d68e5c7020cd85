// PostgresFailoverTests: writers through Strata while pg_auto_failover fails the primary over, planned and unplanned.
import Foundation
import Strata
import StrataPostgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One write of the failover test: a token no other write uses.
@Model(table: "failover_mark")
struct FailoverMark {
    var id: Int64?
    var token: String
    var writer: Int
}

/// What the writers did, with times relative to the test's start (seconds).
final class FailoverLog: @unchecked Sendable {
    enum Outcome: Equatable {
        case acknowledged
        /// `outcomeUnknown`: the connection broke after the write was sent.
        case unknown
        /// Any other error: the write was not applied.
        case failed(String)
    }

    struct Write {
        var token: String
        var start: Double
        var end: Double
        var outcome: Outcome
    }

    private let lock = NSLock()
    private var list: [Write] = []
    let origin = ContinuousClock.now

    var now: Double { Self.seconds(ContinuousClock.now - origin) }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    func record(_ write: Write) {
        lock.lock()
        list.append(write)
        lock.unlock()
    }

    var writes: [Write] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}

/// One fault and what followed it, in seconds from the fault.
struct FailoverFault: CustomStringConvertible {
    var planned: Bool
    var at: Double
    /// Until the other node accepted writes.
    var promotion: Double
    /// Until writes succeeded again: the first acknowledged write that ended after the window's last failure.
    var writesBack: Double
    /// Failed or unknown writes that started more than the grace after the promotion.
    var lateErrors: [String]
    var acknowledged = 0
    var unknown = 0
    var failed = 0

    var description: String {
        String(
            format: "%@ at %.1f s: promoted in %.2f s, writes back in %.2f s (+%.2f s); %d acknowledged, %d unknown, %d failed",
            planned ? "planned" : "SIGKILL", at, promotion, writesBack, writesBack - promotion, acknowledged, unknown,
            failed)
    }
}

@Suite("PostgreSQL failover (pg_auto_failover)", .serialized, .enabled(if: AutoFailoverCluster.enabled))
struct PostgresFailoverTests {
    /// Faults of each kind: `STRATA_FAILOVER_FAULTS` (2 by default, what CI runs; the closing notes report 20).
    static let faults = Int(ProcessInfo.processInfo.environment["STRATA_FAILOVER_FAULTS"] ?? "") ?? 2
    /// How long after the new primary accepts writes an error still counts as the failover's (the pool's
    /// connections to the old primary break as they are next used).
    static let grace = 1.0
    /// How soon after the new primary takes writes the writers must be writing again: within the grace in a
    /// dedicated run (`STRATA_FAILOVER_FAULTS` set, as for the figures); within 10 s inside the whole suite, where
    /// the writers share 2 cores with every other test (no error may reach them after the grace either way).
    static let writesBackBound = ProcessInfo.processInfo.environment["STRATA_FAILOVER_FAULTS"] == nil ? 10.0 : grace

    @Test(
        "planned and SIGKILL failovers under 4 writers: acknowledged writes kept once, back within the promotion + 1 s",
        .timeLimit(.minutes(30)))
    func failovers() async throws {
        try await AutoFailoverCluster.with { cluster in
            // Every node is listed as a replica too: reads go to whichever is a standby now.
            var configuration = Configuration(timeout: 5)
            configuration.replicaRetryInterval = 1
            let db = try Database.open(
                cluster.url + "&pool=4&replicas=" + cluster.nodePorts.map { "127.0.0.1:\($0)" }.joined(separator: ","),
                drivers: [.postgres], configuration: configuration)
            defer { db.close() }
            try await db.migrate(FailoverMark.self)
            let log = FailoverLog()
            let running = FailoverFlag()
            let writers = (0..<4).map { w in
                Task {
                    var i = 0
                    while running.isSet && i < 1_000_000 {
                        i += 1
                        let token = "w\(w)-\(i)"
                        let start = log.now
                        var mark = FailoverMark(token: token, writer: w)
                        do {
                            try await mark.save(on: db)
                            log.record(.init(token: token, start: start, end: log.now, outcome: .acknowledged))
                        } catch StrataError.outcomeUnknown {
                            log.record(.init(token: token, start: start, end: log.now, outcome: .unknown))
                        } catch {
                            log.record(.init(token: token, start: start, end: log.now, outcome: .failed("\(error)")))
                            try? await Task.sleep(for: .milliseconds(20))
                        }
                        try? await Task.sleep(for: .milliseconds(5))
                    }
                }
            }
            var faults: [FailoverFault] = []
            var follow: [Double] = []
            do {
                try await Task.sleep(for: .seconds(1))
                follow.append(try await Self.readsFollowTheStandby(db, cluster))
                for k in 0..<(2 * Self.faults) {
                    faults.append(try await Self.fault(planned: k % 2 == 0, cluster, log))
                    follow.append(try await Self.readsFollowTheStandby(db, cluster))
                }
            } catch {
                running.clear()
                for w in writers { await w.value }
                throw error
            }
            running.clear()
            for w in writers { await w.value }
            let sorted = follow.sorted()
            print(
                "PostgresFailoverTests: reads reached the standby \(String(format: "%.2f", sorted[sorted.count / 2])) s "
                    + "(median; \(String(format: "%.2f", sorted.last ?? 0)) s at most) after the formation settled")
            try await Self.check(db, log, faults)
        }
    }

    /// Fails the primary over once (`pg_autoctl perform failover`, or the primary's keeper, postmaster and backends
    /// killed with SIGKILL), waits until the writers write again and the formation has a secondary again.
    static func fault(planned: Bool, _ cluster: AutoFailoverCluster, _ log: FailoverLog) async throws -> FailoverFault {
        guard let old = try await StandbyCluster.offPool({ try cluster.primary() }) else {
            throw StrataError.database(code: -1, message: "no primary before the fault")
        }
        let next = old == "node1" ? "node2" : "node1"
        let at = log.now
        let failover = Task.detached {
            if planned { try cluster.performFailover() } else { cluster.kill(node: old) }
        }
        // The promotion: from when a new session on the other node can write, for good (polled every 20 ms until
        // it has for 3 s, bounded): pg_auto_failover may let it write, then keep it read-only a moment longer.
        let promoted: Double = try await StandbyCluster.offPool {
            let deadline = Date().addingTimeInterval(120)
            var since: Double?
            while true {
                let now = log.now
                if cluster.acceptsWrites(port: cluster.port(of: next)) {
                    if since == nil { since = now }
                } else {
                    since = nil
                }
                if let since, now - since > 3 { return since }
                if Date() > deadline { throw StrataError.database(code: -1, message: "\(next) never promoted") }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        try await failover.value
        if !planned {
            try await StandbyCluster.offPool { try cluster.restart(node: old) }
        }
        try await StandbyCluster.offPool { try cluster.waitForStates(["primary", "secondary"]) }
        // The first write acknowledged after the last failure. On a loaded machine the writers may not have finished
        // one by the time the formation settles: wait for it (bounded), so that a slow writer is measured as late,
        // not as never.
        var window = log.writes.filter { $0.end > at }
        func firstBack(_ window: [FailoverLog.Write]) -> Double? {
            let lastFailure = window.filter { $0.outcome != .acknowledged }.map(\.end).max() ?? at
            return window.filter { $0.outcome == .acknowledged && $0.end >= lastFailure }.map(\.end).min()
        }
        for _ in 0..<600 where firstBack(window) == nil {
            try await Task.sleep(for: .milliseconds(100))
            window = log.writes.filter { $0.end > at }
        }
        let back = firstBack(window) ?? .infinity
        let late = window.filter { $0.outcome != .acknowledged && $0.start > promoted + grace }
        var fault = FailoverFault(
            planned: planned, at: at, promotion: promoted - at, writesBack: back - at,
            lateErrors: late.map { "\($0.token) at +\(String(format: "%.2f", $0.start - at)) s: \($0.outcome)" })
        for w in window where w.start >= at {
            switch w.outcome {
            case .acknowledged: fault.acknowledged += 1
            case .unknown: fault.unknown += 1
            case .failed: fault.failed += 1
            }
        }
        var kinds: [String: Int] = [:]
        for w in window where w.outcome != .acknowledged {
            let text: String
            switch w.outcome {
            case .failed(let m): text = String(m.prefix(90))
            default: text = "outcomeUnknown"
            }
            kinds[text, default: 0] += 1
        }
        print("failover: \(fault); errors: \(kinds.sorted { $0.value > $1.value }.prefix(4))")
        return fault
    }

    /// Reads outside transactions (the replicas) reach the node that is the standby now, within 15 s of the
    /// formation settling (bounded): a replica that was the primary was skipped, and is read from again once it is
    /// a standby. Returns how long that took; no read throws meanwhile.
    static func readsFollowTheStandby(_ db: Database, _ cluster: AutoFailoverCluster) async throws -> Double {
        let start = ContinuousClock.now
        let deadline = start + .seconds(15)
        while true {
            let rows = try await db.read { tx in try tx.unsafeRawExecute("SELECT pg_is_in_recovery()") }
            if case .bool(true)? = rows.first?.first {
                let elapsed = ContinuousClock.now - start
                var onStandby = 0
                for _ in 0..<20 {
                    let rows = try await db.read { tx in try tx.unsafeRawExecute("SELECT pg_is_in_recovery()") }
                    if case .bool(true)? = rows.first?.first { onStandby += 1 }
                }
                // A replica connection opened while its node was a standby answers at most one read from it as the
                // new primary; the pool then replaces it and skips that replica.
                #expect(onStandby >= 16, "replica reads on the standby: \(onStandby) of 20")
                print("replica reads: \(onStandby) of the next 20 on the standby")
                return FailoverLog.seconds(elapsed)
            }
            if ContinuousClock.now > deadline {
                Issue.record("reads never reached the standby: \(try await StandbyCluster.offPool { try cluster.states() })")
                return 15
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Every acknowledged write is stored once, a failed one not at all, an unknown one at most once; the writes
    /// came back within the promotion plus the grace after each fault, with no error after that.
    static func check(_ db: Database, _ log: FailoverLog, _ faults: [FailoverFault]) async throws {
        let stored = try await FailoverMark.query(on: db).all().map(\.token)
        var count: [String: Int] = [:]
        for t in stored { count[t, default: 0] += 1 }
        let writes = log.writes
        let acknowledged = writes.filter { $0.outcome == .acknowledged }
        let unknown = writes.filter { $0.outcome == .unknown }
        let failed = writes.filter { if case .failed = $0.outcome { true } else { false } }
        let lost = acknowledged.filter { count[$0.token] == nil }
        let doubled = count.filter { $0.value > 1 }
        let appliedFailures = failed.filter { count[$0.token] != nil }
        let unknownApplied = unknown.filter { count[$0.token] != nil }.count
        let planned = faults.filter(\.planned)
        let killed = faults.filter { !$0.planned }
        func summary(_ f: [FailoverFault]) -> String {
            guard !f.isEmpty else { return "none" }
            let p = f.map(\.promotion).sorted()
            let b = f.map { $0.writesBack - $0.promotion }.sorted()
            return String(
                format: "%d faults, promotion median %.2f s (max %.2f), writes back after it median %.2f s (max %.2f)",
                f.count, p[p.count / 2], p.last ?? 0, b[b.count / 2], b.last ?? 0)
        }
        print(
            """
            PostgresFailoverTests: \(writes.count) writes: \(acknowledged.count) acknowledged (\(lost.count) lost), \
            \(unknown.count) unknown (\(unknownApplied) applied), \(failed.count) failed (\(appliedFailures.count) \
            applied), \(doubled.count) doubled; planned: \(summary(planned)); SIGKILL: \(summary(killed))
            """)
        #expect(lost.isEmpty, "acknowledged writes missing on the new primary: \(lost.prefix(5).map(\.token))")
        #expect(doubled.isEmpty, "writes stored twice: \(doubled.prefix(5))")
        #expect(
            appliedFailures.isEmpty,
            "writes reported failed (not outcomeUnknown) but applied: \(appliedFailures.prefix(5).map(\.token))")
        #expect(acknowledged.count > 20 * faults.count, "the writers wrote throughout")
        for f in faults {
            #expect(f.lateErrors.isEmpty, "errors after the new primary was up: \(f)\n\(f.lateErrors.prefix(5))")
            #expect(f.writesBack <= f.promotion + Self.writesBackBound, "writes came back late: \(f)")
        }
    }
}

/// A flag the writers poll.
final class FailoverFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = true
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
    func clear() {
        lock.lock()
        value = false
        lock.unlock()
    }
}
