// AutoFailoverCluster: a pg_auto_failover monitor, primary and synchronous secondary on loopback, for failover tests.
import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#endif

/// A pg_auto_failover formation made by the test itself (as the `postgres` user, through `runuser`): a monitor on
/// `port`, two PostgreSQL 15 nodes on the next two ports with synchronous replication (pg_auto_failover's default
/// for a primary with one secondary), each node's keeper (`pg_autoctl run`) in a session of its own so that a node
/// can be killed whole. Everything lives in one temporary directory (the keepers' configuration and state too:
/// `XDG_*` point into it), stopped and removed by ``stop()``.
///
/// The monitor checks the nodes every second, declares a node unhealthy after 2 s without an answer and lets a
/// promoted secondary take writes 5 s after an unreachable primary should have demoted itself (pg_auto_failover's
/// defaults: 5 s, 20 s and 30 s), so an unplanned failover takes seconds, not most of a minute.
final class AutoFailoverCluster: Sendable {
    static let bin = "/usr/lib/postgresql/15/bin"
    static let autoctl = "/usr/bin/pg_autoctl"
    /// The monitor's port; the nodes take the next two (`STRATA_FAILOVER_PORT`, 5480 by default).
    static let monitorPort = Int(ProcessInfo.processInfo.environment["STRATA_FAILOVER_PORT"] ?? "") ?? 5480
    static let toolTimeout: Double = 120

    let root: String
    let port: Int
    var nodePorts: [Int] { [port + 1, port + 2] }
    /// The URL an app uses: both nodes, and libpq keeps the one that accepts writes.
    var url: String {
        "postgres://postgres@127.0.0.1:\(port + 1),127.0.0.1:\(port + 2)/postgres?target_session_attrs=read-write"
    }
    var monitorURL: String { "postgres://postgres@127.0.0.1:\(port)/pg_auto_failover" }

    private init(root: String, port: Int) {
        self.root = root
        self.port = port
    }

    /// Why the formation cannot be made here, or nil.
    static let missing: String? = {
        if getuid() != 0 { return "not running as root (runuser needs it)" }
        if getpwnam("postgres") == nil { return "no postgres user (the postgresql-15 package makes it)" }
        for tool in ["/usr/sbin/runuser", "/usr/bin/setsid", autoctl, "\(bin)/pg_ctl"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (apt-get install postgresql-15-auto-failover pg-auto-failover-cli)"
        }
        return nil
    }()

    /// Whether the failover tests run: the tools are here, or `STRATA_SERVER_CONTROL=1` (our `.ci/run`), where
    /// their absence must fail.
    static let enabled = ServerAccess.runs(
        "Failover tests: cannot make a pg_auto_failover formation here", missing: missing)

    /// Runs `body` with a new formation (primary and secondary both healthy), then stops and removes it, whether
    /// `body` returns or throws.
    static func with<T>(_ body: (AutoFailoverCluster) async throws -> T) async throws -> T {
        let cluster = try await StandbyCluster.offPool { try start(port: monitorPort) }
        do {
            let result = try await body(cluster)
            try? await StandbyCluster.offPool { cluster.stop() }
            return result
        } catch {
            try? await StandbyCluster.offPool { cluster.stop() }
            throw error
        }
    }

    private static func start(port: Int) throws -> AutoFailoverCluster {
        if let missing {
            throw StrataError.unsupported(feature: "a pg_auto_failover formation (\(missing))", driver: "postgres")
        }
        removeAbandoned()
        for taken in [port, port + 1, port + 2] where LoopbackPort.answers(taken) {
            throw StrataError.connectionFailed(
                "127.0.0.1:\(taken) is taken; set STRATA_FAILOVER_PORT to a free port (it and the next two are used)")
        }
        let root = NSTemporaryDirectory() + "strata-failover-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let cluster = AutoFailoverCluster(root: root, port: port)
        do {
            try "\(getpid())\n".write(toFile: "\(root)/owner.pid", atomically: true, encoding: .utf8)
            try run(["/bin/chown", "postgres:postgres", root], environment: baseEnvironment)
            try cluster.autoctl([
                "create", "monitor", "--pgdata", "\(root)/monitor", "--pgport", "\(port)", "--hostname", "127.0.0.1",
                "--listen", "127.0.0.1", "--auth", "trust", "--no-ssl", "--pgctl", "\(bin)/pg_ctl",
            ])
            try cluster.launchKeeper("monitor")
            try cluster.waitUntilAccepting(port: port, database: "pg_auto_failover")
            try cluster.tuneMonitor()
            for (n, nodePort) in cluster.nodePorts.enumerated() {
                try cluster.autoctl([
                    "create", "postgres", "--pgdata", "\(root)/node\(n + 1)", "--pgport", "\(nodePort)",
                    "--hostname", "127.0.0.1", "--listen", "127.0.0.1", "--name", "node\(n + 1)", "--auth", "trust",
                    "--no-ssl",
                    "--pgctl", "\(bin)/pg_ctl", "--monitor",
                    "postgres://autoctl_node@127.0.0.1:\(port)/pg_auto_failover?sslmode=disable",
                ])
                try cluster.launchKeeper("node\(n + 1)")
                try cluster.waitForStates(n == 0 ? ["single"] : ["primary", "secondary"])
            }
        } catch {
            let logs = cluster.logs
            cluster.stop()
            throw StrataError.database(code: -1, message: "could not make the formation: \(error)\n\(logs)")
        }
        return cluster
    }

