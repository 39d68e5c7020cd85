// StrataContender+Upsert: Strata's side of the upsert and long-IN workloads, through the public API.
import Strata

extension StrataContender {
    func seedKeyed(_ count: Int) async throws {
        var rows = KeyedBench.seeded(count).map(KeyedBench.model)
        try await db.transaction { tx in
            _ = try BenchKeyed.deleteAll(tx)
            try BenchKeyed.insertAll(&rows, tx)
        }
    }

    /// `upsertAll(onConflict: [\.i1])` in one transaction.
    func upsert(_ count: Int) async throws -> Sample {
        var records = (0..<count).map { KeyedBench.model(KeyedBench.raw($0)) }
        return try await timedAsync(
            { try await db.transaction { tx in try BenchKeyed.upsertAll(&records, tx, onConflict: [\.i1]) } },
            digest: { Digests.written(records.map(KeyedBench.raw)) })
    }

    func keyedDigest() async throws -> Digest {
        let rows = try await db.transaction { tx in try BenchKeyed.query(on: tx).order(\.id).all() }
        return Digests.written(rows.map(KeyedBench.raw))
    }

    /// `where(\.id, in: ids)`: one statement, the ids bound as one array on SQL backends.
    func inLookup(_ ids: [Int64], base: Int64) async throws -> Sample {
        try await timedAsync(
            { try await db.transaction { tx in try BenchRecord.query(on: tx).where(\.id, in: ids).all() } },
            digest: { Digests.of($0, base: base) })
    }
}
