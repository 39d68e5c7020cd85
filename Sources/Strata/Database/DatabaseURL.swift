// DatabaseURL: parses the database URLs Strata accepts into their parts, with typed errors.
import Foundation

/// A parsed database URL: `scheme:rest?key=value&…`.
///
/// The core reads the scheme and the query parameters; the driver registered for the scheme (its
/// ``DriverFactory``) reads the rest with its ``URLSyntax``: a file path (`sqlite:app.sqlite`), a store name
/// (`memory:name`), a server authority (`postgres://user:password@host:port/database`), or a grammar of its own.
/// A scheme no driver serves is ``StrataError/unknownScheme(_:)``.
///
/// Every part is percent-decoded (a malformed `%` escape is an error), and NUL is refused after decoding.
/// Query parameters follow `?` as `key=value` pairs joined by `&`; names are case-sensitive, given at most
/// once, and checked by ``Database/open(_:drivers:configuration:)`` against what the driver accepts.
/// A `#` fragment is refused (write `%23`).
public struct DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    /// One host of a PostgreSQL URL's host list.
    public struct Host: Sendable, Hashable {
        /// The host name, IP address (IPv6 without brackets) or unix-socket directory.
        public var name: String
        /// The port, or nil for the default.
        public var port: Int?

        /// A host of a PostgreSQL URL.
        ///
        /// - Parameters:
        ///   - name: the host name, IP address or unix-socket directory.
        ///   - port: the port, or nil for the default.
        public init(_ name: String, port: Int? = nil) {
            self.name = name
            self.port = port
        }
    }

    /// The scheme, as its driver first names it (an alias is folded: `sqlite3` reads as `sqlite`).
    public var scheme: String
    /// What a ``URLSyntax/path(_:missing:)`` URL names: the SQLite file path or `:memory:`, the memory store's
    /// name (may be empty).
    public var path: String
    /// The user name of the authority (`postgres://user@host`), percent-decoded, or nil.
    public var user: String?
    /// The password of the authority, percent-decoded, or nil; never shown by ``description``.
    public var password: String?
    /// The first host (``URLSyntax/server``), or the `host` parameter when the URL names none.
    public var host: String?
    /// The first host's port (``URLSyntax/server``).
    public var port: Int?
    /// Every host of the authority, in order (``URLSyntax/server``); empty when the URL names none.
    public var hosts: [Host] = []
    /// The database name (``URLSyntax/server``).
    public var database: String?
    /// The query parameters, percent-decoded.
    public var parameters: [String: String]
    /// The URL as given (its description redacts the password).
    public var original: String

    /// The URL as given, with its passwords (the authority's, a `password` or `sslpassword` parameter's)
    /// replaced by `***`, safe to log.
    public var description: String { URLRedaction.redact(original) }

    /// A URL as given, parsed or not, with its passwords replaced by `***`: what a tool prints when a URL it
    /// was handed fails to open.
    ///
    /// ```swift
    /// DatabaseURL.redacting("postgres://ann:pw@db/shop?password=pw2")   // postgres://ann:***@db/shop?password=***
    /// ```
    ///
    /// - Parameter string: the URL text.
    /// - Returns: the text with every password hidden.
    public static func redacting(_ string: String) -> String { URLRedaction.redact(string) }

    /// Parses a URL with the driver that serves its scheme.
    ///
    /// ```swift
    /// let url = try DatabaseURL("postgres://ann:s%40cret@db1:5432,db2:5433/shop?sslmode=require", drivers: [.postgres])
    /// // url.hosts == [Host("db1", port: 5432), Host("db2", port: 5433)], url.password == "s@cret"
    /// ```
    ///
    /// - Parameters:
    ///   - string: the URL text.
    ///   - drivers: the drivers whose schemes and syntaxes apply; by default those passed to
    ///     ``Database/register(_:)``.
    /// - Throws: ``StrataError/invalidURL(_:reason:)`` naming what is wrong (never showing the password), or
    ///   ``StrataError/unknownScheme(_:)`` when none of `drivers` serves the scheme.
    public init(_ string: String, drivers: [DriverFactory]? = nil) throws(StrataError) {
        self = try Self.parse(string, drivers: drivers ?? DriverFactory.registered).url
    }

    /// The URL parsed by the driver among `drivers` that serves its scheme, and that driver.
    static func parse(_ string: String, drivers: [DriverFactory]) throws(StrataError) -> (
        url: DatabaseURL, factory: DriverFactory
    ) {
        var url = DatabaseURL(original: string)
        let parser = URLParser(original: string)
        let (scheme, rest) = try parser.split(into: &url)
        guard let factory = drivers.first(where: { $0.serves(scheme) }) else { throw .unknownScheme(scheme) }
        url.scheme = factory.schemes.first?.lowercased() ?? scheme
        try factory.urlSyntax.read(rest, &url)
        return (url, factory)
    }

    /// A URL with nothing read yet but its text.
    init(original: String) {
        self.original = original
        path = ""
        parameters = [:]
        scheme = ""
    }

    /// Percent-decodes one part of this URL, for a ``URLSyntax`` of a driver's own.
    ///
    /// - Parameters:
    ///   - text: the part as written.
    ///   - part: what the part is, named in the error (`"host"`, `"database name"`).
    /// - Returns: the decoded text.
    /// - Throws: ``StrataError/invalidURL(_:reason:)`` for a malformed `%` escape or a NUL.
    public func decoded(_ text: Substring, part: String) throws(StrataError) -> String {
        try URLParser(original: original).decode(text, part)
    }
}