    // MARK: - Faults

    /// The node names by state, from the monitor: `[name: reportedState]`.
    func states() throws -> [String: String] {
        let db = try open(monitorURL)
        defer { db.close() }
        let rows = try db.readSync { tx in
            try tx.unsafeRawExecute("SELECT nodename, reportedstate::text FROM pgautofailover.node")
        }
        var out: [String: String] = [:]
        for row in rows {
            if case .text(let name) = row[0], case .text(let state) = row[1] { out[name] = state }
        }
        return out
    }

    /// The node that is primary now (reported by the monitor), or nil.
    func primary() throws -> String? { try states().first { $0.value == "primary" }?.key }

    /// The port of node `name` (`node1` or `node2`).
    func port(of name: String) -> Int { name == "node1" ? port + 1 : port + 2 }

    /// A planned failover: `pg_autoctl perform failover`, which returns when the secondary is the new primary.
    func performFailover() throws {
        try autoctl(["perform", "failover", "--pgdata", "\(root)/monitor", "--wait", "60"])
    }

    /// Kills node `name` whole with SIGKILL: its keeper, the keeper's children, its postmaster and backends.
    func kill(node name: String) {
        let keeper = keeperPID(name)
        let postmaster = pid(in: "\(root)/\(name)/postmaster.pid")
        if let keeper { Glibc.kill(-keeper, SIGKILL) }  // its session's process group: keeper and children
        if let postmaster { Glibc.kill(postmaster, SIGKILL) }
        for pid in [keeper, postmaster].compactMap({ $0 }) {
            for _ in 0..<100 where Glibc.kill(pid, 0) == 0 { usleep(20_000) }
        }
    }

    /// Starts node `name`'s keeper again after ``kill(node:)``: it rejoins as a secondary (pg_rewind).
    func restart(node name: String) throws { try launchKeeper(name) }

