// PostgresConnectionOptions+Timeouts: reads the prepare, statement_timeout and keepalive URL parameters.
import Strata

/// How a connection sends its statements (the `prepare` URL parameter).
public enum PostgresPrepareMode: String, Sendable, Hashable, CaseIterable {
    /// Named prepared statements, cached per connection: the fastest, but a pooler in transaction mode
    /// (PgBouncer's `pool_mode = transaction`) runs them on whichever server connection is free, where the
    /// name may not exist; that fails with a typed error saying to use `prepare=off`.
    case on
    /// Every statement sent unnamed with its parameters (`PQsendQueryParams`), which works through any pooler.
    case off
    /// `off` when the connection goes through a pooler (the process id libpq was given at connect differs from
    /// the server's `pg_backend_pid()`, as with PgBouncer, pgcat or Odyssey), `on` otherwise.
    case auto
}

/// When single reads go through the pool's statement loop (the `loop` URL parameter; see
/// ``PostgresConnectionOptions/loop``).
public enum PostgresLoopMode: String, Sendable, Hashable, CaseIterable {
    /// While other calls hold connections of the pool; a call alone runs on the caller's thread.
    case auto
    /// Always, even a call alone.
    case always
    /// Never: every call runs on its connection's thread (or the caller's, alone).
    case off
}

extension PostgresConnectionOptions {
    /// How long past ``statementTimeout`` the client waits for the server's answer before it gives up on the
    /// connection: 2 seconds.
    public static let answerGrace = 2000

    /// The client-side deadline of one call, from ``statementTimeout`` plus ``answerGrace``; nil waits forever.
    var callTimeout: Duration? {
        statementTimeout.flatMap { $0 > 0 ? .milliseconds($0 + Self.answerGrace) : nil }
    }

    static func prepareMode(_ value: String, url: DatabaseURL) throws(StrataError) -> PostgresPrepareMode {
        guard let mode = PostgresPrepareMode(rawValue: value) else {
            throw .invalidURL(url.original, reason: "prepare must be on, off or auto, not '\(value)'")
        }
        return mode
    }

    /// A duration as PostgreSQL writes it (`250ms`, `5s`, `2min`, or a bare number of milliseconds), in milliseconds.
    static func milliseconds(_ value: String, parameter: String, url: DatabaseURL) throws(StrataError) -> Int {
        let units: [(String, Int)] = [("ms", 1), ("min", 60_000), ("s", 1000), ("h", 3_600_000)]
        var digits = Substring(value)
        var scale = 1
        for (suffix, factor) in units where value.hasSuffix(suffix) {
            digits = value.dropLast(suffix.count)
            scale = factor
            break
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(digits),
            n <= 86_400_000 / scale
        else {
            throw .invalidURL(
                url.original,
                reason: "\(parameter) must be a whole number of ms, s, min or h up to one day (e.g. 5s), not '\(value)'"
            )
        }
        return n * scale
    }

    static func checkWholeNumber(_ value: String, parameter: String, url: DatabaseURL) throws(StrataError) {
        guard !value.isEmpty, value.count <= 9, value.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .invalidURL(url.original, reason: "\(parameter) must be a whole number, not '\(value)'")
        }
    }
}
