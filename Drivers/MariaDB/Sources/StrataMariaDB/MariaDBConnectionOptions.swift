// MariaDBConnectionOptions: turns a mariadb:// (or mysql://) URL and the configuration into connection settings.
import Strata

/// What a MariaDB connection is opened with: `mariadb://user:password@host:port/database`.
///
/// Every part is optional: the host defaults to `127.0.0.1`, the port to 3306, the user to libmariadb's (the
/// operating system's user name). A host that starts with `/` is a unix-socket path. The URL reads no parameters
/// of its own; Strata's `pool` and `migrate` are read by ``Database/open(_:drivers:configuration:)``.
public struct MariaDBConnectionOptions: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String?
    public var password: String?
    public var database: String?
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
    /// - Throws: ``StrataError/invalidURL(_:reason:)`` for a host list or a port out of range.
    public init(url: DatabaseURL, configuration: Configuration = Configuration()) throws(StrataError) {
        if url.hosts.count > 1 { throw .invalidURL(url.original, reason: "MariaDB takes one host") }
        if let port = url.port, !(1...65535).contains(port) {
            throw .invalidURL(url.original, reason: "port \(port) is out of range")
        }
        self.init(
            host: url.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: url.port ?? 3306,
            user: url.user, password: url.password, database: url.database.flatMap { $0.isEmpty ? nil : $0 },
            timeout: configuration.timeout)
    }

    /// The options without the password.
    public var description: String {
        "mariadb://\(user.map { $0 + "@" } ?? "")\(host):\(port)/\(database ?? "")"
    }
}