    /// Waits (bounded) until the monitor reports exactly these states, one per node, in any order.
    func waitForStates(_ wanted: [String], timeout: Double = toolTimeout) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String: String] = [:]
        while true {
            last = (try? states()) ?? [:]
            if last.values.sorted() == wanted.sorted() { return }
            if Date() > deadline {
                throw StrataError.database(code: -1, message: "the formation never reached \(wanted): \(last)")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// Whether the server on `port` accepts writes now (answers and is not in recovery).
    func acceptsWrites(port: Int) -> Bool {
        guard let db = try? open("postgres://postgres@127.0.0.1:\(port)/postgres?connect_timeout=2") else {
            return false
        }
        defer { db.close() }
        // A new session's view: pg_auto_failover keeps a promoted node read-only (default_transaction_read_only)
        // until the old primary is known to be down or demoted.
        let rows = try? db.readSync { tx in
            try tx.unsafeRawExecute(
                "SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off'")
        }
        if case .bool(true)? = rows?.first?.first { return true }
        return false
    }

    // MARK: - Processes

    /// Stops the keepers and servers (SIGKILL to each keeper's session, then to any postmaster left) and
    /// removes the directory.
    func stop() {
        for name in ["node2", "node1", "monitor"] { kill(node: name) }
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The last lines of each keeper's log, for failure messages.
    var logs: String {
        ["monitor", "node1", "node2"].map { name in
            let text = (try? String(contentsOfFile: "\(root)/\(name).log", encoding: .utf8)) ?? ""
            return "-- \(name).log:\n" + text.split(separator: "\n").suffix(15).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    private static let baseEnvironment = ["PATH": "\(bin):/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "TZ": "UTC"]

    /// The keepers' environment: their configuration, state and pid files inside the cluster's directory.
    private var environment: [String: String] {
        Self.baseEnvironment.merging([
            "HOME": root, "XDG_CONFIG_HOME": "\(root)/config", "XDG_DATA_HOME": "\(root)/data",
            "XDG_RUNTIME_DIR": "\(root)/run", "PG_AUTOCTL_DEBUG": "0",
        ]) { $1 }
    }

    /// Runs `pg_autoctl` with `arguments` as the postgres user, to its end.
    private func autoctl(_ arguments: [String]) throws {
        try Self.run(
            ["/usr/sbin/runuser", "-u", "postgres", "--", Self.autoctl] + arguments, environment: environment,
            directory: root)
    }

    /// Starts `pg_autoctl run` for `name` in the background, in a session of its own, its output in `name.log`.
    private func launchKeeper(_ name: String) throws {
        let log = "\(root)/\(name).log"
        try Self.run(
            [
                "/usr/sbin/runuser", "-u", "postgres", "--", "/bin/sh", "-c",
                "/usr/bin/setsid \(Self.autoctl) run --pgdata '\(root)/\(name)' >> '\(log)' 2>&1 < /dev/null &",
            ], environment: environment, directory: root)
    }

    /// Lowers the monitor's health-check periods so a dead node is noticed in about two seconds.
    private func tuneMonitor() throws {
        let db = try open("postgres://postgres@127.0.0.1:\(port)/pg_auto_failover")
        defer { db.close() }
        try db.readSync { tx in
            for (name, value) in [
                ("health_check_period", 1000), ("health_check_timeout", 1000), ("health_check_max_retries", 1),
                ("health_check_retry_delay", 500), ("node_considered_unhealthy_timeout", 2000),
                ("primary_demote_timeout", 5000),
            ] {
                _ = try tx.unsafeRawExecute("ALTER SYSTEM SET pgautofailover.\(name) = \(value)")
            }
            _ = try tx.unsafeRawExecute("SELECT pg_reload_conf()")
        }
    }

    private func waitUntilAccepting(port: Int, database: String) throws {
        let deadline = Date().addingTimeInterval(Self.toolTimeout)
        while true {
            do {
                try open("postgres://postgres@127.0.0.1:\(port)/\(database)?connect_timeout=2").close()
                return
            } catch {
                if Date() > deadline { throw error }
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
    }

    private func open(_ url: String) throws -> Database {
        try Database.open(url, drivers: [.postgres], configuration: Configuration(timeout: 5))
    }

    /// The pid of node `name`'s `pg_autoctl run` (a session leader: its process group holds its children and its
    /// postmaster), found in `/proc`.
    private func keeperPID(_ name: String) -> pid_t? {
        let pgdata = "\(root)/\(name)"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            let args = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if args.count >= 4, args[0].hasSuffix("pg_autoctl"), args[1] == "run", args.last == pgdata { return pid }
        }
        return nil
    }

    private func pid(in file: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
            let first = text.split(separator: "\n").first
        else { return nil }
        return pid_t(first.trimmingCharacters(in: .whitespaces))
    }

    /// Stops and removes the formations of test processes that are gone (killed before their `stop()` ran).
    private static func removeAbandoned() {
        let tmp = NSTemporaryDirectory()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []
        for name in names where name.hasPrefix("strata-failover-") {
            let root = tmp + name
            guard let text = try? String(contentsOfFile: root + "/owner.pid", encoding: .utf8),
                let owner = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                Glibc.kill(owner, 0) != 0
            else { continue }
            AutoFailoverCluster(root: root, port: monitorPort).stop()
        }
    }

    /// Runs a program to its end (bounded); a non-zero exit is an error carrying its output.
    private static func run(_ argv: [String], environment: [String: String], directory: String? = nil) throws {
        let outcome = try SpawnedCommand.run(
            argv, directory: directory, environment: environment, timeout: toolTimeout)
        guard outcome.status == 0 else {
            throw StrataError.database(
                code: Int(outcome.status), message: "\(argv.joined(separator: " ")) failed: \(outcome.output)")
        }
    }
}
