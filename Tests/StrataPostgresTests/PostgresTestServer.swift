// PostgresTestServer: finds the PostgreSQL server the tests use, and skips (or fails in CI) when there is none.
import Foundation
import Strata
import StrataPostgres

/// The server under test: `STRATA_POSTGRES_URL`, or `postgres://` with libpq's environment
/// (`PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE`, as `pg_virtualenv` sets them).
///
/// With no server reachable the PostgreSQL tests are skipped with a loud message, unless `CI=true`,
/// where they run and fail.
enum PostgresTestServer {
    static let environment = ProcessInfo.processInfo.environment

    /// The base URL, without parameters.
    static let baseURL: String = environment["STRATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "postgres://"

    static let isCI = environment["CI"]?.lowercased() == "true"

    /// Whether the tests should run: a server answered, or this is CI (where a missing server must fail).
    static let enabled: Bool = {
        do {
            _ = try Database.open(baseURL, drivers: [.postgres])
            return true
        } catch {
            let banner = String(repeating: "!", count: 78)
            print(
                """
                \(banner)
                !! StrataPostgres tests: no PostgreSQL server at \(baseURL) (\(error)).
                !! \(isCI ? "CI=true, so they run and FAIL." : "SKIPPING them. Run them with: pg_virtualenv -t -v 15 swift test")
                \(banner)
                """)
            return isCI
        }
    }()

    /// The base URL with `parameters` (`key=value`) appended.
    static func url(_ parameters: String...) -> String {
        guard !parameters.isEmpty else { return baseURL }
        return baseURL + (baseURL.contains("?") ? "&" : "?") + parameters.joined(separator: "&")
    }

    /// Opens the server's database with `parameters` appended to the URL.
    static func open(_ parameters: String..., timeout: Double = 5, poolTimeout: Double = 30) throws -> Database {
        let u =
            parameters.isEmpty
            ? baseURL : baseURL + (baseURL.contains("?") ? "&" : "?") + parameters.joined(separator: "&")
        return try Database.open(
            u, drivers: [.postgres], configuration: Configuration(timeout: timeout, poolTimeout: poolTimeout))
    }

    /// A fresh, empty schema named `name` (dropped first if it exists), and a database whose connections use it.
    static func freshSchema(_ name: String, _ parameters: String...) async throws -> Database {
        let admin = try open()
        defer { admin.close() }
        let quoted = try PostgresDialect().quote(name)
        try await admin.unsafeRawExecute("DROP SCHEMA IF EXISTS \(quoted) CASCADE")
        try await admin.unsafeRawExecute("CREATE SCHEMA \(quoted)")
        return try Database.open(url(["search_path=\(name)"] + parameters), drivers: [.postgres])
    }

    private static func url(_ parameters: [String]) -> String {
        baseURL + (baseURL.contains("?") ? "&" : "?") + parameters.joined(separator: "&")
    }

    /// Drops a schema made by ``freshSchema(_:_:)``.
    static func dropSchema(_ name: String) async throws {
        let admin = try open()
        defer { admin.close() }
        try await admin.unsafeRawExecute("DROP SCHEMA IF EXISTS \(try PostgresDialect().quote(name)) CASCADE")
    }
}
