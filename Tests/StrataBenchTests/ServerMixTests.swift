// ServerMixTests: the server mix runs on PostgreSQL beside libpq, every update it counted is in the balances, and
// both sides report their rate and costs.
import Foundation
import Strata
import StrataPostgres
import Testing

@testable import StrataBench

@Suite("Server mix")
struct ServerMixTests {
    static let environment = ProcessInfo.processInfo.environment
    static let url = environment["STRATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "postgres://"
    /// A server answered, or this is CI, where a missing server must fail.
    static let server: Bool =
        (try? Database.open(url, drivers: [.postgres])) != nil || environment["CI"]?.lowercased() == "true"

    @Test(
        "the server mix checks every update against the balances and reports both sides",
        .enabled(if: server, "needs PostgreSQL (pg_virtualenv -t -v 15 swift test)"))
    func serverMix() async throws {
        let path = try #require(Pgbench.find(), "pgbench is installed with postgresql-15")
        var options = BenchOptions(backends: [.postgres], workloads: [.serverMix], scale: 1)
        options.postgresURL = Self.url
        options.iterations = 1
        options.throughputSeconds = 1
        let runner = ThroughputRunner(options: options, pgbench: Pgbench(path: path, url: Self.url), log: { _ in })
        // Throws when the balances grew by other than the updates either side counted (a lost update).
        let result = try await runner.serverMix()
        #expect(result.writesChecked > 0)
        #expect(result.strata.requestsPerSecond > 0 && result.raw.requestsPerSecond > 0)
        #expect(result.strata.clientMicroseconds > 0 && result.raw.clientMicroseconds > 0)
        #if os(Linux)
            #expect((result.strata.serverMicroseconds ?? 0) > 0, "the server's CPU is read from /proc")
            #expect((result.raw.serverMicroseconds ?? 0) > 0, "the raw side's backends were still open when read")
            #expect(result.strata.peakThreads != nil)
        #endif
        #expect(TextTable.renderServerMix(result).contains("libpq, 8 threads"))
    }
}
