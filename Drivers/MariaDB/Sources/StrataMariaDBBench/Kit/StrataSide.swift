// StrataSide: every workload through Strata's public API over the mariadb:// driver, as the root bench runs them.
import Strata

/// Runs the workloads on one ``Database``. Each timed section spans the whole public call (`db.transaction { … }`
/// included: leasing the connection, START TRANSACTION and COMMIT), as the raw side times its own.
final class StrataSide {
    let db: Database

    init(_ db: Database) { self.db = db }

    func insertOneByOne(_ count: Int) async throws -> Sample {
        var records = (0..<count).map { RecordFactory.raw($0).record }
        return try await timed(
            {
                try await db.transaction { tx in
                    for i in records.indices { try records[i].save(tx) }
                }
            }, digest: { Digest.written(records.map(RawRecord.init)) })
    }

    /// `insertAll`: multi-row INSERTs chunked under the bind limit, in one transaction.
    func bulkInsert(_ count: Int) async throws -> Sample {
        var records = (0..<count).map { RecordFactory.raw($0).record }
        return try await timed(
            { try await db.transaction { tx in try BenchRecord.insertAll(&records, tx) } },
            digest: { Digest.written(records.map(RawRecord.init)) })
    }

    func fetchAll(base: Int64) async throws -> Sample {
        try await timed(
            { try await db.transaction { tx in try BenchRecord.query(on: tx).all() } },
            digest: { Digest.of($0.map(RawRecord.init), base: base) })
    }

    func lookups(_ ids: [Int64], base: Int64) async throws -> Sample {
        var found: [BenchRecord] = []
        found.reserveCapacity(ids.count)
        return try await timed(
            {
                try await db.transaction { tx in
                    for id in ids {
                        if let r = try BenchRecord.find(id, tx) { found.append(r) }
                    }
                }
            }, digest: { Digest.of(found.map(RawRecord.init), base: base) })
    }

    func filteredQueries(_ thresholds: [Int], limit: Int, base: Int64) async throws -> Sample {
        var found: [BenchRecord] = []
        return try await timed(
            {
                try await db.transaction { tx in
                    for t in thresholds {
                        found += try BenchRecord.query(on: tx).where(\.i1 > t).order(\.d1).limit(limit).all()
                    }
                }
            }, digest: { Digest.of(found.map(RawRecord.init), base: base) })
    }

    /// `upsertAll(onConflict: [\.i1])` in one transaction: ids read back.
    func upsert(_ count: Int) async throws -> Sample {
        var records = (0..<count).map { RecordFactory.raw($0).keyed }
        return try await timed(
            { try await db.transaction { tx in try BenchKeyed.upsertAll(&records, tx, onConflict: [\.i1]) } },
            digest: { Digest.written(records.map(RawRecord.init)) })
    }
}