extension ClosedRange<Unicode.Scalar> {
    /// Every scalar of the range, in order.
    fileprivate var unicodeScalarArray: [Unicode.Scalar] {
        (lowerBound.value...upperBound.value).compactMap(Unicode.Scalar.init)
    }
}
/// The grammar behind ``DatabaseURL``, one production per method (`rest` is read by the driver's ``URLSyntax``):
///
/// ```
/// url        = scheme ":" rest [ "?" query ]          (no "#")
/// path       = [ "//" ] path                          percent-decoded (URLSyntax.path)
/// server     = "//" [ userinfo "@" ] [ hostlist ] [ "/" [ database ] ]   (URLSyntax.server)
/// userinfo   = user [ ":" password ]                  split at the last "@" and the first ":"
/// hostlist   = host *( "," host )                     host = ( "[" ipv6 "]" | name ) [ ":" port ]
/// query      = param *( "&" param )                   param = key [ "=" value ], key non-empty, unique
/// ```
struct URLParser {
    let original: String

    func fail(_ reason: String) -> StrataError { .invalidURL(original, reason: reason) }

    /// RFC 3986: a scheme is an ASCII letter, then letters, digits, `+`, `-` or `.`.
    static let letters: Set<Unicode.Scalar> = Set(("a"..."z").unicodeScalarArray + ("A"..."Z").unicodeScalarArray)
    static let schemeCharacters: Set<Unicode.Scalar> = letters.union(("0"..."9").unicodeScalarArray + ["+", "-", "."])

