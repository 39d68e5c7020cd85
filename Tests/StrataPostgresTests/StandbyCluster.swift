// StandbyCluster: a throwaway primary and a streaming hot standby (initdb, pg_basebackup -R) on loopback, for tests.
import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL 15 primary on 127.0.0.1:`primaryPort` and a hot standby of it on `standbyPort`, made in a
/// temporary directory by the test itself (as the `postgres` user, through `runuser`), stopped and removed by
/// ``stop()``. The ports: `STRATA_STANDBY_PORT` (the primary's; 5473 by default) and the next two; the restart
/// tests make a lone primary of their own on the two after those (``restartPort`` and ``checkoutPort``), so that
/// stopping it never takes the server of the other tests away.
final class StandbyCluster: Sendable {
    static let bin = "/usr/lib/postgresql/15/bin"
    static let primaryPort = Int(ProcessInfo.processInfo.environment["STRATA_STANDBY_PORT"] ?? "") ?? 5473
    static let standbyPort = primaryPort + 1
    /// A port nothing listens on (a replica that refuses connections).
    static let deadPort = primaryPort + 2
    /// The lone primary of the server-restart test.
    static let restartPort = primaryPort + 3
    /// The lone primary of the restart-then-checkout test.
    static let checkoutPort = primaryPort + 4
    /// The longest any tool (initdb, pg_ctl, pg_basebackup) may run, and any wait for a server, in seconds.
    static let toolTimeout: Double = 60

