// BenchServer: the server the bench runs on: the one `--url` names, or a throwaway one started on a loopback port.
import Foundation
import Strata
import StrataMariaDB

/// Starts `mariadbd` as the MariaDB tests do (`Scripts/throwaway-server.sh`: a data directory in a temporary
/// directory, 127.0.0.1 only, stopped and removed when this process ends), unless a server already answers there.
enum BenchServer {
    /// The server's URL without a database, e.g. `mariadb://root@127.0.0.1:3319`.
    static func start(port: Int) throws -> String {
        let url = "mariadb://root@127.0.0.1:\(port)"
        if (try? connect(url)) != nil { return url }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Scripts/throwaway-server.sh"
            ).path
        guard FileManager.default.fileExists(atPath: script) else {
            throw RawMariaDBError(description: "no \(script) (run the bench from its source tree, or give --url)")
        }
        let dir = NSTemporaryDirectory() + "strata-mariadb-bench-\(port)-\(getpid())"
        let log = dir + ".start.log"
        let status = try BenchProcess.run(
            "/bin/bash", [script, dir, String(port), String(getpid())], log: log, within: 300)
        guard status == 0 else {
            let printed = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw RawMariaDBError(description: "the throwaway MariaDB server did not start (\(status)): \(printed)")
        }
        try? FileManager.default.removeItem(atPath: log)
        var last: Error?
        for _ in 0..<120 {
            do {
                try connect(url)
                return url
            } catch {
                last = error
                usleep(500_000)
            }
        }
        throw RawMariaDBError(
            description: "the throwaway MariaDB server on port \(port) never answered: \(last.map { "\($0)" } ?? "")")
    }

    private static func connect(_ url: String) throws {
        let options = try MariaDBConnectionOptions(url: DatabaseURL(url, drivers: [.mariadb]))
        _ = try MariaDBDriver(options: options).connect()
    }

    /// A raw connection to `database` on the server `url` names.
    static func raw(_ url: String, database: String?) throws -> RawConnection {
        let o = try MariaDBConnectionOptions(url: DatabaseURL(url, drivers: [.mariadb]))
        return try RawConnection(host: o.host, port: o.port, user: o.user, password: o.password, database: database)
    }
}
