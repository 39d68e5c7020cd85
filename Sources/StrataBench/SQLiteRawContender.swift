// SQLiteRawContender: the libsqlite3 baseline: prepare once, bind, step, read columns into a plain struct.
import CSQLite
import StrataSQLite

/// Runs the workloads straight through libsqlite3 on the same file Strata uses.
///
/// Every statement is prepared once, outside the timed sections (BEGIN and COMMIT included); the bulk
/// insert sends the same multi-row INSERTs as Strata's `insertAll`, chunked at the same row count
/// (SQLite's bind limit over the nine columns), and hands back the ids; its second floor is the
/// single-row prepared INSERT stepped once per record, SQLite's other fast bulk path.
final class SQLiteRawContender: Contender {
    let name = "libsqlite3"
    let db: RawSQLite

    private static let insert =
        "INSERT INTO bench_record (\(BenchSQL.insertColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    private static let byID = "\(BenchSQL.selectAll) WHERE id = ?1"
    private static let filtered = "\(BenchSQL.selectAll) WHERE i1 > ?1 ORDER BY d1 LIMIT ?2"
    /// Rows per multi-row INSERT: what `insertAll` computes (bind limit / columns).
    static let bulkChunk = BenchSQL.rowsPerStatement(bindLimit: SQLiteDialect().maxBindParameters)

    init(path: String) throws {
        db = try RawSQLite(path: path)
        for sql in ["BEGIN IMMEDIATE", "BEGIN", "COMMIT", Self.insert, Self.byID, Self.filtered, BenchSQL.selectAll] {
            _ = try db.statement(sql)
        }
    }

    func reset() async throws { try db.exec("DELETE FROM bench_record") }

    func seed(_ count: Int) async throws -> Int64 {
        var rows = (0..<count).map(RecordFactory.raw)
        try db.stepDone(try db.statement("BEGIN IMMEDIATE"))
        try insertSingleRows(&rows)
        try db.stepDone(try db.statement("COMMIT"))
        return rows.first?.id ?? 0
    }

    func tableDigest() async throws -> Digest {
        let s = try db.statement(BenchSQL.selectAll + " ORDER BY id")
        var rows: [RawRecord] = []
        while sqlite3_step(s) == SQLITE_ROW { rows.append(RawSQLite.record(s)) }
        sqlite3_reset(s)
        return Digests.written(rows)
    }

    /// Steps the single-row INSERT once per record, reading each id back.
    private func insertSingleRows(_ rows: inout [RawRecord]) throws {
        let s = try db.statement(Self.insert)
        for i in rows.indices {
            try RawSQLite.withBound(rows[i], to: s) { try db.stepDone(s) }
            rows[i].id = sqlite3_last_insert_rowid(db.handle)
        }
    }

    /// The multi-row INSERT for `count` rows, prepared once per row count (untimed: see ``prepareChunks(_:)``).
    private func chunkStatement(_ count: Int) throws -> OpaquePointer {
        try db.statement(BenchSQL.multiRowInsert(rows: count, placeholder: { _ in "?" }))
    }

    /// Prepares the chunk statements a bulk insert of `count` rows will use.
    private func prepareChunks(_ count: Int) throws {
        if count >= Self.bulkChunk { _ = try chunkStatement(Self.bulkChunk) }
        if count % Self.bulkChunk != 0 { _ = try chunkStatement(count % Self.bulkChunk) }
    }

    func insertOneByOne(_ count: Int) async throws -> Sample {
        var rows = (0..<count).map(RecordFactory.raw)
        let (begin, commit) = (try db.statement("BEGIN IMMEDIATE"), try db.statement("COMMIT"))
        return try timed(
            {
                try db.stepDone(begin)
                try insertSingleRows(&rows)
                try db.stepDone(commit)
            }, digest: { Digests.written(rows) })
    }

    /// Multi-row INSERTs of ``bulkChunk`` rows, as `insertAll` sends; inside `BEGIN IMMEDIATE` no other
    /// writer can interleave, so a chunk's ids are the last one's and the `count - 1` before it.
    func bulkInsert(_ count: Int) async throws -> Sample {
        var rows = (0..<count).map(RecordFactory.raw)
        try prepareChunks(count)
        let (begin, commit) = (try db.statement("BEGIN IMMEDIATE"), try db.statement("COMMIT"))
        return try timed(
            {
                try db.stepDone(begin)
                var start = 0
                while start < rows.count {
                    let end = min(rows.count, start + Self.bulkChunk)
                    let s = try chunkStatement(end - start)
                    try db.withBound(rows[start..<end], to: s) { try db.stepDone(s) }
                    let last = sqlite3_last_insert_rowid(db.handle)
                    for i in start..<end { rows[i].id = last - Int64(end - 1 - i) }
                    start = end
                }
                try db.stepDone(commit)
            }, digest: { Digests.written(rows) })
    }

