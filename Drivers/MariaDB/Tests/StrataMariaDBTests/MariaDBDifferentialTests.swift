// MariaDBDifferentialTests: the differential engine with MariaDB as a backend beside memory and SQLite (and
// PostgreSQL when STRATA_MARIADB_FUZZ_POSTGRES names one): generated queries from a printed seed, each divergence
// either one of MariaDB's known gaps (counted by name) or a failure.
import Foundation
import Strata
import StrataDifferential
import StrataMariaDB
import StrataMemory
import StrataPostgres
import StrataSQLite
import Testing

@Suite("MariaDB differential")
struct MariaDBDifferentialTests {
    @Test("generated queries answer on MariaDB as on memory and SQLite, or diverge by a known gap")
    func fuzz() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed =
            environment["STRATA_MARIADB_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max))
        let queries = environment["STRATA_MARIADB_FUZZ_QUERIES"].flatMap { Int($0) } ?? 200
        try await MariaDBTestServer.freshDatabase("strata_fuzz").close()
        var urls = ["memory:", "sqlite::memory:", try MariaDBTestServer.baseURL + "/strata_fuzz"]
        if let postgres = environment["STRATA_MARIADB_FUZZ_POSTGRES"], !postgres.isEmpty { urls.append(postgres) }
        // MariaDB's DOUBLE holds no infinity and its DECIMAL(65,30) 35 integer digits: values past them are a
        // setup error there by design (SEMANTICS), so the generator keeps within them.
        var options = FuzzOptions(seed: seed, queries: queries, queriesPerSchema: 50)
        options.infinities = false
        options.decimalIntegerDigits = 35
        let engine = try DifferentialEngine(
            urls: urls, drivers: [.memory, .sqlite, .mariadb, .postgres], options: options)
        let mariadb = try #require(engine.backends.first { $0.name.hasPrefix("mariadb") } ?? engine.backends.last)
        print(
            "fuzz[mariadb]: seed \(seed), \(queries) queries on " + engine.backends.map(\.name).joined(separator: ", ")
                + " (STRATA_MARIADB_FUZZ_SEED=\(seed) repeats them)")
        let report = engine.run()
        var known: [String: Int] = [:]
        var unknown: [String] = []
        for d in report.divergences {
            let sql = d.shownSelect.flatMap { mariadb.sql(.select($0)) } ?? d.shownWrite.flatMap { mariadb.sql($0) }
            if let gap = MariaDBKnownGaps.divergence(check: d.check, sql: sql ?? "", details: d.details) {
                known[gap, default: 0] += 1
            } else {
                unknown.append(
                    "\(d.check) batch \(d.batch) query \(d.query): \(sql ?? "?")\n  \(d.details.prefix(600))")
            }
        }
        print(
            "fuzz[mariadb]: \(report.summary); " + (report.knownSummary.map { $0 + "; " } ?? "")
                + "MariaDB's known gaps: "
                + (known.isEmpty
                    ? "none"
                    : known.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                        .joined(separator: ", ")))
        for u in unknown.prefix(5) { print("fuzz[mariadb]: new divergence: \(u)") }
        #expect(unknown.isEmpty, "\(unknown.count) new divergences with seed \(seed)")
    }

    @Test("a write refused by another constraint counts as constraint-order only when the tables agreed after it")
    func constraintOrderClassifier() {
        let sql = "UPDATE `fz_child` SET `date_2` = ?, `parent_id` = ? WHERE (`uuid_0` > ?)"
        let pair =
            "  memory (memory:): error uniqueViolation: unique constraint violated on fz_child(date_2)\n"
            + "  mariadb (mariadb://root@127.0.0.1:3316/strata_fuzz): error foreignKeyViolation: foreign key"
        let agreed = DifferentialEngine.constraintsDifferMarker + "\n" + pair
        #expect(MariaDBKnownGaps.constraintOrder(sql: sql, details: agreed))
        #expect(!MariaDBKnownGaps.constraintOrder(sql: sql, details: pair), "the tables differed, or were not read")
        #expect(!MariaDBKnownGaps.constraintOrder(sql: "SELECT 1", details: agreed))
        let notNull = agreed.replacingOccurrences(of: "error foreignKeyViolation", with: "error notNullViolation")
        #expect(!MariaDBKnownGaps.constraintOrder(sql: sql, details: notNull))
        let sqliteToo = agreed + "\n  sqlite (sqlite::memory:): error foreignKeyViolation: foreign key"
        #expect(!MariaDBKnownGaps.constraintOrder(sql: sql, details: sqliteToo), "the others must agree")
    }
}
