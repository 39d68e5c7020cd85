// BenchServer: the server the bench runs on: the one `--url` names, or a throwaway one started on a loopback port.
import Foundation
import Strata
import StrataMariaDB

/// Starts `mariadbd` as the MariaDB tests do (`Scripts/throwaway-server.sh`: a data directory in a temporary
/// directory, 127.0.0.1 only, stopped and removed when this process ends), unless a server already answers there.
enum BenchServer {
    /// The server's URL without a database, e.g. `mariadb://root@127.0.0.1:3319`.
    static func start(port: Int) throws -> String {
        try ThrowawayServer.start(port: port, directory: "strata-mariadb-bench")
    }

    /// A raw connection to `database` on the server `url` names.
    static func raw(_ url: String, database: String?) throws -> RawConnection {
        let o = try MariaDBConnectionOptions(url: DatabaseURL(url, drivers: [.mariadb]))
        return try RawConnection(host: o.host, port: o.port, user: o.user, password: o.password, database: database)
    }
}
