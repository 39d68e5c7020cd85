// ThrowawayServer: mariadbd started by Scripts/throwaway-server.sh on a loopback port, for the tests and the bench.
import Foundation
import Strata
import StrataMariaDB

/// A throwaway MariaDB server: `Scripts/throwaway-server.sh` starts `mariadbd` on 127.0.0.1 with its data in a
/// temporary directory, and stops and removes it when this process ends.
package enum ThrowawayServer {
    /// The URL of the server on `port` without a database (`mariadb://root@127.0.0.1:PORT`), started first unless a
    /// server already answers there (one this process started, or one left running).
    ///
    /// - Parameters:
    ///   - port: the loopback port.
    ///   - directory: the start of the temporary data directory's name (the port and this process's pid follow).
    /// - Throws: ``StrataError/connectionFailed(_:)`` when the script is missing, fails, or the server never answers.
    package static func start(port: Int, directory: String) throws -> String {
        let url = "mariadb://root@127.0.0.1:\(port)"
        if (try? connect(url)) != nil { return url }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Scripts/throwaway-server.sh"
            ).path
        guard FileManager.default.fileExists(atPath: script) else {
            throw StrataError.connectionFailed("no \(script) (run from the source tree, or give a server's URL)")
        }
        let dir = NSTemporaryDirectory() + "\(directory)-\(port)-\(getpid())"
        // Through posix_spawn (SpawnedProcess), never Foundation's Process, whose run() can crash on Linux. The
        // script starts mariadbd in the background and returns; 300 s bounds a first install of its data directory.
        let log = dir + ".start.log"
        let status = try SpawnedProcess.run(
            "/bin/bash", [script, dir, String(port), String(getpid())], log: log, within: 300)
        guard status == 0 else {
            let printed = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw StrataError.connectionFailed("the throwaway MariaDB server did not start (\(status)): \(printed)")
        }
        try? FileManager.default.removeItem(atPath: log)
        // Bounded wait until it accepts connections: 120 tries, 0.5 s apart.
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
        throw StrataError.connectionFailed(
            "the throwaway MariaDB server on port \(port) never answered: \(last.map { "\($0)" } ?? "")")
    }

    private static func connect(_ url: String) throws {
        let options = try MariaDBConnectionOptions(url: DatabaseURL(url, drivers: [.mariadb]))
        _ = try MariaDBDriver(options: options).connect()
    }
}
