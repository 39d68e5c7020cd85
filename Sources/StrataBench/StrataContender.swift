// StrataContender: the Strata side of every workload, the same code on any driver.
import Strata

/// Runs the workloads through Strata's public API on one ``Database``.
///
/// Each timed section spans the whole public call (`db.transaction { … }` included: leasing the
/// connection, BEGIN and COMMIT), as the raw baselines time their BEGIN and COMMIT too.
final class StrataContender: Contender {
    let name: String
    let db: Database

    init(name: String = "Strata", db: Database) {
        self.name = name
        self.db = db
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

    func insertOneByOne(_ count: Int) async throws -> Sample {
        var records = (0..<count).map(RecordFactory.model)
        return try await timedAsync {
            try await db.transaction { tx in
                var saved = 0
                for i in records.indices {
                    try records[i].save(tx)
                    if records[i].id != nil { saved += 1 }
                }
                return saved
            }
        }
    }

    /// `insertAll`: multi-row INSERTs chunked under the backend's bind limit, in one transaction.
    func bulkInsert(_ count: Int) async throws -> Sample {
        var records = (0..<count).map(RecordFactory.model)
        return try await timedAsync {
            try await db.transaction { tx in
                try BenchRecord.insertAll(&records, tx)
                return records.count { $0.id != nil }
            }
        }
    }

    func fetchAll() async throws -> Sample {
        try await timedAsync {
            try await db.transaction { tx in
                let rows = try BenchRecord.query(on: tx).all()
                return rows.reduce(rows.count) { $0 &+ Digest.of($1) }
            }
        }
    }

    func lookupsInTransaction(_ ids: [Int64]) async throws -> Sample {
        try await timedAsync {
            try await db.transaction { tx in
                var sum = 0
                for id in ids {
                    if let r = try BenchRecord.find(id, tx) { sum = sum &+ Digest.of(r) }
                }
                return sum
            }
        }
    }

    func lookupsOneShot(_ ids: [Int64]) async throws -> Sample {
        try await timedAsync {
            var sum = 0
            for id in ids {
                if let r = try await BenchRecord.find(id, on: db) { sum = sum &+ Digest.of(r) }
            }
            return sum
        }
    }

    func filteredQueries(_ thresholds: [Int], limit: Int) async throws -> Sample {
        try await timedAsync {
            try await db.transaction { tx in
                var sum = 0
                for t in thresholds {
                    let rows = try BenchRecord.query(on: tx).where(\.i1 > t).order(\.d1).limit(limit).all()
                    sum = rows.reduce(sum &+ rows.count) { $0 &+ Digest.of($1) }
                }
                return sum
            }
        }
    }

    func stream() async throws -> Sample {
        try await timedAsync {
            try await db.transaction { tx in
                var sum = 0
                try BenchRecord.query(on: tx).forEach { r in sum = sum &+ Digest.of(r) &+ 1 }
                return sum
            }
        }
    }

    func close() { db.close() }
}
