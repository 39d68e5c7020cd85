// Cases+URL: any driver plugs into the URL registry the same way, and bad URLs fail with typed errors.
import Strata

extension ConformanceSuite {
    /// The driver under test behind schemes the core was not written for, read as a server URL, with one
    /// parameter of its own: what a third-party driver's factory declares.
    static func plugged(_ db: Database) -> DriverFactory {
        let driver = db.driver
        return DriverFactory(
            schemes: ["conformance", "conformance-alias"], module: "StrataConformance", parameters: ["shard"],
            urlSyntax: .server
        ) { _, _ in driver }
    }

    static let urlCases: [ConformanceCase] = [
        ConformanceCase("url.forms") { db in
            let factory = plugged(db)
            let url = try DatabaseURL("Conformance-Alias://ann:s%40cret@db.local:6543/shop?shard=3", drivers: [factory])
            try checkEqual(url.scheme, "conformance", "an alias folds to the driver's first scheme")
            try checkEqual(url.user, "ann", "user")
            try checkEqual(url.password, "s@cret", "password")
            try checkEqual(url.host, "db.local", "host")
            try checkEqual(url.port, 6543, "port")
            try checkEqual(url.database, "shop", "database")
            try checkEqual(url.parameters["shard"], "3", "the driver's own parameter")
            try check(
                !url.description.contains("s%40cret") && !url.description.contains("s@cret"),
                "description hides the password")
            let opened = try Database.open(
                "conformance://ann:s%40cret@h/shop?shard=1&pool=2&migrate=off", drivers: [factory])
            try checkEqual(opened.driverName, db.driverName, "the registered driver opens")
            try checkEqual(opened.maxConnections, 2, "pool= is read by the core for every driver")
            try check(opened.configuration.migration == .disabled, "migrate= is read by the core for every driver")
        },
        ConformanceCase("url.malformed") { db in
            let factory = plugged(db)
            for bad in [
                "", "no-scheme-here", "conformance:/nohost", "conformance://h:99999/db", "conformance://h/db?pool=zero",
                "conformance://h/db?migrate=maybe", "conformance://h/db?Shard=1", "conformance://h/db?journal=wal",
            ] {
                try await checkThrows(
                    "URL '\(bad)'",
                    {
                        if case .invalidURL = $0 { return true }
                        return false
                    }
                ) { try Database.open(bad, drivers: [factory]) }
            }
            try await checkThrows(
                "a bad URL's error",
                {
                    guard case .invalidURL = $0 else { return false }
                    return !"\($0)".contains("hunter2")
                }
            ) { try Database.open("conformance://ann:hunter2@h:x/db", drivers: [factory]) }
        },
        ConformanceCase("url.unknown-scheme") { db in
            try await checkThrows("mysql URL", { $0 == .unknownScheme("mysql") }) {
                try Database.open("mysql://localhost/db", drivers: [plugged(db)])
            }
            try await checkThrows("a driver not passed", { $0 == .unknownScheme("conformance") }) {
                try Database.open("conformance://h/db", drivers: [])
            }
        },
    ]
}
