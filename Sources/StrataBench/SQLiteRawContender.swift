// SQLiteRawContender: the libsqlite3 baseline: prepare once, bind, step, read columns into a plain struct.
import CSQLite

/// Runs the workloads straight through libsqlite3 on the same file Strata uses.
final class SQLiteRawContender: Contender {
    let name = "libsqlite3"
    private let db: RawSQLite

    private static let insert =
        "INSERT INTO bench_record (\(BenchSQL.insertColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
    private static let byID = "\(BenchSQL.selectAll) WHERE id = ?1"
    private static let filtered = "\(BenchSQL.selectAll) WHERE i1 > ?1 ORDER BY d1 LIMIT ?2"

    init(path: String) throws { db = try RawSQLite(path: path) }

    func reset() async throws { try db.exec("DELETE FROM bench_record") }

    func seed(_ count: Int) async throws -> Int64 {
        let rows = (0..<count).map(RecordFactory.raw)
        try db.exec("BEGIN IMMEDIATE")
        let first = try insertAll(rows)
        try db.exec("COMMIT")
        return first
    }

    /// Inserts the rows with one prepared statement; returns the first new id.
    private func insertAll(_ rows: [RawRecord]) throws -> Int64 {
        let s = try db.statement(Self.insert)
        var first: Int64 = 0
        for (k, r) in rows.enumerated() {
            try RawSQLite.withBound(r, to: s) { try db.stepDone(s) }
            if k == 0 { first = sqlite3_last_insert_rowid(db.handle) }
        }
        return first
    }

    func insertOneByOne(_ count: Int) async throws -> Sample {
        var rows = (0..<count).map(RecordFactory.raw)
        let s = try db.statement(Self.insert)
        return try timed {
            try db.exec("BEGIN IMMEDIATE")
            var saved = 0
            for i in rows.indices {
                try RawSQLite.withBound(rows[i], to: s) { try db.stepDone(s) }
                rows[i].id = sqlite3_last_insert_rowid(db.handle)
                saved += 1
            }
            try db.exec("COMMIT")
            return saved
        }
    }

    /// SQLite's fastest bulk path is the same prepared single-row INSERT in one transaction (no parsing,
    /// no round trips); multi-row VALUES measured no faster here.
    func bulkInsert(_ count: Int) async throws -> Sample {
        let rows = (0..<count).map(RecordFactory.raw)
        let s = try db.statement(Self.insert)
        return try timed {
            try db.exec("BEGIN IMMEDIATE")
            for r in rows { try RawSQLite.withBound(r, to: s) { try db.stepDone(s) } }
            try db.exec("COMMIT")
            return rows.count
        }
    }

    func fetchAll() async throws -> Sample {
        let s = try db.statement(BenchSQL.selectAll)
        return try timed {
            try db.exec("BEGIN")
            var rows: [RawRecord] = []
            while sqlite3_step(s) == SQLITE_ROW { rows.append(RawSQLite.record(s)) }
            sqlite3_reset(s)
            try db.exec("COMMIT")
            return rows.reduce(rows.count) { $0 &+ Digest.of($1) }
        }
    }

    private func lookups(_ ids: [Int64]) throws -> Int {
        let s = try db.statement(Self.byID)
        var sum = 0
        for id in ids {
            sqlite3_bind_int64(s, 1, id)
            if sqlite3_step(s) == SQLITE_ROW { sum = sum &+ Digest.of(RawSQLite.record(s)) }
            sqlite3_reset(s)
        }
        return sum
    }

    func lookupsInTransaction(_ ids: [Int64]) async throws -> Sample {
        _ = try db.statement(Self.byID)
        return try timed {
            try db.exec("BEGIN")
            let sum = try lookups(ids)
            try db.exec("COMMIT")
            return sum
        }
    }

    /// Autocommit: each lookup is its own implicit transaction.
    func lookupsOneShot(_ ids: [Int64]) async throws -> Sample {
        _ = try db.statement(Self.byID)
        return try timed { try lookups(ids) }
    }

    func filteredQueries(_ thresholds: [Int], limit: Int) async throws -> Sample {
        let s = try db.statement(Self.filtered)
        return try timed {
            try db.exec("BEGIN")
            var sum = 0
            for t in thresholds {
                sqlite3_bind_int64(s, 1, Int64(t))
                sqlite3_bind_int64(s, 2, Int64(limit))
                var rows: [RawRecord] = []
                while sqlite3_step(s) == SQLITE_ROW { rows.append(RawSQLite.record(s)) }
                sqlite3_reset(s)
                sum = rows.reduce(sum &+ rows.count) { $0 &+ Digest.of($1) }
            }
            try db.exec("COMMIT")
            return sum
        }
    }

    func stream() async throws -> Sample {
        let s = try db.statement(BenchSQL.selectAll)
        return try timed {
            try db.exec("BEGIN")
            var sum = 0
            while sqlite3_step(s) == SQLITE_ROW { sum = sum &+ Digest.of(RawSQLite.record(s)) &+ 1 }
            sqlite3_reset(s)
            try db.exec("COMMIT")
            return sum
        }
    }

    func close() {}
}
