// FuzzBackends: the databases the differential tests compare: memory, SQLite and, when a server answers, PostgreSQL.
import Foundation
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite

/// The URLs under test. PostgreSQL is `STRATA_POSTGRES_URL` or `postgres://` with libpq's environment (as
/// `pg_virtualenv` sets it), in a schema of its own; without a server the run compares memory and SQLite
/// and says so loudly, unless `CI=true`, where a missing server is a failure.
enum FuzzBackends {
    static let environment = ProcessInfo.processInfo.environment
    static let drivers: [DriverFactory] = [.memory, .sqlite, .postgres]
    static let isCI = environment["CI"]?.lowercased() == "true"
    static let postgresBase = environment["STRATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "postgres://"

    /// The generated queries per run: `STRATA_FUZZ_QUERIES`, or 10,000.
    static let queries = environment["STRATA_FUZZ_QUERIES"].flatMap { Int($0) } ?? 10_000
    /// The run's seed: `STRATA_FUZZ_SEED`, or a fixed one so a red run reproduces.
    static let seed = environment["STRATA_FUZZ_SEED"].flatMap { UInt64($0) } ?? 20_261_123

    /// A PostgreSQL URL whose connections use the fresh schema `name`, or nil (with a banner) when no server answers.
    static func postgres(schema name: String) async throws -> String? {
        if case .failure(let error) = server {
            if isCI { throw error }
            return nil
        }
        let admin = try Database.open(postgresBase, drivers: [.postgres])
        defer { admin.close() }
        let quoted = try PostgresDialect().quote(name)
        try await admin.unsafeRawExecute("DROP SCHEMA IF EXISTS \(quoted) CASCADE")
        try await admin.unsafeRawExecute("CREATE SCHEMA \(quoted)")
        return postgresBase + (postgresBase.contains("?") ? "&" : "?") + "search_path=\(name)"
    }

    /// Whether a server answers, probed once (the banner is printed once per run).
    static let server: Result<Void, any Error> = {
        do {
            try Database.open(postgresBase, drivers: [.postgres]).close()
            return .success(())
        } catch {
            let banner = String(repeating: "!", count: 78)
            print(
                """
                \(banner)
                !! StrataDifferential: no PostgreSQL server at \(postgresBase) (\(error)).
                !! \(isCI ? "CI=true, so this FAILS." : "Comparing memory and SQLite ONLY. With PostgreSQL: pg_virtualenv -t -v 15 swift test")
                \(banner)
                """)
            return .failure(error)
        }
    }()

    /// memory, SQLite and (when there is a server) PostgreSQL in schema `schema`.
    static func urls(schema: String) async throws -> [String] {
        var urls = ["memory:", "sqlite::memory:"]
        if let pg = try await postgres(schema: schema) { urls.append(pg) }
        return urls
    }
}
