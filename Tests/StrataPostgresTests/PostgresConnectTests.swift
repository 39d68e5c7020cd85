// PostgresConnectTests: URLs, the libpq environment fallback, and distinct typed errors for each way connecting fails.
import Foundation
import Strata
import StrataPostgres
import Testing

/// The message of an `.authenticationFailed` error, or nil for any other error.
func authenticationFailure(_ body: () throws -> Void) -> String? {
    do {
        try body()
    } catch StrataError.authenticationFailed(let message) {
        return message
    } catch {
        Issue.record("expected StrataError.authenticationFailed, got \(error)")
    }
    return nil
}

/// The message of a `.connectionFailed` error, or nil for any other error.
func connectionFailure(_ body: () throws -> Void) -> String? {
    do {
        try body()
    } catch StrataError.connectionFailed(let message) {
        return message
    } catch {
        Issue.record("expected StrataError.connectionFailed, got \(error)")
    }
    return nil
}

@Suite("PostgreSQL connecting, without a server")
struct PostgresConnectOfflineTests {
    @Test("a malformed URL or an unknown parameter is invalidURL, before any connection")
    func malformed() {
        for bad in [
            "postgres:/nohost", "postgres://h:99999/db", "postgres://h/db?sslmod=require",
            "postgres://h/db?sslmode=sometimes", "postgres://h/db?connect_timeout=soon", "postgres://h/db?pool=0",
        ] {
            #expect("\(bad) is rejected") {
                try Database.open(bad, drivers: [.postgres])
            } throws: { error in
                if case StrataError.invalidURL = error { return true }
                return false
            }
        }
    }

    @Test("a refused port fails fast with 'could not connect'")
    func refused() {
        let clock = ContinuousClock()
        var message: String?
        let elapsed = clock.measure {
            message = connectionFailure {
                _ = try Database.open(
                    "postgres://nobody@127.0.0.1:1/x", drivers: [.postgres],
                    configuration: Configuration(timeout: 2))
            }
        }
        #expect(message?.hasPrefix("could not connect to 127.0.0.1:1/x") == true, "\(message ?? "")")
        #expect(elapsed < .seconds(2))
    }

    @Test("an unroutable host fails within the connect timeout")
    func unroutable() {
        let clock = ContinuousClock()
        var message: String?
        let elapsed = clock.measure {
            message = connectionFailure {
                _ = try Database.open(
                    "postgres://nobody@10.255.255.1:5432/x", drivers: [.postgres],
                    configuration: Configuration(timeout: 2))
            }
        }
        #expect(message?.hasPrefix("could not connect to 10.255.255.1:5432/x") == true, "\(message ?? "")")
        #expect(elapsed < .seconds(3.5), "the 2 s connect timeout was honoured: \(elapsed)")
    }

    @Test("URL parts, libpq parameters and search_path become connection options")
    func options() throws {
        let url = try DatabaseURL(
            "postgres://ann:s%40cret@db.local:6543/shop?sslmode=require&search_path=tenant_1"
                + "&application_name=billing&pool=3", drivers: [.postgres])
        let o = try PostgresConnectionOptions(url: url, configuration: Configuration(timeout: 7.5))
        #expect(
            o.host == "db.local" && o.port == 6543 && o.user == "ann" && o.password == "s@cret" && o.database == "shop")
        #expect(o.searchPath == "tenant_1")
        #expect(o.extra == ["sslmode": "require", "application_name": "billing"])
        #expect(o.connectTimeout == 8)
        #expect(o.lockTimeoutMilliseconds == 7500)
        #expect(!o.description.contains("s@cret"))
        let socket = try PostgresConnectionOptions(
            url: DatabaseURL("postgres:///shop?host=/var/run/postgresql", drivers: [.postgres]))
        #expect(socket.host == "/var/run/postgresql" && socket.database == "shop" && socket.port == nil)
        let bare = try PostgresConnectionOptions(url: DatabaseURL("postgres://", drivers: [.postgres]))
        #expect(
            bare.host == nil && bare.port == nil && bare.user == nil && bare.password == nil && bare.database == nil,
            "left to PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE")
    }

    @Test("the driver takes its pool size from the configuration, 4 by default")
    func poolSize() throws {
        #expect(try PostgresDriver(url: "postgres://h/db").maxConnections == 4)
        #expect(
            try PostgresDriver(url: "postgres://h/db", configuration: Configuration(maxConnections: 9)).maxConnections
                == 9)
        #expect(try PostgresDriver(url: "postgres://h/db").name == "postgres")
    }
}

extension PostgresServerTests {
    @Suite("PostgreSQL connecting")
    struct PostgresConnectTests {
        /// The server's options as the tests reach it (URL and environment).
        func serverOptions() throws -> PostgresConnectionOptions {
            try PostgresConnectionOptions(url: DatabaseURL(PostgresTestServer.baseURL, drivers: [.postgres]))
        }

        @Test("postgres:// alone connects through PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE")
        func environmentFallback() async throws {
            let db = try PostgresTestServer.open()
            defer { db.close() }
            let rows = try await db.unsafeRawExecute(
                "SELECT current_setting('TimeZone'), current_setting('application_name')")
            #expect(rows == [[.text("UTC"), .text("strata")]])
        }

        @Test("a bad password fails within the timeout with its own typed error")
        func badPassword() throws {
            var options = try serverOptions()
            options.password = "definitely-not-the-password"
            if (try? PostgresConnection(options: options)) != nil {
                print(
                    "!! PostgresConnectTests.badPassword: the server does not check passwords (trust auth); nothing to test"
                )
                return
            }
            let clock = ContinuousClock()
            var message: String?
            let elapsed = clock.measure {
                message = authenticationFailure { _ = try PostgresConnection(options: options) }
            }
            #expect(message?.contains("user '") == true, "\(message ?? "")")
            #expect(message?.contains("definitely-not-the-password") == false, "the password is never shown")
            #expect(elapsed < .seconds(5))
        }

        @Test("a missing database says so")
        func missingDatabase() throws {
            var options = try serverOptions()
            options.database = "strata_no_such_database"
            let message = connectionFailure { _ = try PostgresConnection(options: options) }
            #expect(message?.hasPrefix("database 'strata_no_such_database' does not exist") == true, "\(message ?? "")")
        }

        @Test("a unix-socket directory as host reaches the server")
        func unixSocket() async throws {
            let admin = try PostgresTestServer.open()
            defer { admin.close() }
            let dirs = try await admin.unsafeRawExecute("SHOW unix_socket_directories")
            guard case .text(let list)? = dirs.first?.first,
                let dir = list.split(separator: ",").first.map({ $0.trimmingCharacters(in: .whitespaces) }),
                dir.hasPrefix("/")
            else {
                print("!! PostgresConnectTests.unixSocket: the server listens on no socket directory; nothing to test")
                return
            }
            var options = try serverOptions()
            options.host = dir
            do {
                let connection = try PostgresConnection(options: options)
                #expect(connection.serverVersion > 0)
            } catch StrataError.authenticationFailed(let message) {
                // Reaching the socket is what is tested; peer authentication may then refuse a root test run.
                #expect(message.contains("socket \(dir)"), "\(message)")
            }
        }
    }
}
