// DatabaseURLTests: the URL grammar, table-driven: every accepted form with its exact parts, every refusal with its reason.
import Foundation
import Testing

@testable import Strata

/// The parts a valid URL must parse into.
struct ExpectedURL: Sendable, CustomTestStringConvertible {
    var input: String
    var scheme: String
    var path = ""
    var user: String?
    var password: String?
    var hosts: [DatabaseURL.Host] = []
    var host: String?
    var port: Int?
    var database: String?
    var parameters: [String: String] = [:]

    var testDescription: String { input }
}

typealias H = DatabaseURL.Host

/// Factories that read URLs as the built-in drivers do (each driver module declares its own the same way), for
/// a core test target that links no driver; they never make a driver.
let urlDrivers: [DriverFactory] = [
    DriverFactory(schemes: ["sqlite", "sqlite3"], module: "Test", urlSyntax: .path(missing: "missing SQLite file path"))
    {
        _, _ in throw StrataError.unsupported(feature: "opening", driver: "a URL test")
    },
    DriverFactory(schemes: ["memory", "mem"], module: "Test", urlSyntax: .path("store name")) { _, _ in
        throw StrataError.unsupported(feature: "opening", driver: "a URL test")
    },
    DriverFactory(schemes: ["postgres", "postgresql"], module: "Test", urlSyntax: .server) { _, _ in
        throw StrataError.unsupported(feature: "opening", driver: "a URL test")
    },
]

