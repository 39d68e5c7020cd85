// PostgresRawContender: the libpq baseline: PQprepare + PQexecPrepared with text parameters, multi-row
// VALUES for bulk, single-row mode for the stream, PQgetvalue into a plain struct.
import CPostgres

/// Runs the workloads straight through libpq on the same server and table Strata uses.
final class PostgresRawContender: Contender {
    let name = "libpq"
    private let pg: RawPostgres
    private let params = TextParams()
    /// Rows per multi-row INSERT: 9 parameters each, far under libpq's 65,535.
    static let bulkChunk = 1_000

    private static let placeholders = "($1, $2, $3, $4, $5, $6, $7, $8, $9)"

    init(url: String) throws {
        pg = try RawPostgres(url: url)
        // No autovacuum or auto-analyze kicking in between runs: statistics are refreshed after each seed.
        try pg.exec("ALTER TABLE bench_record SET (autovacuum_enabled = off)")
        try pg.prepare(
            "ins", "INSERT INTO bench_record (\(BenchSQL.insertColumns)) VALUES \(Self.placeholders) RETURNING id",
            parameters: 9)
        try pg.prepare("all", BenchSQL.selectAll, parameters: 0)
        try pg.prepare("by_id", "\(BenchSQL.selectAll) WHERE id = $1", parameters: 1)
        try pg.prepare("filtered", "\(BenchSQL.selectAll) WHERE i1 > $1 ORDER BY d1 LIMIT $2", parameters: 2)
    }

    func reset() async throws { try pg.exec("TRUNCATE bench_record RESTART IDENTITY") }

    func seed(_ count: Int) async throws -> Int64 {
        try pg.exec("BEGIN")
        try insertChunked((0..<count).map(RecordFactory.raw))
        try pg.exec("COMMIT")
        // Fresh statistics, so both sides get the same (index) plans from the first run on.
        try pg.exec("VACUUM ANALYZE bench_record")
        return try pg.scalar("SELECT min(id) FROM bench_record")
    }

    /// Multi-row `INSERT … VALUES (…), (…), …` of ``bulkChunk`` rows per statement.
    private func insertChunked(_ rows: [RawRecord]) throws {
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + Self.bulkChunk)
            var sql = "INSERT INTO bench_record (\(BenchSQL.insertColumns)) VALUES "
            params.removeAll()
            for i in start..<end {
                let p = (i - start) * 9
                sql += i == start ? "(" : ", ("
                for c in 1...9 { sql += c == 1 ? "$\(p + c)" : ", $\(p + c)" }
                sql += ")"
                params.append(rows[i])
            }
            PQclear(try pg.runUnprepared(sql, params))
            start = end
        }
    }

    func insertOneByOne(_ count: Int) async throws -> Sample {
        var rows = (0..<count).map(RecordFactory.raw)
        return try timed {
            try pg.exec("BEGIN")
            var saved = 0
            for i in rows.indices {
                params.removeAll()
                params.append(rows[i])
                let r = try pg.run("ins", params)
                if PQntuples(r) == 1 {
                    rows[i].id = RawPostgres.int64(r, 0, 0)
                    saved += 1
                }
                PQclear(r)
            }
            try pg.exec("COMMIT")
            return saved
        }
    }

    func bulkInsert(_ count: Int) async throws -> Sample {
        let rows = (0..<count).map(RecordFactory.raw)
        return try timed {
            try pg.exec("BEGIN")
            try insertChunked(rows)
            try pg.exec("COMMIT")
            return rows.count
        }
    }

    /// Reads every row of a result into records.
    private static func records(_ r: OpaquePointer) -> [RawRecord] {
        let n = PQntuples(r)
        var rows: [RawRecord] = []
        rows.reserveCapacity(Int(n))
        for row in 0..<n { rows.append(RawPostgres.record(r, row)) }
        return rows
    }

    func fetchAll() async throws -> Sample {
        params.removeAll()
        return try timed {
            try pg.exec("BEGIN")
            let r = try pg.run("all", params)
            let rows = Self.records(r)
            PQclear(r)
            try pg.exec("COMMIT")
            return rows.reduce(rows.count) { $0 &+ Digest.of($1) }
        }
    }

    private func lookups(_ ids: [Int64]) throws -> Int {
        var sum = 0
        for id in ids {
            params.removeAll()
            params.append(id)
            let r = try pg.run("by_id", params)
            if PQntuples(r) == 1 { sum = sum &+ Digest.of(RawPostgres.record(r, 0)) }
            PQclear(r)
        }
        return sum
    }

    func lookupsInTransaction(_ ids: [Int64]) async throws -> Sample {
        try timed {
            try pg.exec("BEGIN")
            let sum = try lookups(ids)
            try pg.exec("COMMIT")
            return sum
        }
    }

    func lookupsOneShot(_ ids: [Int64]) async throws -> Sample {
        try timed { try lookups(ids) }
    }

    func filteredQueries(_ thresholds: [Int], limit: Int) async throws -> Sample {
        try timed {
            try pg.exec("BEGIN")
            var sum = 0
            for t in thresholds {
                params.removeAll()
                params.append(t)
                params.append(limit)
                let r = try pg.run("filtered", params)
                let rows = Self.records(r)
                PQclear(r)
                sum = rows.reduce(sum &+ rows.count) { $0 &+ Digest.of($1) }
            }
            try pg.exec("COMMIT")
            return sum
        }
    }

    /// Single-row mode: libpq hands over one row at a time instead of buffering the whole result.
    func stream() async throws -> Sample {
        try timed {
            try pg.exec("BEGIN")
            guard PQsendQueryPrepared(pg.conn, "all", 0, nil, nil, nil, 0) == 1, PQsetSingleRowMode(pg.conn) == 1 else {
                throw BenchError("libpq: cannot start single-row mode: \(String(cString: PQerrorMessage(pg.conn)))")
            }
            var sum = 0
            var failure: BenchError?
            while let r = PQgetResult(pg.conn) {
                switch PQresultStatus(r) {
                case PGRES_SINGLE_TUPLE: sum = sum &+ Digest.of(RawPostgres.record(r, 0)) &+ 1
                case PGRES_TUPLES_OK: break
                default: failure = BenchError("libpq: \(String(cString: PQresultErrorMessage(r)))")
                }
                PQclear(r)
            }
            if let failure { throw failure }
            try pg.exec("COMMIT")
            return sum
        }
    }

    func close() {}
}

extension PostgresRawContender {
    /// The server's version, e.g. `15.18`.
    func serverVersion() throws -> String {
        let n = try pg.scalar("SELECT current_setting('server_version_num')::int")
        return "\(n / 10_000).\(n % 10_000)"
    }
}
