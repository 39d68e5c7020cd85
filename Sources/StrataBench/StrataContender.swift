// StrataContender: the Strata side of every workload, the same code on any driver.
import Foundation
import Strata
import StrataEncryption

/// Runs the workloads through Strata's public API on one ``Database``.
///
/// Each timed section spans the whole public call (`db.transaction { … }` included: leasing the
/// connection, BEGIN and COMMIT), as the raw baselines time their BEGIN and COMMIT too.
final class StrataContender: Contender {
    let name: String
    let db: Database
    /// Opens a fresh, empty database of this side's kind, for ``freshDatabases(_:)`` (nil: the side has none).
    let fresh: (() throws -> Database)?

    /// The database `insert-encrypted` writes through: the same driver, with a keyring; one for the contender's
    /// life, so that on `sqlite::memory:` it is the same in-memory database each time.
    let sealed: Database
    /// The first id of the records `fetch-encrypted` reads, and how many (``prepareEncrypted(_:)``).
    private var secrets: (base: Int64, count: Int)?

    init(name: String = "Strata", db: Database, fresh: (() throws -> Database)? = nil) {
        self.name = name
        self.db = db
        self.fresh = fresh
        var configuration = db.configuration
        configuration.encryption = try? AESGCMKeyring([
            AESGCMKeyring.Key(id: "bench", bytes: Data(repeating: 7, count: 32))
        ])
        sealed = Database(driver: db.driver, configuration: configuration)
    }

    func reset() async throws {
        try await db.withConnection { tx in _ = try BenchRecord.deleteAll(tx) }
    }

    func seed(_ count: Int) async throws -> Int64 {
        try await db.transaction { tx in
            var first: Int64 = 0
            for k in 0..<count {
                var r = RecordFactory.model(k)
                try r.save(tx)
                if k == 0, let id = r.id { first = id }
            }
            return first
        }
    }

    func tableDigest() async throws -> Digest {
        let rows = try await db.transaction { tx in try BenchRecord.query(on: tx).order(\.id).all() }
        if rows.isEmpty {
            // After insert-encrypted: the records it wrote, opened (no table yet: nothing was written there).
            if let secrets = try? await sealed.transaction({ tx in try BenchSecret.query(on: tx).order(\.id).all() }),
                !secrets.isEmpty
            {
                return Digests.written(secrets.map(\.record))
            }
            // After insert-history: the records it wrote (no table before its first run).
            if let tracked = try? await db.transaction({ tx in try BenchTracked.query(on: tx).order(\.id).all() }),
                !tracked.isEmpty
            {
                return Digests.written(tracked.map(\.record))
            }
        }
        return Digests.written(rows)
    }

    func insertOneByOne(_ count: Int) async throws -> Sample {
        var records = (0..<count).map(RecordFactory.model)
        return try await timedAsync(
            {
                try await db.transaction { tx in
                    for i in records.indices { try records[i].save(tx) }
                }
            }, digest: { Digests.written(records) })
    }

    /// `insertOneByOne` of ``BenchSecret`` (three columns sealed with AES-256-GCM) on a database over the same
    /// driver whose configuration holds a keyring.
    func insertEncrypted(_ count: Int) async throws -> Sample {
        try await sealed.migrate(BenchSecret.self)
        try await sealed.withConnection { tx in _ = try BenchSecret.deleteAll(tx) }
        try await db.dropTables(BenchTracked.self)  // so that the digest reads this run's table
        var records = (0..<count).map { BenchSecret(RecordFactory.model($0)) }
        return try await timedAsync(
            {
                try await sealed.transaction { tx in
                    for i in records.indices { try records[i].save(tx) }
                }
            }, digest: { Digests.written(records.map(\.record)) })
    }

    /// `insertOneByOne` of ``BenchTracked``, whose writes are recorded in the change history: one more row per
    /// write, and the clock row's update once per transaction. The table and the history are emptied first.
    func insertHistory(_ count: Int) async throws -> Sample {
        try await db.dropTables(BenchTracked.self)
        try await db.migrate(BenchTracked.self)
        try await db.pruneHistory(before: try await db.historyToken())
        try? await sealed.withConnection { tx in _ = try BenchSecret.deleteAll(tx) }  // the digest reads this table
        var records = (0..<count).map { BenchTracked(RecordFactory.model($0)) }
        return try await timedAsync(
            {
                try await db.transaction { tx in
                    for i in records.indices { try records[i].save(tx) }
                }
            }, digest: { Digests.written(records.map(\.record)) })
    }

