// PostgresURLTests: multi-host URLs reach libpq as host and port lists, and unknown parameters are refused by name.
import Foundation
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test("a multi-host URL becomes one host list and one port list, in order")
    func multiHostOptions() throws {
        let o = try PostgresConnectionOptions(
            url: DatabaseURL("postgres://u:p@h1:5432,[::1]:5433,h3/db", drivers: [.postgres]))
        #expect(o.hosts == [.init("h1", port: 5432), .init("::1", port: 5433), .init("h3")])
        #expect(o.host == "h1" && o.port == 5432 && o.user == "u" && o.password == "p" && o.database == "db")
        #expect(o.description == "u@h1:5432,[::1]:5433,h3:$PGPORT/db")
        let listed = try PostgresConnectionOptions(
            url: DatabaseURL("postgres:///db?host=h1,h2&port=5432,", drivers: [.postgres]))
        #expect(listed.host == "h1,h2" && listed.port == nil && listed.extra["port"] == "5432,")
        #expect(throws: StrataError.self) {
            try PostgresConnectionOptions(
                url: DatabaseURL("postgres:///db?host=h1,h2&port=5432,x", drivers: [.postgres]))
        }
        let single = try PostgresConnectionOptions(url: DatabaseURL("postgres://u@h1:5432/db", drivers: [.postgres]))
        #expect(single.hosts.isEmpty && single.host == "h1" && single.port == 5432)
    }

    @Test(
        "a parameter libpq does not know is refused by name; a mis-cased one gets a hint",
        arguments: [
            ("bogus=1", "unknown parameter 'bogus' for postgres URLs"),
            ("SSLMODE=disable", "did you mean 'sslmode'?"),
            ("Pool=2", "did you mean 'pool'?"),
        ])
    func unknownParameter(_ query: String, _ reason: String) {
        #expect {
            try Database.open("postgres://nobody@127.0.0.1:1/x?\(query)", drivers: [.postgres])
        } throws: { error in
            guard case StrataError.invalidURL(_, let why) = error else { return false }
            return why.contains(reason)
        }
    }
}

extension PostgresServerTests {
    @Suite("PostgreSQL multi-host URLs")
    struct PostgresMultiHostTests {
        static func encoded(_ s: String) -> String {
            s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s
        }

        @Test("a URL naming a dead host first and the live server second connects to the live one")
        func deadHostFirst() async throws {
            let live = try PostgresConnectionOptions(url: DatabaseURL(PostgresTestServer.baseURL, drivers: [.postgres]))
            let env = ProcessInfo.processInfo.environment
            let host = live.host ?? env["PGHOST"] ?? "localhost"
            let port = live.port ?? env["PGPORT"].flatMap { Int($0) } ?? 5432
            var userInfo = ""
            if let user = live.user {
                userInfo = Self.encoded(user) + (live.password.map { ":" + Self.encoded($0) } ?? "") + "@"
            }
            let shownHost = host.contains(":") && !host.hasPrefix("/") ? "[\(host)]" : Self.encoded(host)
            let url =
                "postgres://\(userInfo)127.0.0.1:1,\(shownHost):\(port)/" + Self.encoded(live.database ?? "")
            let parsed = try DatabaseURL(url, drivers: [.postgres])
            #expect(parsed.hosts.count == 2 && parsed.hosts[0] == .init("127.0.0.1", port: 1))
            let db = try Database.open(url, drivers: [.postgres])
            defer { db.close() }
            let rows = try await db.unsafeRawExecute("SELECT current_setting('port')")
            #expect(rows == [[.text(String(port))]])
            // The dead host alone fails, so the list really was tried in order.
            #expect(throws: StrataError.self) {
                try Database.open("postgres://\(userInfo)127.0.0.1:1/x", drivers: [.postgres])
            }
        }
    }
}
