// GaleraCluster: a throwaway three-node MariaDB Galera cluster on loopback ports, for the Galera tests.
import Foundation
import Strata
import StrataMariaDB
import StrataMariaDBBenchKit

#if canImport(Glibc)
    import Glibc
#endif

/// Three `mariadbd` nodes replicating through Debian's `galera-4` on 127.0.0.1, their data in a temporary
/// directory.
///
/// Node 1 starts with `--wsrep-new-cluster` on a data directory `mariadb-install-db` made; nodes 2 and 3 start
/// empty and join, each receiving node 1's data by an rsync state transfer (SST). The start waits, bounded, until
/// every node reports `wsrep_cluster_size` 3 and `wsrep_ready` ON. Ports: the client ports are
/// `STRATA_GALERA_PORT` (default 3340) and the next two; the group, incremental-transfer and SST ports are
/// `STRATA_GALERA_WSREP_PORT` (default 4640) + 0…2, + 3…5 and + 6…8. Run as root, the nodes run as the `mysql`
/// user (rsync's daemon, run by the SST script as root, would write the joiner's files as `nobody`).
///
/// ``stop()`` ends every node and removes the directory; a watcher process kills the nodes if the test run
/// ends first.
final class GaleraCluster: @unchecked Sendable {
    /// One node: its client port, directory and process.
    struct Node {
        var index: Int
        var port: Int
        var directory: String
        var process: SpawnedProcess?
        var watcher: SpawnedProcess?
        var url: String { "mariadb://root@127.0.0.1:\(port)" }
    }

    static let provider = "/usr/lib/galera/libgalera_smm.so"
    static let server = ["/usr/sbin/mariadbd", "/usr/bin/mariadbd"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let installer = ["/usr/bin/mariadb-install-db", "/usr/sbin/mariadb-install-db"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether this machine can run the cluster: galera-4, mariadbd, mariadb-install-db and rsync installed.
    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: provider) && server != nil && installer != nil
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/rsync")
    }

    /// Whether a missing Galera fails the tests instead of skipping them (CI).
    static var isRequired: Bool { !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty }

    private let lock = NSLock()
    private var nodeList: [Node]
    let root: String
    let wsrepBase: Int
    /// The seconds the start took, until all three nodes were synced.
    private(set) var startSeconds = 0.0

    var nodes: [Node] {
        lock.lock()
        defer { lock.unlock() }
        return nodeList
    }

    /// `mariadb://root@127.0.0.1:port,…/database` over the given nodes (1-based), in that order.
    func url(nodes indices: [Int], database: String, pool: Int) -> String {
        let hosts = indices.map { "127.0.0.1:\(nodes[$0 - 1].port)" }.joined(separator: ",")
        return "mariadb://root@\(hosts)/\(database)?pool=\(pool)"
    }

