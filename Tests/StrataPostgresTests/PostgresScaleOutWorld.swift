// PostgresScaleOutWorld: a database and a login role of its own in the test cluster, set up so that a real
// PostgreSQL 15 answers and refuses as a scale-out engine (CockroachDB, Citus, YugabyteDB) does.
import Foundation
import Strata
import StrataPostgres
import Testing

/// One simulation's database and role, both named `name`. The role owns the database; its search path is
/// `public, engine_sim, pg_catalog`, so a `version()` in schema `engine_sim` answers instead of PostgreSQL's.
struct PostgresScaleOutWorld {
    let name: String

    /// What `version()` answers on each engine (the forms each vendor prints).
    static let cockroachVersion =
        "CockroachDB CCL v24.1.0 (x86_64-pc-linux-gnu, built 2024/05/15 16:00:00, go1.22.3)"
    static let yugabyteVersion =
        "PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 16.0.6, 64-bit"

    /// Makes the database and role afresh (dropping any left by an earlier run), then runs `setup` in the new
    /// database as the superuser.
    ///
    /// - Parameters:
    ///   - name: the database's and the role's name.
    ///   - version: what `version()` answers the role, or nil for PostgreSQL's own.
    ///   - setup: further statements, run as the superuser in the new database.
    static func make(_ name: String, version: String? = nil, setup: [String] = []) async throws -> Self {
        let admin = try PostgresTestServer.open()
        defer { admin.close() }
        try await admin.unsafeRawExecute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        try await admin.unsafeRawExecute("DROP ROLE IF EXISTS \(name)")
        try await admin.unsafeRawExecute("CREATE ROLE \(name) LOGIN PASSWORD 'scaleout'")
        try await admin.unsafeRawExecute("CREATE DATABASE \(name) OWNER \(name)")
        let world = Self(name: name)
        let inside = try world.admin()
        defer { inside.close() }
        try await inside.unsafeRawExecute("CREATE SCHEMA engine_sim")
        try await inside.unsafeRawExecute("GRANT USAGE ON SCHEMA engine_sim TO \(name)")
        try await inside.unsafeRawExecute(
            "ALTER ROLE \(name) IN DATABASE \(name) SET search_path = public, engine_sim, pg_catalog")
        if let version {
            try await inside.unsafeRawExecute(
                "CREATE FUNCTION engine_sim.version() RETURNS text LANGUAGE sql AS $$ SELECT '\(version)'::text $$")
        }
        for sql in setup { try await inside.unsafeRawExecute(sql) }
        return world
    }

    /// The URL that connects as the role to its database, with `parameters` appended.
    func url(_ parameters: String...) -> String {
        PostgresTestServer.url(with: ["user=\(name)", "password=scaleout", "dbname=\(name)"] + parameters)
    }

    /// A database opened as the role, waiting at most `timeout` seconds for a lock.
    func open(_ parameters: String..., timeout: Double = 5) throws -> Database {
        try Database.open(
            PostgresTestServer.url(with: ["user=\(name)", "password=scaleout", "dbname=\(name)"] + parameters),
            drivers: [.postgres], configuration: Configuration(timeout: timeout))
    }

    /// The engine one new connection of the role detects (or the URL pins).
    func engine(_ parameters: String...) throws -> PostgresEngine? {
        let driver = try PostgresDriver(
            url: PostgresTestServer.url(with: ["user=\(name)", "password=scaleout", "dbname=\(name)"] + parameters))
        return (try driver.connect() as? PostgresConnection)?.engine
    }

    /// The superuser, in the world's database.
    func admin() throws -> Database {
        try Database.open(PostgresTestServer.url(with: ["dbname=\(name)"]), drivers: [.postgres])
    }

    /// One integer the superuser reads in the world's database.
    func count(_ sql: String) async throws -> Int64? {
        let admin = try admin()
        defer { admin.close() }
        guard case .integer(let n)? = try await admin.unsafeRawExecute(sql).first?.first else { return nil }
        return n
    }

    /// Drops the database and the role.
    func drop() async throws {
        let admin = try PostgresTestServer.open()
        defer { admin.close() }
        try await admin.unsafeRawExecute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        try await admin.unsafeRawExecute("DROP ROLE IF EXISTS \(name)")
    }
}

extension PostgresTestServer {
    /// The base URL with `parameters` (`key=value`) appended.
    static func url(with parameters: [String]) -> String {
        baseURL + (baseURL.contains("?") ? "&" : "?") + parameters.joined(separator: "&")
    }
}
