// PostgresConnector: opens and configures one libpq connection, with a distinct typed error for each failure.
import CPostgres
import Foundation
import Strata

enum PostgresConnector {
    /// Opens a connection (blocking, bounded by `connect_timeout`) and sets the session up.
    ///
    /// - Throws: ``StrataError/authenticationFailed(_:)`` for refused credentials, else
    ///   ``StrataError/connectionFailed(_:)`` whose message starts with what went wrong:
    ///   `database … does not exist`, `timed out` or `could not connect`.
    static func open(_ options: PostgresConnectionOptions) throws(StrataError) -> OpaquePointer {
        try openSession(options).connection
    }

    /// ``open(_:)``, also returning the process id the server reports from SQL (`pg_backend_pid()`): it differs
    /// from libpq's `PQbackendPID` when a pooler stands between (PgBouncer hands out ids of its own), and the
    /// engine: the URL's `engine`, else the one `version()` and the `citus.version` setting name.
    static func openSession(_ options: PostgresConnectionOptions) throws(StrataError) -> (
        connection: OpaquePointer, serverPID: Int32, engine: PostgresEngine
    ) {
        let pairs = options.libpqParameters
        let connection = withCStringArray(pairs.map(\.0)) { keywords in
            withCStringArray(pairs.map(\.1)) { values in PQconnectdbParams(keywords, values, 0) }
        }
        guard let connection else { throw .connectionFailed("libpq could not allocate a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let error = failure(connection, options)
            PQfinish(connection)
            throw error
        }
        strata_pq_silence_notices(connection)
        do {
            let session = try configure(connection, options)
            return (connection, session.pid, options.engine ?? session.engine)
        } catch {
            PQfinish(connection)
            throw error
        }
    }

    /// Session settings every connection shares: UTC ISO dates, hex bytea, exact float text, the lock and
    /// statement timeouts. Returns the server's `pg_backend_pid()` and the engine its `version()` and
    /// `citus.version` setting name (`version()` is looked up through the session's search path, as any call is).
    private static func configure(_ connection: OpaquePointer, _ options: PostgresConnectionOptions) throws(StrataError)
        -> (pid: Int32, engine: PostgresEngine)
    {
        var sql =
            "SELECT set_config('TimeZone', 'UTC', false), set_config('DateStyle', 'ISO, YMD', false), "
            + "set_config('IntervalStyle', 'iso_8601', false), set_config('client_min_messages', 'warning', false), "
            + "set_config('bytea_output', 'hex', false), set_config('extra_float_digits', '1', false), "
            + "set_config('standard_conforming_strings', 'on', false), set_config('lock_timeout', $1, false)"
        var values = [String(options.lockTimeoutMilliseconds)]
        if let path = options.searchPath {
            sql += ", set_config('search_path', $2, false)"
            values.append(path)
        }
        if let ms = options.statementTimeout {
            values.append(String(ms))
            sql += ", set_config('statement_timeout', $\(values.count), false)"
        }
        sql += ", version(), current_setting('citus.version', true), pg_backend_pid()"
        let result = withCStringArray(values) { v in
            PQexecParams(connection, sql, Int32(values.count), nil, v, nil, nil, 0)
        }
        defer { PQclear(result) }
        guard let result, PQresultStatus(result) == PGRES_TUPLES_OK else {
            let message =
                result.flatMap { strata_pq_message($0) }.map { String(cString: $0) }
                ?? String(cString: PQerrorMessage(connection))
            throw .connectionFailed("cannot configure the session on \(target(connection, options)): \(tidy(message))")
        }
        let last = PQnfields(result) - 1
        let pid = PQgetvalue(result, 0, last).flatMap { Int32(String(cString: $0)) } ?? 0
        let version = PQgetvalue(result, 0, last - 2).map { String(cString: $0) } ?? ""
        let citus =
            PQgetisnull(result, 0, last - 1) == 1 ? nil : PQgetvalue(result, 0, last - 1).map { String(cString: $0) }
        return (pid, PostgresEngine(version: version, citusVersion: citus))
    }

    /// Names the failure: a bad password, a missing database, a timeout, or an unreachable server.
    private static func failure(_ connection: OpaquePointer, _ options: PostgresConnectionOptions) -> StrataError {
        let message = tidy(String(cString: PQerrorMessage(connection)))
        let place = target(connection, options)
        let user = String(cString: PQuser(connection))
        let lower = message.lowercased()
        if PQconnectionNeedsPassword(connection) != 0 || lower.contains("no password supplied") {
            return .authenticationFailed("\(place) wants a password for user '\(user)' and none was given")
        }
        if lower.contains("authentication failed") || lower.contains("password") || lower.contains("scram") {
            return .authenticationFailed("user '\(user)' at \(place): \(message)")
        }
        if lower.contains("database") && lower.contains("does not exist") {
            return .connectionFailed(
                "database '\(String(cString: PQdb(connection)))' does not exist at \(place): \(message)")
        }
        if lower.contains("timeout expired") {
            return .connectionFailed(
                "could not connect to \(place): timed out after \(options.connectTimeout) s: \(message)")
        }
        return .connectionFailed("could not connect to \(place): \(message)")
    }

    /// `host:port/database` as libpq resolved them (a unix socket shows as its directory).
    static func target(_ connection: OpaquePointer, _ options: PostgresConnectionOptions) -> String {
        let host = PQhost(connection).map { String(cString: $0) } ?? options.host ?? "?"
        let port = PQport(connection).map { String(cString: $0) } ?? options.port.map(String.init) ?? "?"
        let db = PQdb(connection).map { String(cString: $0) } ?? options.database ?? "?"
        return "\(host.hasPrefix("/") ? "socket \(host)" : host):\(port)/\(db)"
    }

    /// One line: libpq's messages end in newlines and indent their hints with tabs.
    static func tidy(_ message: String) -> String {
        message.split(whereSeparator: { $0 == "\n" || $0 == "\t" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Calls `body` with a NULL-terminated array of C strings that lives for the call.
    static func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        defer { for c in copies { free(c) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return body(pointers)
    }
}