    /// Reads the scheme (lowercased) and the query parameters into `url`, returning the scheme and the rest.
    func split(into url: inout DatabaseURL) throws(StrataError) -> (scheme: String, rest: Substring) {
        let trimmed = original.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw fail("empty URL") }
        guard !trimmed.contains("#") else { throw fail("unexpected '#' (write %23 for a literal '#')") }
        guard let colon = trimmed.firstIndex(of: ":") else {
            throw fail("missing scheme (expected e.g. sqlite:app.sqlite or memory:)")
        }
        let rawScheme = trimmed[..<colon]
        guard let first = rawScheme.unicodeScalars.first, Self.letters.contains(first),
            rawScheme.unicodeScalars.allSatisfy({ Self.schemeCharacters.contains($0) })
        else {
            throw fail("malformed scheme '\(rawScheme)'")
        }
        var rest = Substring(trimmed[trimmed.index(after: colon)...])
        if let q = rest.firstIndex(of: "?") {
            url.parameters = try parameters(rest[rest.index(after: q)...])
            rest = rest[..<q]
        }
        return (rawScheme.lowercased(), rest)
    }

    /// Percent-decodes `text`, refusing a malformed escape and NUL (checked after decoding).
    func decode(_ text: Substring, _ part: String) throws(StrataError) -> String {
        guard let decoded = String(text).removingPercentEncoding else {
            throw fail("malformed percent-encoding in the \(part)")
        }
        guard !decoded.unicodeScalars.contains("\0") else { throw fail("the \(part) contains NUL") }
        return decoded
    }

    func parameters(_ query: Substring) throws(StrataError) -> [String: String] {
        var out: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try decode(kv[0], "parameter name")
            guard !key.isEmpty else { throw fail("a query parameter has no name") }
            guard out[key] == nil else { throw fail("parameter '\(key)' is given twice") }
            out[key] = kv.count > 1 ? try decode(kv[1], "value of parameter '\(key)'") : ""
        }
        return out
    }

    /// `//[user[:password]@][hosts][/database]` (see ``URLSyntax/server``).
    func server(_ rest: Substring, into url: inout DatabaseURL) throws(StrataError) {
        guard rest.hasPrefix("//") else { throw fail("expected '//' after '\(url.scheme):'") }
        var authority = rest.dropFirst(2)
        if let slash = authority.firstIndex(of: "/") {
            let db = try decode(authority[authority.index(after: slash)...], "database name")
            url.database = db.isEmpty ? nil : db
            authority = authority[..<slash]
        }
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            if let c = userInfo.firstIndex(of: ":") {
                url.user = try decode(userInfo[..<c], "user name")
                url.password = try decode(userInfo[userInfo.index(after: c)...], "password")
            } else {
                url.user = try decode(userInfo, "user name")
            }
            if url.user?.isEmpty == true { url.user = nil }
            authority = authority[authority.index(after: at)...]
        }
        if !authority.isEmpty {
            url.hosts = try hostList(authority)
        }
        url.host = url.hosts.first?.name ?? url.parameters["host"]
        url.port = url.hosts.first?.port
    }

    /// `h1[:p1],h2[:p2],…`, splitting on commas outside IPv6 brackets.
    func hostList(_ text: Substring) throws(StrataError) -> [DatabaseURL.Host] {
        var hosts: [DatabaseURL.Host] = []
        var start = text.startIndex
        var inBrackets = false
        var i = text.startIndex
        while true {
            if i == text.endIndex || (text[i] == "," && !inBrackets) {
                hosts.append(try host(text[start..<i]))
                if i == text.endIndex { break }
                start = text.index(after: i)
            } else if text[i] == "[" {
                inBrackets = true
            } else if text[i] == "]" {
                inBrackets = false
            }
            i = text.index(after: i)
        }
        return hosts
    }

    func host(_ text: Substring) throws(StrataError) -> DatabaseURL.Host {
        guard !text.isEmpty else { throw fail("empty host in the host list") }
        var name: String
        var portText: Substring?
        if text.hasPrefix("[") {  // IPv6 literal
            guard let close = text.firstIndex(of: "]") else { throw fail("unclosed '[' in host") }
            name = String(text[text.index(after: text.startIndex)..<close])
            guard !name.isEmpty, name.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." || $0 == "%" }) else {
                throw fail("malformed IPv6 address in brackets")
            }
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw fail("unexpected text after ']' in host")
            }
        } else {
            guard !text.contains("[") && !text.contains("]") else { throw fail("misplaced '[' or ']' in host") }
            let colons = text.filter { $0 == ":" }.count
            guard colons <= 1 else { throw fail("an IPv6 host must be written in brackets, e.g. [::1]:5432") }
            if let c = text.firstIndex(of: ":") {
                name = try decode(text[..<c], "host")
                portText = text[text.index(after: c)...]
            } else {
                name = try decode(text, "host")
            }
            guard !name.isEmpty else { throw fail("a port without a host") }
        }
        guard let portText else { return DatabaseURL.Host(name) }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let p = Int(portText),
            (1...65535).contains(p)
        else {
            throw fail("the port of host '\(name)' is not a number from 1 to 65535")
        }
        return DatabaseURL.Host(name, port: p)
    }
}