@Suite("Database URL grammar")
struct DatabaseURLTests {
    static let valid: [ExpectedURL] = [
        ExpectedURL(input: "sqlite:app.sqlite", scheme: "sqlite", path: "app.sqlite"),
        ExpectedURL(input: "sqlite:data/app.sqlite", scheme: "sqlite", path: "data/app.sqlite"),
        ExpectedURL(input: "sqlite:///var/db/app.sqlite", scheme: "sqlite", path: "/var/db/app.sqlite"),
        ExpectedURL(input: "sqlite:/var/db/app.sqlite", scheme: "sqlite", path: "/var/db/app.sqlite"),
        ExpectedURL(input: "sqlite://rel/app.sqlite", scheme: "sqlite", path: "rel/app.sqlite"),
        ExpectedURL(input: "sqlite::memory:", scheme: "sqlite", path: ":memory:"),
        ExpectedURL(input: "SQLITE::memory:", scheme: "sqlite", path: ":memory:"),
        ExpectedURL(input: "sqlite3:x.db", scheme: "sqlite", path: "x.db"),
        ExpectedURL(input: "  sqlite:app.sqlite  ", scheme: "sqlite", path: "app.sqlite"),
        ExpectedURL(input: "sqlite:/tmp/a%20b%23c.sqlite", scheme: "sqlite", path: "/tmp/a b#c.sqlite"),
        ExpectedURL(input: "sqlite:/tmp/caf%C3%A9.sqlite", scheme: "sqlite", path: "/tmp/café.sqlite"),
        ExpectedURL(
            input: "sqlite:app.sqlite?pool=3&migrate=off", scheme: "sqlite", path: "app.sqlite",
            parameters: ["pool": "3", "migrate": "off"]),
        ExpectedURL(input: "sqlite:app.sqlite?", scheme: "sqlite", path: "app.sqlite"),
        ExpectedURL(input: "memory:", scheme: "memory"),
        ExpectedURL(input: "memory:shared", scheme: "memory", path: "shared"),
        ExpectedURL(input: "memory://shared", scheme: "memory", path: "shared"),
        ExpectedURL(input: "mem:x", scheme: "memory", path: "x"),
        ExpectedURL(input: "memory:?pool=2", scheme: "memory", parameters: ["pool": "2"]),
        ExpectedURL(input: "postgres://", scheme: "postgres"),
        ExpectedURL(input: "postgresql://", scheme: "postgres"),
        ExpectedURL(
            input: "postgresql://ann@db.local/shop", scheme: "postgres", user: "ann", hosts: [H("db.local")],
            host: "db.local", database: "shop"),
        ExpectedURL(
            input: "postgres://ann:s%40cret@db.local:6543/shop?sslmode=require", scheme: "postgres", user: "ann",
            password: "s@cret", hosts: [H("db.local", port: 6543)], host: "db.local", port: 6543, database: "shop",
            parameters: ["sslmode": "require"]),
        ExpectedURL(
            input: "postgres://u:p@h1:5432,h2:5433/db", scheme: "postgres", user: "u", password: "p",
            hosts: [H("h1", port: 5432), H("h2", port: 5433)], host: "h1", port: 5432, database: "db"),
        ExpectedURL(
            input: "postgres://u@h1,h2:5433,10.0.0.3/db", scheme: "postgres", user: "u",
            hosts: [H("h1"), H("h2", port: 5433), H("10.0.0.3")], host: "h1", database: "db"),
        ExpectedURL(
            input: "postgres://[::1]:5432/db", scheme: "postgres", hosts: [H("::1", port: 5432)], host: "::1",
            port: 5432, database: "db"),
        ExpectedURL(
            input: "postgres://[::1],[2001:db8::2]:5433/db", scheme: "postgres",
            hosts: [H("::1"), H("2001:db8::2", port: 5433)], host: "::1", database: "db"),
        ExpectedURL(
            input: "postgres://%2Fvar%2Frun%2Fpostgresql/db", scheme: "postgres", hosts: [H("/var/run/postgresql")],
            host: "/var/run/postgresql", database: "db"),
        ExpectedURL(
            input: "postgres:///shop?host=/var/run/postgresql", scheme: "postgres", host: "/var/run/postgresql",
            database: "shop", parameters: ["host": "/var/run/postgresql"]),
        ExpectedURL(
            input: "postgres://u:@h/db", scheme: "postgres", user: "u", password: "", hosts: [H("h")], host: "h",
            database: "db"),
        ExpectedURL(
            input: "postgres://u:p%3Aw%2Fd@h/d%20b", scheme: "postgres", user: "u", password: "p:w/d", hosts: [H("h")],
            host: "h", database: "d b"),
        ExpectedURL(
            input: "postgres://u:p@ss@h/db", scheme: "postgres", user: "u", password: "p@ss", hosts: [H("h")],
            host: "h", database: "db"),
        ExpectedURL(
            input: "postgres://%C3%A9l%C3%A8ve@h/%C3%A9cole", scheme: "postgres", user: "élève", hosts: [H("h")],
            host: "h", database: "école"),
        ExpectedURL(
            input: "postgres://h/db?application_name=a%26b&options=-c%20x%3D1&flag", scheme: "postgres",
            hosts: [H("h")], host: "h", database: "db",
            parameters: ["application_name": "a&b", "options": "-c x=1", "flag": ""]),
        ExpectedURL(input: "postgres://h/", scheme: "postgres", hosts: [H("h")], host: "h"),
    ]

    @Test("accepted URLs parse into exactly these parts", arguments: valid)
    func accepted(_ e: ExpectedURL) throws {
        let url = try DatabaseURL(e.input, drivers: urlDrivers)
        #expect(url.scheme == e.scheme)
        #expect(url.path == e.path)
        #expect(url.user == e.user)
        #expect(url.password == e.password)
        #expect(url.hosts == e.hosts)
        #expect(url.host == e.host)
        #expect(url.port == e.port)
        #expect(url.database == e.database)
        #expect(url.parameters == e.parameters)
        #expect(url.original == e.input)
    }

