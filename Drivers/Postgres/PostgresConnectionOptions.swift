// PostgresConnectionOptions: turns a postgres:// URL and the configuration into libpq connection keywords.
import CPostgres
import Strata

/// What a PostgreSQL connection is opened with.
///
/// A part the URL leaves out is not sent to libpq, so libpq's environment applies: `PGHOST`,
/// `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE` (and `PGSSLMODE`, `~/.pgpass`, …). A host that
/// starts with `/` is a unix-socket directory.
///
/// URL parameters: any libpq connection keyword (`sslmode`, `sslrootcert`, `application_name`,
/// `connect_timeout`, `options`, `target_session_attrs`, …), plus `search_path` (the schemas the
/// connection uses, e.g. `?search_path=tenant_1`), `statement_timeout` and `prepare` (see ``statementTimeout``
/// and ``prepare``). TCP keepalives (`keepalives`, `keepalives_idle`, `keepalives_interval`,
/// `keepalives_count`) and `tcp_user_timeout` must be whole numbers. Strata's own `pool` and `migrate` are read by
/// ``Database/open(_:drivers:configuration:)``. Any other parameter is an ``StrataError/invalidURL(_:reason:)``.
public struct PostgresConnectionOptions: Sendable, Hashable {
    public var host: String?
    public var port: Int?
    /// Every host to try, in order, when the URL lists more than one (`postgres://u@h1:5432,h2:5433/db`):
    /// libpq gets `host=h1,h2 port=5432,5433` and connects to the first that answers. Empty otherwise
    /// (then ``host`` and ``port`` apply).
    public var hosts: [DatabaseURL.Host] = []
    public var user: String?
    public var password: String?
    public var database: String?
    /// Seconds libpq waits for a connection; libpq's minimum is 2.
    public var connectTimeout: Int
    /// Milliseconds a statement waits for a lock before failing with ``StrataError/busy``; 0 waits forever.
    public var lockTimeoutMilliseconds: Int
    /// The schema search path set on each connection, or nil for the server's default.
    public var searchPath: String?
    /// Whether statements are prepared by name and cached (`prepare=on`), sent unnamed each time (`prepare=off`,
    /// what a pooler in transaction mode such as PgBouncer needs), or chosen per connection (`auto`, the default).
    public var prepare: PostgresPrepareMode = .auto
    /// Whether single reads go through the pool's statement loop (`loop=auto`, the default: while other calls hold
    /// connections), always (`loop=always`: even a call alone, which tests use to run everything through it), or
    /// never (`loop=off`: every call on a connection's own thread, as before the loop).
    public var loop: PostgresLoopMode = .auto
    /// The `statement_timeout` URL parameter in milliseconds (`?statement_timeout=5s`, `500ms`, `2min` or a
    /// number of milliseconds), or nil for the server's setting. A statement past it is cancelled by the server
    /// (``StrataError/statementTimeout(table:)``, the connection stays usable); a server that does not answer
    /// within it plus ``PostgresConnectionOptions/answerGrace`` (frozen, or the network half-open) loses the
    /// connection (``StrataError/connectionLost(_:)``, or ``StrataError/outcomeUnknown(_:)`` for a write).
    public var statementTimeout: Int?
    /// The engine the URL's `engine` parameter pins (`postgres`, `citus`, `cockroachdb`, `yugabytedb`), or nil to
    /// detect it on each connection (see ``PostgresEngine``).
    public var engine: PostgresEngine?
    /// Further libpq keywords and their values (`sslmode`, `application_name`, …).
    public var extra: [String: String]

    /// Options given part by part; nil parts fall back to libpq's environment variables.
    public init(
        host: String? = nil, port: Int? = nil, user: String? = nil, password: String? = nil,
        database: String? = nil, timeout: Double = 5, searchPath: String? = nil, extra: [String: String] = [:]
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.connectTimeout = Self.wholeSeconds(timeout)
        self.lockTimeoutMilliseconds = timeout.isFinite && timeout > 0 ? Int(min(timeout, 86_400) * 1000) : 0
        self.searchPath = searchPath
        self.extra = extra
    }

