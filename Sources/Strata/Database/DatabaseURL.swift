// DatabaseURL: parses the database URLs Strata accepts into their parts, with typed errors.
import Foundation

/// A parsed database URL.
///
/// Accepted forms: `sqlite:relative/path.sqlite`, `sqlite:///abs/path.sqlite`, `sqlite://relative.sqlite`,
/// `sqlite::memory:`, `memory:` (optionally `memory:name`), `postgres://user:pass@host:port/db?sslmode=…`
/// (`postgresql://` too). Query parameters follow `?` and are kept as given.
public struct DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    public var scheme: String
    /// For `sqlite`: the file path or `:memory:`. For `memory`: the store name (may be empty).
    public var path: String
    public var user: String?
    public var password: String?
    public var host: String?
    public var port: Int?
    /// The database name (postgres).
    public var database: String?
    public var parameters: [String: String]
    /// The URL as given (its description redacts the password).
    public var original: String

    public var description: String { URLRedaction.redact(original) }

    /// Parses a URL.
    ///
    /// - Throws: ``StrataError/invalidURL(_:reason:)`` naming what is wrong, or
    ///   ``StrataError/unknownScheme(_:)``.
    public init(_ string: String) throws(StrataError) {
        original = string
        let trimmed = string.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .invalidURL(string, reason: "empty URL") }
        guard let colon = trimmed.firstIndex(of: ":") else {
            throw .invalidURL(string, reason: "missing scheme (expected e.g. sqlite:app.sqlite or memory:)")
        }
        let scheme = trimmed[..<colon].lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
        else {
            throw .invalidURL(string, reason: "malformed scheme '\(trimmed[..<colon])'")
        }
        var rest = String(trimmed[trimmed.index(after: colon)...])
        var parameters: [String: String] = [:]
        if let q = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: q)...].split(separator: "&") where !pair.isEmpty {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let key = kv.first.map(String.init)?.removingPercentEncoding, !key.isEmpty else {
                    throw .invalidURL(string, reason: "malformed query parameter '\(pair)'")
                }
                parameters[key] = kv.count > 1 ? (String(kv[1]).removingPercentEncoding ?? String(kv[1])) : ""
            }
            rest = String(rest[..<q])
        }
        self.parameters = parameters
        self.scheme = scheme
        switch scheme {
        case "sqlite", "sqlite3":
            self.scheme = "sqlite"
            if rest.hasPrefix("//") { rest.removeFirst(2) }  // sqlite:///abs → /abs, sqlite://rel → rel
            guard !rest.isEmpty else { throw .invalidURL(string, reason: "missing SQLite file path") }
            guard !rest.contains("\0") else { throw .invalidURL(string, reason: "path contains NUL") }
            path = rest.removingPercentEncoding ?? rest
        case "memory", "mem":
            self.scheme = "memory"
            if rest.hasPrefix("//") { rest.removeFirst(2) }
            path = rest
        case "postgres", "postgresql":
            self.scheme = "postgres"
            path = ""
            try parseAuthority(rest, original: string)
        default:
            throw .unknownScheme(String(scheme))
        }
    }

    private mutating func parseAuthority(_ rest: String, original string: String) throws(StrataError) {
        guard rest.hasPrefix("//") else { throw .invalidURL(string, reason: "expected '//' after 'postgres:'") }
        var authority = String(rest.dropFirst(2))
        if let slash = authority.firstIndex(of: "/") {
            let db = String(authority[authority.index(after: slash)...])
            database = db.isEmpty ? nil : db.removingPercentEncoding ?? db
            authority = String(authority[..<slash])
        }
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            if let c = userInfo.firstIndex(of: ":") {
                user = String(userInfo[..<c]).removingPercentEncoding
                password = String(userInfo[userInfo.index(after: c)...]).removingPercentEncoding
            } else {
                user = String(userInfo).removingPercentEncoding
            }
            if user?.isEmpty == true { user = nil }
            authority = String(authority[authority.index(after: at)...])
        }
        var hostPart = authority
        if hostPart.hasPrefix("[") {  // IPv6 literal
            guard let close = hostPart.firstIndex(of: "]") else {
                throw .invalidURL(string, reason: "unclosed '[' in host")
            }
            host = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
            hostPart = String(hostPart[hostPart.index(after: close)...])
            if hostPart.hasPrefix(":") {
                try parsePort(String(hostPart.dropFirst()), string)
            } else if !hostPart.isEmpty {
                throw .invalidURL(string, reason: "unexpected text after host")
            }
        } else if let c = hostPart.lastIndex(of: ":") {
            host = String(hostPart[..<c]).removingPercentEncoding
            try parsePort(String(hostPart[hostPart.index(after: c)...]), string)
        } else {
            host = hostPart.removingPercentEncoding
        }
        if host?.isEmpty == true { host = nil }
        if let h = parameters["host"], host == nil { host = h }
    }

    private mutating func parsePort(_ text: String, _ string: String) throws(StrataError) {
        guard let p = Int(text), (1...65535).contains(p) else {
            throw .invalidURL(string, reason: "port '\(text)' is not a number from 1 to 65535")
        }
        port = p
    }
}