    /// Starts the cluster; throws (after stopping what started) when a node does not join within the bounds.
    init() throws {
        let environment = ProcessInfo.processInfo.environment
        let clientBase = Int(environment["STRATA_GALERA_PORT"] ?? "") ?? 3340
        wsrepBase = Int(environment["STRATA_GALERA_WSREP_PORT"] ?? "") ?? 4640
        root = NSTemporaryDirectory() + "strata-galera-\(clientBase)-\(getpid())"
        nodeList = (1...3).map { Node(index: $0, port: clientBase + $0 - 1, directory: "") }
        for i in nodeList.indices { nodeList[i].directory = root + "/node\(i + 1)" }
        let began = ContinuousClock.now
        do {
            try start()
        } catch {
            let logs = nodeList.map { "node \($0.index): " + Self.tail(of: $0.directory + "/server.log") }
            stop()
            throw StrataError.connectionFailed(
                "the Galera cluster did not start: \(error)\n" + logs.joined(separator: "\n"))
        }
        startSeconds = Self.seconds(ContinuousClock.now - began)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// The last lines of a log, for a failure's message.
    static func tail(of path: String, lines: Int = 15) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "(no log)"
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// The user the nodes run as: `mysql` when this process is root, else nil (this process's own user).
    private static var serverUser: (name: String, uid: uid_t, gid: gid_t)? {
        guard geteuid() == 0, let entry = getpwnam("mysql") else { return nil }
        return ("mysql", entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    private func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        if let user = Self.serverUser { chown(path, user.uid, user.gid) }
    }

    private func start() throws {
        try? FileManager.default.removeItem(atPath: root)
        try makeDirectory(root)
        for node in nodeList {
            try makeDirectory(node.directory)
            try makeDirectory(node.directory + "/data")
            try config(node).write(toFile: node.directory + "/my.cnf", atomically: true, encoding: .utf8)
        }
        guard let installer = Self.installer else { throw StrataError.connectionFailed("no mariadb-install-db") }
        let first = nodeList[0]
        let installed = try SpawnedProcess.run(
            installer,
            ["--no-defaults", "--auth-root-authentication-method=normal", "--datadir=\(first.directory)/data"]
                + (Self.serverUser.map { ["--user=\($0.name)"] } ?? []),
            log: root + "/install.log", within: 120)
        guard installed == 0 else {
            throw StrataError.connectionFailed(
                "mariadb-install-db exited \(installed): \(Self.tail(of: root + "/install.log"))")
        }
        try launch(1, bootstrap: true)
        try waitUntil(node: 1, clusterSize: 1, seconds: 60)
        for index in 2...3 {
            try launch(index, bootstrap: false)
            try waitUntil(node: index, clusterSize: index, seconds: 120)
        }
    }

    /// The node's configuration file: Galera's required settings, loopback ports, small buffers, and failure
    /// detection in about 3 s instead of 5 (`evs.suspect_timeout`).
    private func config(_ node: Node) -> String {
        let i = node.index - 1
        let group = (0..<3).map { "127.0.0.1:\(wsrepBase + $0)" }.joined(separator: ",")
        let provider = [
            "gmcast.listen_addr=tcp://127.0.0.1:\(wsrepBase + i)", "ist.recv_addr=127.0.0.1:\(wsrepBase + 3 + i)",
            "gcache.size=32M", "evs.suspect_timeout=PT3S", "evs.inactive_timeout=PT6S",
            "evs.install_timeout=PT6S",
        ].joined(separator: ";")
        var lines = [
            "[mysqld]", "datadir=\(node.directory)/data", "port=\(node.port)", "bind-address=127.0.0.1",
            "socket=\(node.directory)/sock", "pid-file=\(node.directory)/pid", "max-connections=200",
            "innodb-buffer-pool-size=32M", "innodb-flush-log-at-trx-commit=0", "skip-log-bin",
            "binlog-format=ROW", "default-storage-engine=InnoDB", "innodb-autoinc-lock-mode=2", "wsrep-on=ON",
            "wsrep-provider=\(Self.provider)", "wsrep-cluster-name=strata_galera",
            "wsrep-cluster-address=gcomm://\(group)", "wsrep-node-name=node\(node.index)",
            "wsrep-node-address=127.0.0.1:\(wsrepBase + i)", "wsrep-provider-options=\(provider)",
            "wsrep-sst-method=rsync", "wsrep-sst-receive-address=127.0.0.1:\(wsrepBase + 6 + i)",
        ]
        if let user = Self.serverUser { lines.append("user=\(user.name)") }
        if ProcessInfo.processInfo.environment["STRATA_GALERA_GENERAL_LOG"] == "1" {
            lines += ["general-log=ON", "general-log-file=\(node.directory)/general.log"]
        }
        lines.append("wsrep-log-conflicts=ON")
        return lines.joined(separator: "\n") + "\n"
    }

    private func launch(_ index: Int, bootstrap: Bool) throws {
        guard let server = Self.server else { throw StrataError.connectionFailed("no mariadbd") }
        let node = nodes[index - 1]
        let process = try SpawnedProcess(
            server, ["--defaults-file=\(node.directory)/my.cnf"] + (bootstrap ? ["--wsrep-new-cluster"] : []),
            log: node.directory + "/server.log")
        // Kills the node once the test run has ended, should it end before stop().
        let watch = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; kill -9 \(process.pid) 2>/dev/null"
        let watcher = try SpawnedProcess("/bin/sh", ["-c", watch], log: "/dev/null")
        lock.lock()
        nodeList[index - 1].process = process
        nodeList[index - 1].watcher = watcher
        lock.unlock()
    }

    /// The `wsrep_%` status variables of node `index`, read over a connection of its own; empty when the node
    /// does not answer.
    func wsrepStatus(node index: Int) -> [String: String] {
        var configuration = Configuration()
        configuration.timeout = 2
        guard
            let options = try? MariaDBConnectionOptions(
                url: DatabaseURL(nodes[index - 1].url, drivers: [.mariadb]), configuration: configuration)
        else { return [:] }
        let db = Database(driver: MariaDBDriver(options: options), configuration: configuration)
        defer { db.close() }
        let rows = (try? db.readSync { tx in try tx.unsafeRawExecute("SHOW STATUS LIKE 'wsrep_%'") }) ?? []
        var status: [String: String] = [:]
        for row in rows where row.count >= 2 {
            if case .text(let name) = row[0], case .text(let value) = row[1] { status[name] = value }
        }
        return status
    }

    /// Waits (0.25 s apart, at most `seconds`) until node `index` is synced and ready in a cluster of `size`.
    func waitUntil(node index: Int, clusterSize size: Int, seconds: Double) throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var last: [String: String] = [:]
        while ContinuousClock.now < deadline {
            if let process = nodes[index - 1].process, !process.isRunning {
                throw StrataError.connectionFailed("node \(index) exited (status \(process.status ?? 0))")
            }
            last = wsrepStatus(node: index)
            if last["wsrep_ready"] == "ON", last["wsrep_cluster_size"] == String(size),
                last["wsrep_local_state_comment"] == "Synced"
            {
                return
            }
            usleep(250_000)
        }
        let seen = ["wsrep_ready", "wsrep_cluster_size", "wsrep_local_state_comment"]
            .map { "\($0)=\(last[$0] ?? "?")" }.joined(separator: " ")
        throw StrataError.connectionFailed(
            "node \(index) was not ready in a cluster of \(size) in \(seconds) s (\(seen))")
    }

    /// Sends SIGKILL to node `index`'s `mariadbd` and reaps it.
    func kill(node index: Int) {
        guard let process = nodes[index - 1].process else { return }
        process.kill(SIGKILL)
        _ = process.wait(seconds: 10)
    }

    /// Stops every node (SIGTERM, then SIGKILL after 30 s) and removes the directory.
    func stop() {
        for node in nodes {
            node.watcher?.kill(SIGKILL)
            node.process?.kill(SIGTERM)
        }
        for node in nodes {
            if let process = node.process, !process.wait(seconds: 30) {
                process.kill(SIGKILL)
                _ = process.wait(seconds: 10)
            }
            _ = node.watcher?.wait(seconds: 5)
        }
        if !Self.keep { try? FileManager.default.removeItem(atPath: root) }
    }

    /// `STRATA_GALERA_KEEP=1`: the directory stays, with each node's `server.log` (certification conflicts
    /// included); `STRATA_GALERA_GENERAL_LOG=1` adds each node's every statement (`general.log`).
    static var keep: Bool { ProcessInfo.processInfo.environment["STRATA_GALERA_KEEP"] == "1" }
}
