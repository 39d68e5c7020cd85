// MariaDBTestServer: the server the tests run on: STRATA_MARIADB_URL's, or a throwaway one started on a loopback port.
import Foundation
import Strata
import StrataMariaDB
import StrataMariaDBBenchKit

/// Where the tests' MariaDB server is, started once per test run.
///
/// With `STRATA_MARIADB_URL` set (CI may start its own server), that server is used; its user must be able to create
/// and drop databases. Otherwise `Scripts/throwaway-server.sh` starts `mariadbd` on 127.0.0.1 at
/// `STRATA_MARIADB_PORT` (default 3316) with its data in a temporary directory, and stops it when the test run ends.
enum MariaDBTestServer {
    /// The server's URL without a database, e.g. `mariadb://root@127.0.0.1:3316`.
    static var baseURL: String {
        get throws { try started.get() }
    }

    private static let started: Result<String, Error> = Result { try start() }

    private static func start() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["STRATA_MARIADB_URL"], !url.isEmpty {
            return url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        let port = Int(environment["STRATA_MARIADB_PORT"] ?? "") ?? 3316
        return try ThrowawayServer.start(port: port, directory: "strata-mariadb")
    }

    /// A database of its own, dropped first if it exists, opened through the `mariadb://` factory.
    static func freshDatabase(_ name: String, pool: Int = 2) async throws -> Database {
        let admin = try Database.open(try baseURL + "/", drivers: [.mariadb])
        defer { admin.close() }
        let quoted = try MariaDBDialect().quote(name)
        _ = try await admin.unsafeRawExecute("DROP DATABASE IF EXISTS \(quoted)")
        _ = try await admin.unsafeRawExecute(
            "CREATE DATABASE \(quoted) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin")
        return try Database.open(try baseURL + "/" + name + "?pool=\(pool)", drivers: [.mariadb])
    }

    /// Drops a database made by ``freshDatabase(_:pool:)``.
    static func dropDatabase(_ name: String) async throws {
        let admin = try Database.open(try baseURL + "/", drivers: [.mariadb])
        defer { admin.close() }
        _ = try await admin.unsafeRawExecute("DROP DATABASE IF EXISTS \(try MariaDBDialect().quote(name))")
    }
}
