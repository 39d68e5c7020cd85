// PgBouncerProcess: a real PgBouncer in transaction-pooling mode on 127.0.0.1, in front of the server under test.
import Foundation
import Strata
import StrataPostgres

/// A `pgbouncer` process the test started (ini and userlist in a temporary directory), fronting database
/// `database` of the server that libpq's `PG*` variables name, with its `PGUSER`/`PGPASSWORD`.
/// Its port: `STRATA_PGBOUNCER_PORT`, else `PGPORT` + 1000.
final class PgBouncerProcess {
    let port: Int
    let database: String
    private let pid: pid_t
    private let directory: String
    private var stopped = false

    /// Starts pgbouncer and waits (at most 10 s) until it accepts a connection.
    ///
    /// - Throws: when pgbouncer is missing, cannot start, or never accepts.
    init(database: String, poolSize: Int = 4) throws {
        let env = PostgresTestServer.environment
        guard let binary = ServerAccess.pgbouncer else {
            throw StrataError.unsupported(feature: "pgbouncer tests without pgbouncer installed", driver: "postgres")
        }
        let serverPort = Int(env["PGPORT"] ?? "") ?? 5432
        port = Int(env["STRATA_PGBOUNCER_PORT"] ?? "") ?? serverPort + 1000
        self.database = database
        let host = env["PGHOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        let user = env["PGUSER"].flatMap { $0.isEmpty ? nil : $0 } ?? NSUserName()
        directory = NSTemporaryDirectory() + "strata-pgbouncer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ini = """
            [databases]
            \(database) = host=\(host) port=\(serverPort) dbname=\(database)
            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = scram-sha-256
            auth_file = \(directory)/userlist.txt
            pool_mode = transaction
            default_pool_size = \(poolSize)
            max_client_conn = 200
            server_check_delay = 0
            logfile = \(directory)/pgbouncer.log
            """
        try ini.write(toFile: directory + "/pgbouncer.ini", atomically: true, encoding: .utf8)
        func quoted(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        try "\(quoted(user)) \(quoted(env["PGPASSWORD"] ?? ""))\n".write(
            toFile: directory + "/userlist.txt", atomically: true, encoding: .utf8)
        var argv = [binary]
        if getuid() == 0 {  // pgbouncer refuses to run as root: it switches to postgres (or nobody)
            let runAs = getpwnam("postgres") != nil ? "postgres" : "nobody"
            if let account = getpwnam(runAs) {
                for file in ["", "/pgbouncer.ini", "/userlist.txt"] {
                    chown(directory + file, account.pointee.pw_uid, account.pointee.pw_gid)
                }
            }
            argv += ["-u", runAs]
        }
        argv.append(directory + "/pgbouncer.ini")
        let args: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in args { free(a) } }
        var child: pid_t = 0
        guard posix_spawn(&child, binary, nil, nil, args, environ) == 0 else {
            throw StrataError.connectionFailed("could not start \(binary)")
        }
        pid = child
        let deadline = Date(timeIntervalSinceNow: 10)
        while true {
            if let db = try? Database.open(url(), drivers: [.postgres]) {
                db.close()
                return
            }
            if Date() > deadline {
                stop()
                throw StrataError.connectionFailed("pgbouncer did not accept on 127.0.0.1:\(port) within 10 s: \(log)")
            }
            usleep(100_000)
        }
    }

    /// A URL to `database` through the pooler, with `parameters` (`key=value`); user and password from libpq's
    /// environment.
    func url(_ parameters: String...) -> String {
        "postgres://127.0.0.1:\(port)/\(database)" + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
    }

    /// What pgbouncer logged, for failure messages.
    var log: String { (try? String(contentsOfFile: directory + "/pgbouncer.log", encoding: .utf8)) ?? "" }

    /// Stops the process (SIGKILL, reaped within 5 s) and removes its directory.
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGKILL)  // our own child: nothing of its state is needed
        var status: Int32 = 0
        for _ in 0..<50 where waitpid(pid, &status, WNOHANG) == 0 { usleep(100_000) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