    /// Options from a parsed `postgres://` URL.
    ///
    /// - Throws: ``StrataError/invalidURL(_:reason:)`` for an unknown parameter or a bad `sslmode`
    ///   or `connect_timeout` value.
    public init(url: DatabaseURL, configuration: Configuration = Configuration()) throws(StrataError) {
        self.init(
            host: url.host, port: url.port, user: url.user, password: url.password, database: url.database,
            timeout: configuration.timeout)
        if url.hosts.count > 1 { hosts = url.hosts }
        for (key, value) in url.parameters.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "pool", "migrate", "host":  // read by Database.open, or already in `host` by DatabaseURL
                continue
            case "search_path":
                searchPath = value
            case "prepare":
                prepare = try Self.prepareMode(value, url: url)
            case "loop":
                guard let mode = PostgresLoopMode(rawValue: value) else {
                    throw .invalidURL(url.original, reason: "loop must be auto, always or off, not '\(value)'")
                }
                loop = mode
            case "engine":
                guard let pinned = PostgresEngine(name: value) else {
                    throw .invalidURL(
                        url.original,
                        reason: "engine must be postgres, citus, cockroachdb or yugabytedb, not '\(value)'")
                }
                engine = pinned
            case "statement_timeout":
                statementTimeout = try Self.milliseconds(value, parameter: key, url: url)
            case "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout":
                try Self.checkWholeNumber(value, parameter: key, url: url)
                extra[key] = value
            case "connect_timeout":
                guard let seconds = Int(value), seconds > 0 else {
                    throw .invalidURL(url.original, reason: "connect_timeout must be a positive number of seconds")
                }
                connectTimeout = max(2, seconds)
            case "sslmode":
                let modes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]
                guard modes.contains(value) else {
                    throw .invalidURL(url.original, reason: "sslmode must be one of \(modes.joined(separator: ", "))")
                }
                extra[key] = value
            case "port" where port == nil && value.contains(","):
                // A port list for a `host=h1,h2` parameter: each entry empty (the default) or a port.
                guard value.split(separator: ",", omittingEmptySubsequences: false).allSatisfy(Self.isPortOrEmpty)
                else {
                    throw .invalidURL(url.original, reason: "port list '\(value)' holds something not from 1 to 65535")
                }
                extra[key] = value
            case "port" where port == nil:
                guard let p = Int(value), (1...65535).contains(p) else {
                    throw .invalidURL(url.original, reason: "port '\(value)' is not a number from 1 to 65535")
                }
                port = p
            case "user" where user == nil: user = value
            case "password" where password == nil: password = value
            case "dbname" where database == nil: database = value
            case "user", "password", "dbname", "port":
                continue  // the URL's authority or path already names it
            default:
                guard Self.libpqKeywords.contains(key) else {
                    throw .invalidURL(url.original, reason: "unknown parameter '\(key)' for PostgreSQL")
                }
                extra[key] = value
            }
        }
    }

    /// The keyword/value pairs for `PQconnectdbParams`.
    var libpqParameters: [(String, String)] {
        var pairs: [(String, String)] = []
        if hosts.count > 1 {
            pairs.append(("host", hosts.map(\.name).joined(separator: ",")))
            if hosts.contains(where: { $0.port != nil }) {  // an empty entry is that host's default port
                pairs.append(("port", hosts.map { $0.port.map(String.init) ?? "" }.joined(separator: ",")))
            }
        } else {
            if let host { pairs.append(("host", host)) }
            if let port { pairs.append(("port", String(port))) }
        }
        if let user { pairs.append(("user", user)) }
        if let password { pairs.append(("password", password)) }
        if let database { pairs.append(("dbname", database)) }
        pairs.append(("connect_timeout", String(connectTimeout)))
        if extra["application_name"] == nil { pairs.append(("application_name", "strata")) }
        for (key, value) in extra.sorted(by: { $0.key < $1.key }) { pairs.append((key, value)) }
        return pairs
    }

    private static func isPortOrEmpty(_ text: Substring) -> Bool {
        text.isEmpty
            || (text.allSatisfy { $0.isASCII && $0.isNumber } && Int(text).map { (1...65535).contains($0) } == true)
    }

    private static func wholeSeconds(_ timeout: Double) -> Int {
        guard timeout.isFinite, timeout > 0 else { return 2 }
        return max(2, Int(min(timeout, 86_400).rounded(.up)))  // 0 would mean "wait forever" to libpq
    }

    /// The URL parameters a `postgres://` URL may carry: every libpq connection keyword and `search_path`
    /// (``DriverFactory/postgres`` declares them; Strata's own `pool` and `migrate` come on top).
    public static var urlParameters: Set<String> {
        libpqKeywords.union(["search_path", "prepare", "statement_timeout", "loop", "engine"])
    }

    /// Every connection keyword the linked libpq knows.
    static let libpqKeywords: Set<String> = {
        var names: Set<String> = []
        guard let defaults = PQconndefaults() else { return names }
        defer { PQconninfoFree(defaults) }
        var option = defaults
        while let keyword = option.pointee.keyword {
            names.insert(String(cString: keyword))
            option += 1
        }
        return names
    }()
}

extension PostgresConnectionOptions: CustomStringConvertible {
    /// `user@host:port/database`, with `$PG…` for parts left to the environment; never the password.
    public var description: String {
        func shown(_ h: String) -> String { h.hasPrefix("/") || h.contains(":") ? "[\(h)]" : h }
        let place: String
        if hosts.count > 1 {
            place = hosts.map { shown($0.name) + ":" + ($0.port.map(String.init) ?? "$PGPORT") }.joined(separator: ",")
        } else {
            place = (host.map(shown) ?? "$PGHOST") + ":" + (port.map(String.init) ?? "$PGPORT")
        }
        return "\(user ?? "$PGUSER")@\(place)/\(database ?? "$PGDATABASE")"
    }
}