    static let invalid: [(String, String)] = [
        ("", "empty URL"),
        ("   ", "empty URL"),
        ("no-scheme-here", "missing scheme"),
        ("1sqlite:x", "malformed scheme"),
        ("sq lite:x", "malformed scheme"),
        ("sqlite:", "missing SQLite file path"),
        ("sqlite://", "missing SQLite file path"),
        ("sqlite:?pool=2", "missing SQLite file path"),
        ("sqlite:/tmp/a%00b.sqlite", "the path contains NUL"),
        ("sqlite:/tmp/a%zzb.sqlite", "malformed percent-encoding in the path"),
        ("sqlite:/tmp/100%.sqlite", "malformed percent-encoding in the path"),
        ("sqlite:a#b.sqlite", "'#'"),
        ("sqlite:a.db?pool=1&pool=2", "parameter 'pool' is given twice"),
        ("sqlite:a.db?=1", "a query parameter has no name"),
        ("sqlite:a.db?k=%00", "contains NUL"),
        ("sqlite:a.db?k%00=1", "the parameter name contains NUL"),
        ("memory:a%00b", "the store name contains NUL"),
        ("postgres:/nohost", "expected '//'"),
        ("postgres:h/db", "expected '//'"),
        ("postgres://h:99999/db", "not a number from 1 to 65535"),
        ("postgres://h:0/db", "not a number from 1 to 65535"),
        ("postgres://h:/db", "not a number from 1 to 65535"),
        ("postgres://h:5432x/db", "not a number from 1 to 65535"),
        ("postgres://h:+5/db", "not a number from 1 to 65535"),
        ("postgres://h1:5432,h2:x/db", "the port of host 'h2'"),
        ("postgres://::1/db", "in brackets"),
        ("postgres://[::1/db", "unclosed '['"),
        ("postgres://[::1]x/db", "unexpected text after ']'"),
        ("postgres://[zz]/db", "malformed IPv6"),
        ("postgres://[]:5432/db", "malformed IPv6"),
        ("postgres://h]/db", "misplaced"),
        ("postgres://h1,,h2/db", "empty host"),
        ("postgres://h1,/db", "empty host"),
        ("postgres://:5432/db", "a port without a host"),
        ("postgres://u:p@h/d%00b", "the database name contains NUL"),
        ("postgres://u%00:p@h/db", "the user name contains NUL"),
        ("postgres://h%00x/db", "the host contains NUL"),
    ]

    @Test("refused URLs throw invalidURL with this reason", arguments: invalid)
    func refused(_ input: String, _ reason: String) {
        do {
            let url = try DatabaseURL(input, drivers: urlDrivers)
            Issue.record("accepted '\(input)' as \(url.scheme) \(url.path) \(url.hosts)")
        } catch let StrataError.invalidURL(url, reason: why) {
            #expect(url == input)
            #expect(why.contains(reason), "\(why)")
        } catch {
            Issue.record("wrong error for '\(input)': \(error)")
        }
    }

    @Test("an unknown scheme is unknownScheme, lowercased")
    func unknownScheme() {
        #expect(throws: StrataError.unknownScheme("oracle")) { try DatabaseURL("oracle://x", drivers: urlDrivers) }
        #expect(throws: StrataError.unknownScheme("mysql")) { try DatabaseURL("MySQL://x", drivers: urlDrivers) }
    }

    @Test(
        "the password is never shown, whatever else is wrong",
        arguments: [
            "postgres://me:hunter2@host:notaport/db",
            "postgres://me:hunter2@h/d%00b",
            "postgres://me:hunter2@[::1/db",
            "postgres://me:hunter2@h1,,h2/db",
            "postgres://me:hunter2@h/db?a=1&a=2",
            "postgres://me:hun@ter2@h:x/db",
            "postgres://me:hunter2@h/db#frag",
            "postgres://me:hunter2%00@h/db",
            "postgres://me:hunt/er2@h:x/db",
        ])
    func passwordHidden(_ input: String) {
        do {
            _ = try DatabaseURL(input, drivers: urlDrivers)
            Issue.record("accepted '\(input)'")
        } catch {
            let shown = "\(error)"
            #expect(!shown.contains("hunter2") && !shown.contains("ter2") && !shown.contains("er2"), "\(shown)")
            #expect(shown.contains("***"), "\(shown)")
        }
        #expect(!URLRedaction.redact(input).contains("er2"))
    }

