// BenchRunner: sets up the database, runs each workload on both sides in turn, and checks their checksums agree.
import Foundation
import Strata
import StrataMariaDB

/// One workload's figures: every timed run of each side, in milliseconds, and the checksum both agreed on.
public struct WorkloadResult: Codable, Sendable {
    public var workload: MariaDBWorkload
    public var label: String
    public var strataMilliseconds: [Double]
    public var rawMilliseconds: [Double]
    public var checksum: String

    public var strataMedian: Double { Self.median(strataMilliseconds) }
    public var rawMedian: Double { Self.median(rawMilliseconds) }
    /// Strata's median over raw libmariadb's (0 when one side did not run: `--side`).
    public var ratio: Double {
        strataMilliseconds.isEmpty || rawMilliseconds.isEmpty ? 0 : strataMedian / max(rawMedian, 1e-9)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}

/// Runs the bench.
public struct BenchRunner {
    let options: BenchOptions
    let sizes: Sizes
    /// Rows per multi-row statement: the binary protocol's 65,535 parameters over nine inserted columns, as
    /// `insertAll` and `upsertAll` chunk them.
    let rowsPerStatement = 65_535 / 9

    public init(options: BenchOptions) {
        self.options = options
        sizes = Sizes(scale: options.scale)
    }

    /// Runs every workload asked for; throws when a checksum differs. `report` is called after each workload.
    public func run(report: (WorkloadResult) -> Void = { _ in }) async throws -> [WorkloadResult] {
        let base = try options.url ?? BenchServer.start(port: options.port)
        let admin = try BenchServer.raw(base, database: nil)
        try admin.exec("DROP DATABASE IF EXISTS \(options.database)")
        try admin.exec("CREATE DATABASE \(options.database) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin")
        defer { try? admin.exec("DROP DATABASE IF EXISTS \(options.database)") }
        let db = try Database.open(base + "/" + options.database + "?pool=2", drivers: [.mariadb])
        defer { db.close() }
        try await db.migrate(BenchRecord.self, BenchKeyed.self)
        let strata = StrataSide(db)
        let raw = RawSide(try BenchServer.raw(base, database: options.database))
        var results: [WorkloadResult] = []
        var seeded: Int64?
        for workload in options.workloads {
            let result: WorkloadResult
            switch workload {
            case .insert, .bulk:
                seeded = nil
                result = try await measure(
                    workload, table: "bench_record", raw: raw,
                    prepare: { try raw.connection.exec("TRUNCATE TABLE bench_record") },
                    strata: {
                        workload == .insert
                            ? try await strata.insertOneByOne(sizes.insert) : try await strata.bulkInsert(sizes.bulk)
                    },
                    raw: {
                        workload == .insert
                            ? try await raw.insertOneByOne(sizes.insert)
                            : try await raw.bulkInsert(sizes.bulk, rowsPerStatement: rowsPerStatement)
                    })
            case .fetch, .lookupTx, .query:
                let first = try await seededBase(&seeded, db: db, raw: raw)
                let ids = (0..<sizes.lookups).map { first + Int64(($0 &* 7_919) % sizes.fetch) }
                // i1 > t: the top 200–300 of i1's 100,003 values, times the scale (so 200–300 rows match).
                let thresholds = (0..<sizes.queries).map {
                    RecordFactory.i1Range - (300 - $0 % 100) * options.scale
                }
                result = try await measure(
                    workload, table: nil, raw: raw, prepare: {},
                    strata: {
                        switch workload {
                        case .fetch: return try await strata.fetchAll(base: first)
                        case .lookupTx: return try await strata.lookups(ids, base: first)
                        default:
                            return try await strata.filteredQueries(thresholds, limit: sizes.queryLimit, base: first)
                        }
                    },
                    raw: {
                        switch workload {
                        case .fetch: return try await raw.fetchAll(base: first)
                        case .lookupTx: return try await raw.lookups(ids, base: first)
                        default: return try await raw.filteredQueries(thresholds, limit: sizes.queryLimit, base: first)
                        }
                    })
            case .upsert:
                result = try await measure(
                    workload, table: "bench_keyed", raw: raw,
                    prepare: {
                        try raw.connection.exec("TRUNCATE TABLE bench_keyed")
                        var rows = stride(from: 0, to: sizes.upsert, by: 2).map { RecordFactory.seededKeyed($0).keyed }
                        try await db.transaction { tx in try BenchKeyed.insertAll(&rows, tx) }
                    },
                    strata: { try await strata.upsert(sizes.upsert) },
                    raw: { try await raw.upsert(sizes.upsert, rowsPerStatement: rowsPerStatement) })
            }
            report(result)
            results.append(result)
        }
        return results
    }

    /// Seeds bench_record with the read workloads' rows once (outside any timing); the first id.
    private func seededBase(_ seeded: inout Int64?, db: Database, raw: RawSide) async throws -> Int64 {
        if let seeded { return seeded }
        try raw.connection.exec("TRUNCATE TABLE bench_record")
        var rows = (0..<sizes.fetch).map { RecordFactory.raw($0).record }
        try await db.transaction { tx in try BenchRecord.insertAll(&rows, tx) }
        let first = rows.first?.id ?? 0
        seeded = first
        return first
    }

    /// One warm-up run of each side, then ``BenchOptions/iterations`` timed runs of each, alternating which goes
    /// first; `prepare` runs before every run (untimed). Every run's checksum must be the same on both sides, and
    /// for a write, so must the table each side left behind.
    private func measure(
        _ workload: MariaDBWorkload, table: String?, raw side: RawSide, prepare: () async throws -> Void,
        strata: () async throws -> Sample, raw: () async throws -> Sample
    ) async throws -> WorkloadResult {
        var strataTimes: [Double] = []
        var rawTimes: [Double] = []
        var expected: Digest?
        var tables: [String: Digest] = [:]
        for round in 0...options.iterations {
            let order = round % 2 == 0 ? ["Strata", "raw"] : ["raw", "Strata"]
            for name in order where options.side.map({ $0 == name.lowercased() }) ?? true {
                try await prepare()
                let sample = name == "raw" ? try await raw() : try await strata()
                if let expected, expected != sample.checksum {
                    throw RawMariaDBError(
                        description: "\(workload.rawValue): checksums differ: \(name) \(sample.checksum), "
                            + "the other \(expected)")
                }
                expected = sample.checksum
                if round > 0, name == "raw" { rawTimes.append(sample.milliseconds) }
                if round > 0, name == "Strata" { strataTimes.append(sample.milliseconds) }
                if let table, round == options.iterations { tables[name] = try side.tableDigest(table) }
            }
        }
        if let table, let a = tables["Strata"], let b = tables["raw"], a != b {
            throw RawMariaDBError(description: "\(workload.rawValue): \(table) differs after the sides: \(a) vs \(b)")
        }
        return WorkloadResult(
            workload: workload, label: workload.label(sizes), strataMilliseconds: strataTimes,
            rawMilliseconds: rawTimes, checksum: expected.map { "\($0)" } ?? "")
    }
}