    func insertOneByOneAborting(_ count: Int) async throws -> Sample {
        var records = (0..<count).map(RecordFactory.model)
        return try await timedAsync(
            {
                try await db.transaction(onFailedStatement: .abortTransaction) { tx in
                    for i in records.indices { try records[i].save(tx) }
                }
            }, digest: { Digests.written(records) })
    }

    /// `insertAll`: multi-row INSERTs chunked under the backend's bind limit, in one transaction.
    func bulkInsert(_ count: Int) async throws -> Sample {
        var records = (0..<count).map(RecordFactory.model)
        return try await timedAsync(
            { try await db.transaction { tx in try BenchRecord.insertAll(&records, tx) } },
            digest: { Digests.written(records) })
    }

    /// `Model.load`: binary COPY on PostgreSQL, in one transaction, no ids back.
    func load(_ count: Int) async throws -> Sample {
        let records = (0..<count).map(RecordFactory.model)
        return try await timedAsync({ try await BenchRecord.load(records, on: db) }, digest: { _ in nil })
    }

    /// Seeds `bench_secret` with the records `seed` writes (sealed), unless it holds them already.
    func prepareEncrypted(_ count: Int) async throws {
        try await sealed.migrate(BenchSecret.self)
        if let secrets, secrets.count == count,
            try await sealed.withConnection({ tx in try BenchSecret.query(on: tx).count() }) == count
        {
            return
        }
        try await sealed.withConnection { tx in _ = try BenchSecret.deleteAll(tx) }
        let first = try await sealed.transaction { tx in
            var first: Int64 = 0
            for k in 0..<count {
                var r = BenchSecret(RecordFactory.model(k))
                try r.save(tx)
                if k == 0, let id = r.id { first = id }
            }
            return first
        }
        secrets = (first, count)
    }

    /// `fetchAll` of ``BenchSecret``: every row's three sealed columns opened.
    func fetchEncrypted(base: Int64) async throws -> Sample {
        let base = secrets?.base ?? 0
        return try await timedAsync(
            { try await sealed.transaction { tx in try BenchSecret.query(on: tx).all() } },
            digest: { Digests.of($0.map(\.record), base: base) })
    }

    func fetchAll(base: Int64) async throws -> Sample {
        try await timedAsync(
            { try await db.transaction { tx in try BenchRecord.query(on: tx).all() } },
            digest: { Digests.of($0, base: base) })
    }

    func lookupsInTransaction(_ ids: [Int64], base: Int64) async throws -> Sample {
        var found: [BenchRecord] = []
        found.reserveCapacity(ids.count)
        return try await timedAsync(
            {
                try await db.transaction { tx in
                    for id in ids {
                        if let r = try BenchRecord.find(id, tx) { found.append(r) }
                    }
                }
            }, digest: { Digests.of(found, base: base) })
    }

    func lookupsOneShot(_ ids: [Int64], base: Int64) async throws -> Sample {
        var found: [BenchRecord] = []
        found.reserveCapacity(ids.count)
        return try await timedAsync(
            {
                for id in ids {
                    if let r = try await BenchRecord.find(id, on: db) { found.append(r) }
                }
            }, digest: { Digests.of(found, base: base) })
    }

    func oneShotQueries(_ thresholds: [Int], limit: Int, base: Int64) async throws -> Sample {
        var found: [BenchRecord] = []
        found.reserveCapacity(thresholds.count * limit)
        return try await timedAsync(
            {
                for t in thresholds {
                    found += try await BenchRecord.query(on: db).where(\.i1 > t).order(\.d1).limit(limit).all()
                }
            }, digest: { Digests.of(found, base: base) })
    }

    func filteredQueries(_ thresholds: [Int], limit: Int, base: Int64) async throws -> Sample {
        var found: [BenchRecord] = []
        found.reserveCapacity(thresholds.count * limit)
        return try await timedAsync(
            {
                try await db.transaction { tx in
                    for t in thresholds {
                        found += try BenchRecord.query(on: tx).where(\.i1 > t).order(\.d1).limit(limit).all()
                    }
                }
            }, digest: { Digests.of(found, base: base) })
    }

    func stream(base: Int64) async throws -> Sample {
        try await timedAsync(
            {
                try await db.transaction { tx in
                    var d = Digest()
                    try BenchRecord.query(on: tx).forEach { r in d.add(r, base: base) }
                    return d
                }
            }, digest: { $0 })
    }

    func close() { db.close() }
}