    let root: String
    let hasStandby: Bool
    /// This cluster's primary port (its standby's is the next).
    let port: Int
    var primaryURL: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }
    var standbyURL: String { "postgres://postgres@127.0.0.1:\(port + 1)/postgres" }
    var standbyHost: String { "127.0.0.1:\(port + 1)" }

    private init(root: String, hasStandby: Bool, port: Int) {
        self.root = root
        self.hasStandby = hasStandby
        self.port = port
    }

    /// Why the clusters cannot be made here (not root, no `postgres` user, or no `runuser`, `initdb`,
    /// `pg_basebackup`), or nil.
    static let missing: String? = {
        if getuid() != 0 { return "not running as root (runuser needs it)" }
        if getpwnam("postgres") == nil { return "no postgres user (the postgresql-15 package makes it)" }
        for tool in ["/usr/sbin/runuser", "\(bin)/initdb", "\(bin)/pg_ctl", "\(bin)/pg_basebackup"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing"
        }
        return nil
    }()

    /// Whether the standby tests run: the tools are here, or `STRATA_SERVER_CONTROL=1` (our `.ci/run`), where
    /// their absence must fail. Elsewhere, as in the shipped workflow (a `swift` container with `CI=true` and no
    /// PostgreSQL binaries), they are skipped with the reason.
    static let enabled = ServerAccess.runs(
        "Read replica tests: cannot make a primary and a standby here", missing: missing)

    /// Runs `body` with a new primary on `port` (and, with `standby`, a streaming hot standby of it on the next),
    /// then stops both and removes their directory, whether `body` returns or throws.
    ///
    /// The tools run on a thread of their own (see ``offPool(_:)``), never on the cooperative pool.
    static func with<T>(
        standby: Bool = true, port: Int = primaryPort, _ body: (StandbyCluster) async throws -> T
    ) async throws -> T {
        let cluster = try await offPool { try start(standby: standby, port: port) }
        do {
            let result = try await body(cluster)
            try await offPool { cluster.stop() }
            return result
        } catch {
            try? await offPool { cluster.stop() }
            throw error
        }
    }

    /// Runs blocking work (a tool run to its end, a polling wait) on a thread of its own and awaits it: on the
    /// cooperative pool (as many threads as cores, 2 here) it would starve every other test of the process
    /// meanwhile, whose pooled connections then time out.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// Makes and starts a primary and, with `standby`, a streaming hot standby of it; waits (bounded) until both
    /// accept connections and the standby streams. On any failure what was started is stopped and removed.
    private static func start(standby: Bool, port: Int) throws -> StandbyCluster {
        if let missing {
            throw StrataError.unsupported(feature: "a primary and a standby (\(missing))", driver: "postgres")
        }
        removeAbandoned()
        for taken in standby ? [port, port + 1] : [port] where LoopbackPort.answers(taken) {
            throw StrataError.connectionFailed(
                "127.0.0.1:\(taken) is taken; set STRATA_STANDBY_PORT to a free port (it and the next four are used)")
        }
        let root = NSTemporaryDirectory() + "strata-standby-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let cluster = StandbyCluster(root: root, hasStandby: standby, port: port)
        do {
            // Whose clusters these are: removeAbandoned() stops them once this process is gone.
            try "\(getpid())\n".write(toFile: "\(root)/owner.pid", atomically: true, encoding: .utf8)
            try run(["/bin/chown", "postgres:postgres", root], in: nil)
            try cluster.asPostgres([
                "initdb", "-D", "\(root)/primary", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C",
                "--no-sync",
            ])
            try cluster.configure(
                "\(root)/primary", port: port, extra: ["wal_level = replica", "max_wal_senders = 4"])
            try cluster.asPostgres([
                "pg_ctl", "-D", "\(root)/primary", "-l", "\(root)/primary.log", "-w", "-t", "30", "start",
            ])
            try cluster.waitUntilAccepting(port: port)
            if standby {
                try cluster.asPostgres([
                    "pg_basebackup", "-R", "-D", "\(root)/standby", "-h", "127.0.0.1", "-p", "\(port)",
                    "-U", "postgres", "-X", "stream", "-c", "fast", "--no-sync",
                ])
                try cluster.configure("\(root)/standby", port: port + 1, extra: [])
                try cluster.launchStandby()
                try cluster.waitUntilAccepting(port: port + 1)
                try cluster.waitUntilStreaming()
            }
        } catch {
            let logs = cluster.logs
            cluster.stop()
            throw StrataError.database(code: -1, message: "could not make the clusters: \(error)\n\(logs)")
        }
        return cluster
    }

    /// Starts the standby again after ``stopStandby()``.
    func startStandby() async throws {
        try await Self.offPool { try self.launchStandby() }
    }

    /// Stops the standby (fast shutdown): its port then refuses connections.
    func stopStandby() async throws {
        try await Self.offPool {
            try self.asPostgres(["pg_ctl", "-D", "\(self.root)/standby", "-m", "fast", "-w", "-t", "30", "stop"])
        }
    }

    /// Stops the primary (fast shutdown: its connections are cut, its port refuses).
    func stopPrimary() async throws {
        try await Self.offPool {
            try self.asPostgres(["pg_ctl", "-D", "\(self.root)/primary", "-m", "fast", "-w", "-t", "30", "stop"])
        }
    }

    /// Starts the primary again after ``stopPrimary()`` and waits (bounded) until it accepts connections.
    func startPrimary() async throws {
        try await Self.offPool {
            try self.asPostgres([
                "pg_ctl", "-D", "\(self.root)/primary", "-l", "\(self.root)/primary.log", "-w", "-t", "30", "start",
            ])
            try self.waitUntilAccepting(port: self.port)
        }
    }

    private func launchStandby() throws {
        try asPostgres(["pg_ctl", "-D", "\(root)/standby", "-l", "\(root)/standby.log", "-w", "-t", "30", "start"])
    }

    /// Waits (at most ``toolTimeout`` seconds) until the standby has replayed everything the primary has
    /// written so far; throws if it has not by then.
    func waitForReplay() async throws {
        let primary = try open(primaryURL)
        defer { primary.close() }
        let standby = try open(standbyURL)
        defer { standby.close() }
        let lsn = try await primary.withConnection { tx in
            try tx.unsafeRawExecute("SELECT pg_current_wal_lsn()::text").first?.first
        }
        guard case .text(let target) = lsn else { throw StrataError.database(code: -1, message: "no WAL position") }
        let deadline = ContinuousClock.now + .seconds(Self.toolTimeout)
        while true {
            let behind = try await standby.withConnection { tx in
                try tx.unsafeRawExecute(
                    "SELECT (coalesce(pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '\(target)') < 0, true))::int"
                ).first?.first
            }
            if case .integer(0) = behind { return }
            if ContinuousClock.now > deadline {
                throw StrataError.database(code: -1, message: "the standby did not replay to \(target) in time")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Pauses (`true`) or resumes WAL replay on the standby; a pause is waited for (bounded) until it holds, so
    /// that nothing the primary writes afterwards reaches the standby's readers.
    func pauseReplay(_ pause: Bool) async throws {
        let standby = try open(standbyURL)
        defer { standby.close() }
        try await standby.withConnection { tx in
            _ = try tx.unsafeRawExecute(pause ? "SELECT pg_wal_replay_pause()" : "SELECT pg_wal_replay_resume()")
        }
        guard pause else { return }
        let deadline = ContinuousClock.now + .seconds(Self.toolTimeout)
        while true {
            let state = try await standby.withConnection { tx in
                try tx.unsafeRawExecute("SELECT pg_get_wal_replay_pause_state()").first?.first
            }
            if case .text("paused") = state { return }
            if ContinuousClock.now > deadline {
                throw StrataError.database(
                    code: -1, message: "the standby's replay did not pause: \(String(describing: state))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops both clusters (whatever state they are in: `pg_ctl stop -m immediate`, then SIGKILL to a postmaster
    /// still running) and removes the directory.
    private func stop() {
        for name in ["standby", "primary"] {
            guard let pid = postmaster(name) else { continue }
            try? asPostgres(["pg_ctl", "-D", "\(root)/\(name)", "-m", "immediate", "-w", "-t", "20", "stop"])
            if kill(pid, 0) == 0 {
                kill(pid, SIGKILL)
                for _ in 0..<100 where kill(pid, 0) == 0 { usleep(50_000) }
            }
        }
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The servers' logs, for failure messages.
    var logs: String {
        ["primary", "standby"].map { name in
            let text = (try? String(contentsOfFile: "\(root)/\(name).log", encoding: .utf8)) ?? ""
            return "-- \(name).log:\n" + text.split(separator: "\n").suffix(20).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The pid in a cluster's `postmaster.pid`, when the file is there.
    private func postmaster(_ name: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: "\(root)/\(name)/postmaster.pid", encoding: .utf8),
            let first = text.split(separator: "\n").first
        else { return nil }
        return pid_t(first.trimmingCharacters(in: .whitespaces))
    }

    /// Stops and removes the clusters of test processes that are gone (killed before their `stop()` ran).
    private static func removeAbandoned() {
        let tmp = NSTemporaryDirectory()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []
        for name in names where name.hasPrefix("strata-standby-") {
            let root = tmp + name
            guard let text = try? String(contentsOfFile: root + "/owner.pid", encoding: .utf8),
                let owner = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), !isRunning(owner)
            else { continue }
            StandbyCluster(root: root, hasStandby: true, port: primaryPort).stop()
        }
    }

    /// Whether process `pid` exists and has not exited (a zombie whose parent never reaps it has).
    private static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return true }
        return !stat[end...].hasPrefix(") Z")
    }

    /// Waits (bounded) until the primary reports a streaming standby.
    private func waitUntilStreaming() throws {
        let db = try open(primaryURL)
        defer { db.close() }
        let deadline = Date().addingTimeInterval(Self.toolTimeout)
        while true {
            let rows = try db.readSync { tx in
                try tx.unsafeRawExecute("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")
            }
            if case .integer(let n) = rows.first?.first, n > 0 { return }
            if Date() > deadline { throw StrataError.database(code: -1, message: "the standby never streamed") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Settings appended to a cluster's `postgresql.conf` (the last setting of a name wins).
    private func configure(_ dir: String, port: Int, extra: [String]) throws {
        let lines =
            [
                "", "port = \(port)", "listen_addresses = '127.0.0.1'", "unix_socket_directories = '\(root)'",
                "hot_standby = on", "fsync = off", "max_connections = 40", "shared_buffers = 16MB",
            ] + extra
        let file = "\(dir)/postgresql.conf"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// Polls (bounded) until the cluster on `port` answers a query.
    private func waitUntilAccepting(port: Int) throws {
        let deadline = Date().addingTimeInterval(Self.toolTimeout)
        while true {
            do {
                try open("postgres://postgres@127.0.0.1:\(port)/postgres").close()
                return
            } catch {
                if Date() > deadline { throw error }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    /// A database on one server, no replicas.
    private func open(_ url: String) throws -> Database {
        try Database.open(url, drivers: [.postgres], configuration: Configuration(timeout: 5))
    }

    private func asPostgres(_ command: [String]) throws {
        try Self.run(
            ["/usr/sbin/runuser", "-u", "postgres", "--", "\(Self.bin)/\(command[0])"] + command.dropFirst(), in: root)
    }

    /// Runs a program to its end (bounded); a non-zero exit is an error carrying its output.
    private static func run(_ argv: [String], in directory: String?) throws {
        let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "TZ": "UTC"]
        let outcome = try SpawnedCommand.run(
            argv, directory: directory, environment: environment, timeout: toolTimeout)
        guard outcome.status == 0 else {
            throw StrataError.database(
                code: Int(outcome.status), message: "\(argv.joined(separator: " ")) failed: \(outcome.output)")
        }
    }
}
