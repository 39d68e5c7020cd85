// URLSyntax: how a driver reads the part of its database URLs after `scheme:`, its own grammar or a shared one.

/// How the text between a database URL's `scheme:` and its `?` reads, for one driver (see
/// ``DriverFactory/urlSyntax``). The core has already read the scheme and the query parameters.
///
/// Two grammars are shared, for drivers to pick: ``path(_:missing:)`` (a file or a store name) and ``server``
/// (`//user:password@host:port/database`). A driver with a grammar of its own writes it:
///
/// ```swift
/// let shards = URLSyntax { rest, url throws(StrataError) in          // shards:eu-1
///     guard !rest.isEmpty else { throw .invalidURL(url.original, reason: "missing shard") }
///     url.path = try url.decoded(rest, part: "shard")
/// }
/// ```
public struct URLSyntax: Sendable {
    /// Reads `rest` (the text after `scheme:`, before `?`) into the URL's parts.
    let read: @Sendable (_ rest: Substring, _ url: inout DatabaseURL) throws(StrataError) -> Void

    /// A grammar of the driver's own.
    ///
    /// - Parameter read: reads the text after `scheme:` (before `?`) into the URL's parts; throws
    ///   ``StrataError/invalidURL(_:reason:)`` (use ``DatabaseURL/original`` as its URL: descriptions hide
    ///   passwords) for text it cannot use.
    public init(_ read: @escaping @Sendable (_ rest: Substring, _ url: inout DatabaseURL) throws(StrataError) -> Void) {
        self.read = read
    }

    /// `[//]path`, percent-decoded into ``DatabaseURL/path``: `sqlite:data/app.sqlite`, `sqlite:///abs.sqlite`
    /// (a leading `//` is dropped, so `sqlite://rel` is `rel`), `memory:name`.
    ///
    /// - Parameters:
    ///   - part: what the path names, in errors (`"store name"`).
    ///   - missing: the reason an empty path is refused with (`"missing SQLite file path"`), or nil to accept one.
    /// - Returns: the syntax.
    public static func path(_ part: String = "path", missing: String? = nil) -> URLSyntax {
        URLSyntax { rest, url throws(StrataError) in
            var rest = rest
            if rest.hasPrefix("//") { rest = rest.dropFirst(2) }
            if rest.isEmpty, let missing { throw .invalidURL(url.original, reason: missing) }
            url.path = try url.decoded(rest, part: part)
        }
    }

    /// `//[user[:password]@][host[:port][,host[:port]…]][/database]`, every part optional and percent-decoded:
    /// a host may be an IPv6 literal in brackets (`[::1]:5432`) or a percent-encoded unix-socket directory
    /// (`%2Fvar%2Frun%2Fpostgresql`), and a list tries each host in turn. Fills ``DatabaseURL/user``,
    /// ``DatabaseURL/password``, ``DatabaseURL/hosts`` (and ``DatabaseURL/host``, ``DatabaseURL/port`` from
    /// the first, or `host` from the `host` parameter) and ``DatabaseURL/database``.
    public static let server = URLSyntax { rest, url throws(StrataError) in
        try URLParser(original: url.original).server(rest, into: &url)
    }
}
