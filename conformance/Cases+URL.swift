// Cases+URL: database URLs parse the same way for every driver, and bad ones fail with typed errors.
import Strata

extension ConformanceSuite {
    static let urlCases: [ConformanceCase] = [
        ConformanceCase("url.forms") { _ in
            let rel = try DatabaseURL("sqlite:data/app.sqlite")
            try checkEqual(rel.path, "data/app.sqlite", "relative sqlite path")
            try checkEqual(try DatabaseURL("sqlite:///tmp/a.sqlite").path, "/tmp/a.sqlite", "absolute sqlite path")
            try checkEqual(try DatabaseURL("sqlite::memory:").path, ":memory:", "sqlite in memory")
            try checkEqual(try DatabaseURL("memory:").scheme, "memory", "memory scheme")
            let pg = try DatabaseURL("postgres://ann:s%40cret@db.local:6543/shop?sslmode=require")
            try checkEqual(pg.user, "ann", "pg user")
            try checkEqual(pg.password, "s@cret", "pg password")
            try checkEqual(pg.host, "db.local", "pg host")
            try checkEqual(pg.port, 6543, "pg port")
            try checkEqual(pg.database, "shop", "pg database")
            try checkEqual(pg.parameters["sslmode"], "require", "pg sslmode")
            try check(
                !pg.description.contains("s%40cret") && !pg.description.contains("s@cret"),
                "description hides the password")
        },
        ConformanceCase("url.malformed") { _ in
            for bad in [
                "", "no-scheme-here", "sqlite:", "postgres:/nohost", "postgres://h:99999/db", "sqlite:a.db?pool=zero",
            ] {
                try await checkThrows(
                    "URL '\(bad)'",
                    {
                        if case .invalidURL = $0 { return true }
                        return false
                    }
                ) { try Database.open(bad, drivers: []) }
            }
        },
        ConformanceCase("url.unknown-scheme") { _ in
            try await checkThrows("mysql URL", { $0 == .unknownScheme("mysql") }) {
                try Database.open("mysql://localhost/db", drivers: [])
            }
            try await checkThrows(
                "unregistered driver",
                {
                    if case .driverNotRegistered(scheme: "sqlite", _) = $0 { return true }
                    return false
                }
            ) { try Database.open("sqlite:x.sqlite", drivers: []) }
        },
    ]
}