    @Test("a password query parameter is hidden in the description, in errors and in redacted text")
    func passwordParameterHidden() throws {
        let url = try DatabaseURL(
            "postgres://ann@h/shop?sslmode=require&password=hunter2&sslpassword=key%20pw", drivers: urlDrivers)
        #expect(url.parameters["password"] == "hunter2", "still parsed")
        #expect(url.description == "postgres://ann@h/shop?sslmode=require&password=***&sslpassword=***")
        #expect(
            URLRedaction.redact("sqlite:x.sqlite?PassWord=hunter2&journal=wal")
                == "sqlite:x.sqlite?PassWord=***&journal=wal")
        #expect(URLRedaction.redact("postgres://h/db?pass%77ord=hunter2") == "postgres://h/db?pass%77ord=***")
        #expect(
            URLRedaction.redact("postgres://ann:pw1@h/db?password=hunter2") == "postgres://ann:***@h/db?password=***")
        for bad in ["postgres://h:notaport/db?password=hunter2", "postgres://h/db?password=hunter2&password=x"] {
            do {
                _ = try DatabaseURL(bad, drivers: urlDrivers)
                Issue.record("accepted '\(bad)'")
            } catch {
                #expect(!"\(error)".contains("hunter2"), "\(error)")
            }
        }
    }

    @Test("the description of a valid URL hides the password")
    func descriptionRedacts() throws {
        let url = try DatabaseURL("postgres://ann:s%40cret@h1:5432,h2:5433/shop?sslmode=require", drivers: urlDrivers)
        #expect(url.description == "postgres://ann:***@h1:5432,h2:5433/shop?sslmode=require")
    }

    @Test("a driver the core was not written for serves its own scheme, with its own grammar and parameters")
    func thirdPartyScheme() throws {
        let shards = DriverFactory(
            schemes: ["Shards", "shard"], module: "ShardKit", parameters: ["zone"],
            urlSyntax: URLSyntax { rest, url throws(StrataError) in
                guard rest.hasPrefix("@") else { throw .invalidURL(url.original, reason: "expected '@' and a shard") }
                url.path = try url.decoded(rest.dropFirst(), part: "shard")
            }
        ) { _, _ in throw StrataError.unsupported(feature: "opening", driver: "a URL test") }
        let url = try DatabaseURL("SHARD:@eu%2D1?zone=b&pool=2", drivers: urlDrivers + [shards])
        #expect(url.scheme == "shards", "folded to the driver's first scheme")
        #expect(url.path == "eu-1")
        #expect(url.parameters == ["zone": "b", "pool": "2"])
        #expect(throws: StrataError.invalidURL("shards:eu-1", reason: "expected '@' and a shard")) {
            try DatabaseURL("shards:eu-1", drivers: [shards])
        }
        #expect(throws: StrataError.unknownScheme("shards")) { try DatabaseURL("shards:@eu-1", drivers: urlDrivers) }
        #expect(throws: StrataError.unknownScheme("sqlite")) { try DatabaseURL("sqlite:a.db", drivers: [shards]) }
    }

    @Test("a registered driver's URLs parse without naming it; a later registration for its schemes replaces it")
    func registered() throws {
        let scheme = "strata-registry-test"
        #expect(throws: StrataError.unknownScheme(scheme)) { try DatabaseURL(scheme + ":x") }
        Database.register(
            DriverFactory(schemes: [scheme], module: "Test", urlSyntax: .path()) { _, _ in
                throw StrataError.unsupported(feature: "opening", driver: "a URL test")
            })
        #expect(try DatabaseURL(scheme + "://x").path == "x")
        Database.register(
            DriverFactory(schemes: [scheme.uppercased()], module: "Test", urlSyntax: .server) { _, _ in
                throw StrataError.unsupported(feature: "opening", driver: "a URL test")
            })
        #expect(try DatabaseURL(scheme + "://h:5/db").hosts == [H("h", port: 5)])
    }
}
