// MariaDBBenchTests: strata-mariadb-bench's two sides read and write the same rows, at a tiny scale.
import Foundation
import StrataMariaDBBenchKit
import Testing

@Suite("Bench")
struct MariaDBBenchTests {
    @Test("Strata and raw libmariadb agree on every workload's checksum and on the tables they leave")
    func checksumsAgree() async throws {
        var options = BenchOptions()
        options.url = try MariaDBTestServer.baseURL
        options.scale = 500
        options.iterations = 1
        options.database = "strata_bench_test"
        // run() throws when a checksum or a table differs between the sides.
        let results = try await BenchRunner(options: options).run()
        #expect(results.map(\.workload) == MariaDBWorkload.allCases)
        #expect(results.allSatisfy { $0.strataMilliseconds.count == 1 && $0.rawMilliseconds.count == 1 })
        #expect(results.allSatisfy { !$0.checksum.hasPrefix("0000000000000000") })
    }
}
