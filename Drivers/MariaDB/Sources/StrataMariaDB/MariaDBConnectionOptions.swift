// MariaDBConnectionOptions: turns a mariadb:// (or mysql://) URL and the configuration into connection settings.
import Strata

/// What a MariaDB connection is opened with: `mariadb://user:password@host:port/database`.
///
/// Every part is optional: the host defaults to `127.0.0.1`, the port to 3306, the user to libmariadb's (the
/// operating system's user name). A host that starts with `/` is a unix-socket path. The URL reads one parameter
/// of its own, `wsrep_sync_wait` (see ``syncWait``); Strata's `pool` and `migrate` are read by
/// ``Database/open(_:drivers:configuration:)``.
///
/// Several hosts, `mariadb://app@db1:3306,db2:3306,db3:3306/shop`, are a failover list (the nodes of a Galera
/// cluster): each new connection goes to the first host in order that accepts it and, when it is a Galera node,
/// reports `wsrep_ready` ON; a host left without a port takes the first host's (or 3306).
public struct MariaDBConnectionOptions: Sendable, Hashable, CustomStringConvertible {
    /// The first host.
    public var host: String
    /// The first host's port.
    public var port: Int
    /// Further hosts tried in order when the first does not answer (or is a Galera node not ready); empty for one.
    public var failoverHosts: [DatabaseURL.Host] = []
    public var user: String?
    public var password: String?
    public var database: String?
    /// The session's `wsrep_sync_wait` (`?wsrep_sync_wait=1` in the URL), or nil to leave the server's: on a
    /// Galera node, a read (1), an UPDATE or DELETE (2), an INSERT or REPLACE (4) and a SHOW (8), or their sum, first
    /// waits until the node has applied every commit the cluster made before it, so a read on one node sees a
    /// commit just acknowledged by another. 0 to 15.
    public var syncWait: Int?
    /// Seconds to wait for a connection, for each read and write on it, and for a row lock (then
    /// ``StrataError/busy``); at least 1.
    public var timeoutSeconds: Int
    /// Seconds to wait for any one reply of the server (libmariadb retries a read three times, so a call fails
    /// after about three times this): twice ``timeoutSeconds``, at least 10.
    public var readTimeoutSeconds: Int { max(10, 2 * timeoutSeconds) }

    /// Options given part by part.
    ///
    /// - Parameters:
    ///   - host: a host name, an IP address, or a unix-socket path (starting with `/`).
    ///   - port: the TCP port.
    ///   - user: the user name, or nil for libmariadb's default.
    ///   - password: the password, or nil for none.
    ///   - database: the database to use, or nil for none.
    ///   - timeout: seconds to wait to connect and for a lock.
    public init(
        host: String = "127.0.0.1", port: Int = 3306, user: String? = nil, password: String? = nil,
        database: String? = nil, timeout: Double = 5
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.timeoutSeconds = timeout.isFinite ? Int(min(max(timeout, 1), 86_400).rounded(.up)) : 86_400
    }

    /// The options of a parsed `mariadb://` URL.
    ///
    /// - Parameters:
    ///   - url: the parsed URL.
    ///   - configuration: the database's configuration (its timeout).
    /// - Throws: ``StrataError/invalidURL(_:reason:)`` for a port out of range, an empty host or a unix-socket
    ///   path in a host list, or a `wsrep_sync_wait` that is not an integer from 0 to 15.
    public init(url: DatabaseURL, configuration: Configuration = Configuration()) throws(StrataError) {
        for port in url.hosts.compactMap(\.port) + (url.port.map { [$0] } ?? []) where !(1...65535).contains(port) {
            throw .invalidURL(url.original, reason: "port \(port) is out of range")
        }
        if url.hosts.count > 1 {
            if let bad = url.hosts.first(where: { $0.name.isEmpty || $0.name.hasPrefix("/") }) {
                throw .invalidURL(
                    url.original,
                    reason: bad.name.isEmpty
                        ? "a host list names an empty host" : "a host list takes TCP hosts, not a socket path")
            }
        }
        self.init(
            host: url.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: url.port ?? 3306,
            user: url.user, password: url.password, database: url.database.flatMap { $0.isEmpty ? nil : $0 },
            timeout: configuration.timeout)
        if url.hosts.count > 1 {
            failoverHosts = url.hosts.dropFirst().map { DatabaseURL.Host($0.name, port: $0.port ?? port) }
        }
        if let text = url.parameters["wsrep_sync_wait"] {
            guard let n = Int(text), (0...15).contains(n) else {
                throw .invalidURL(
                    url.original, reason: "wsrep_sync_wait must be an integer from 0 to 15, not '\(text)'")
            }
            syncWait = n
        }
    }

    /// Every host a connection may go to, in the order tried: the first, then ``failoverHosts``.
    public var candidates: [(host: String, port: Int)] {
        [(host, port)] + failoverHosts.map { ($0.name, $0.port ?? port) }
    }

    /// The options without the password.
    public var description: String {
        let hosts = candidates.map { "\($0.host):\($0.port)" }.joined(separator: ",")
        return "mariadb://\(user.map { $0 + "@" } ?? "")\(hosts)/\(database ?? "")"
    }

    /// The options of one of the ``candidates``: that host alone.
    func only(_ candidate: (host: String, port: Int)) -> MariaDBConnectionOptions {
        var one = self
        one.host = candidate.host
        one.port = candidate.port
        one.failoverHosts = []
        return one
    }
}