    var bulkFloorName: String? { "single-row INSERT" }

    /// The single-row prepared INSERT stepped once per record, in one transaction.
    func bulkInsertFloor(_ count: Int) async throws -> Sample {
        var rows = (0..<count).map(RecordFactory.raw)
        let (begin, commit) = (try db.statement("BEGIN IMMEDIATE"), try db.statement("COMMIT"))
        return try timed(
            {
                try db.stepDone(begin)
                try insertSingleRows(&rows)
                try db.stepDone(commit)
            }, digest: { Digests.written(rows) })
    }

    func fetchAll(base: Int64) async throws -> Sample {
        let s = try db.statement(BenchSQL.selectAll)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        return try timed(
            {
                try db.stepDone(begin)
                var rows: [RawRecord] = []
                while sqlite3_step(s) == SQLITE_ROW { rows.append(RawSQLite.record(s)) }
                sqlite3_reset(s)
                try db.stepDone(commit)
                return rows
            }, digest: { Digests.of($0, base: base) })
    }

    private func lookups(_ ids: [Int64], into found: inout [RawRecord]) throws {
        let s = try db.statement(Self.byID)
        for id in ids {
            sqlite3_bind_int64(s, 1, id)
            if sqlite3_step(s) == SQLITE_ROW { found.append(RawSQLite.record(s)) }
            sqlite3_reset(s)
        }
    }

    func lookupsInTransaction(_ ids: [Int64], base: Int64) async throws -> Sample {
        var found: [RawRecord] = []
        found.reserveCapacity(ids.count)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        return try timed(
            {
                try db.stepDone(begin)
                try lookups(ids, into: &found)
                try db.stepDone(commit)
            }, digest: { Digests.of(found, base: base) })
    }

    /// Autocommit: each lookup is its own implicit transaction.
    func lookupsOneShot(_ ids: [Int64], base: Int64) async throws -> Sample {
        var found: [RawRecord] = []
        found.reserveCapacity(ids.count)
        return try timed({ try lookups(ids, into: &found) }, digest: { Digests.of(found, base: base) })
    }

    /// ``filteredQueries(_:limit:base:)`` in autocommit: each query its own read transaction, as a one-shot call's.
    func oneShotQueries(_ thresholds: [Int], limit: Int, base: Int64) async throws -> Sample {
        let s = try db.statement(Self.filtered)
        var found: [RawRecord] = []
        found.reserveCapacity(thresholds.count * limit)
        return timed(
            { Self.filteredQueries(s, thresholds, limit: limit, into: &found) },
            digest: { Digests.of(found, base: base) })
    }

    func filteredQueries(_ thresholds: [Int], limit: Int, base: Int64) async throws -> Sample {
        let s = try db.statement(Self.filtered)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        var found: [RawRecord] = []
        found.reserveCapacity(thresholds.count * limit)
        return try timed(
            {
                try db.stepDone(begin)
                Self.filteredQueries(s, thresholds, limit: limit, into: &found)
                try db.stepDone(commit)
            }, digest: { Digests.of(found, base: base) })
    }

    /// Runs the prepared ``filtered`` statement `s` once per threshold, appending each query's rows to `found`.
    @inline(__always)
    private static func filteredQueries(
        _ s: OpaquePointer, _ thresholds: [Int], limit: Int, into found: inout [RawRecord]
    ) {
        for t in thresholds {
            sqlite3_bind_int64(s, 1, Int64(t))
            sqlite3_bind_int64(s, 2, Int64(limit))
            var rows: [RawRecord] = []
            while sqlite3_step(s) == SQLITE_ROW { rows.append(RawSQLite.record(s)) }
            sqlite3_reset(s)
            found += rows
        }
    }

    func stream(base: Int64) async throws -> Sample {
        let s = try db.statement(BenchSQL.selectAll)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        return try timed(
            {
                try db.stepDone(begin)
                var d = Digest()
                while sqlite3_step(s) == SQLITE_ROW { d.add(RawSQLite.record(s), base: base) }
                sqlite3_reset(s)
                try db.stepDone(commit)
                return d
            }, digest: { $0 })
    }

    func groupSum() async throws -> Sample {
        let s = try db.statement(GroupSum.sql)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        return try timed(
            {
                try db.stepDone(begin)
                var d = Digest()
                while sqlite3_step(s) == SQLITE_ROW {
                    let key = sqlite3_column_text(s, 0).map { String(cString: $0) } ?? ""
                    GroupSum.add(key, count: sqlite3_column_int64(s, 1), sum: sqlite3_column_int64(s, 2), to: &d)
                }
                sqlite3_reset(s)
                try db.stepDone(commit)
                return d
            }, digest: { $0 })
    }

    func close() {}
}
