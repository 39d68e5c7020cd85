// PostgresRawContender: the libpq baseline: PQprepare + PQexecPrepared with text parameters, multi-row
// INSERTs chunked like insertAll (and binary COPY as a second floor), single-row mode for the stream.
import CPostgres
import StrataPostgres

/// Runs the workloads straight through libpq on the same server and table Strata uses.
///
/// Every statement is prepared once, outside the timed sections; values go as text parameters, as
/// Strata's driver sends them. The bulk insert sends the statements `insertAll` sends: multi-row
/// `INSERT … RETURNING id` of the same number of rows (the bind limit over the nine columns), and
/// reads the ids back; the second floor is binary `COPY … FROM STDIN`, which returns no ids.
final class PostgresRawContender: Contender {
    let name = "libpq"
    let pg: RawPostgres
    let params = TextParams()
    /// Rows per multi-row INSERT: what `insertAll` computes (65,535 binds / 9 columns = 7,281).
    static let bulkChunk = BenchSQL.rowsPerStatement(bindLimit: PostgresDialect().maxBindParameters)

    private static let placeholders = "($1, $2, $3, $4, $5, $6, $7, $8, $9)"

    init(url: String) throws {
        pg = try RawPostgres(url: url)
        // No autovacuum or auto-analyze kicking in between runs: statistics are refreshed after each seed.
        try pg.exec("ALTER TABLE bench_record SET (autovacuum_enabled = off)")
        try pg.prepare(
            "ins", "INSERT INTO bench_record (\(BenchSQL.insertColumns)) VALUES \(Self.placeholders) RETURNING id",
            parameters: 9)
        try pg.prepare("all", BenchSQL.selectAll, parameters: 0)
        try pg.prepare("all_by_id", BenchSQL.selectAll + " ORDER BY id", parameters: 0)
        try pg.prepare("by_id", "\(BenchSQL.selectAll) WHERE id = $1", parameters: 1)
        try pg.prepare("filtered", "\(BenchSQL.selectAll) WHERE i1 > $1 ORDER BY d1 LIMIT $2", parameters: 2)
        try pg.prepare("group_sum", GroupSum.postgresSQL, parameters: 0)
    }

    func reset() async throws { try pg.exec("TRUNCATE bench_record RESTART IDENTITY") }

    func seed(_ count: Int) async throws -> Int64 {
        var rows = (0..<count).map(RecordFactory.raw)
        try prepareChunks(count)
        try pg.exec("BEGIN")
        try insertChunked(&rows)
        try pg.exec("COMMIT")
        // Fresh statistics, so both sides get the same (index) plans from the first run on.
        try pg.exec("VACUUM ANALYZE bench_record")
        return try pg.scalar("SELECT min(id) FROM bench_record")
    }

    func tableDigest() async throws -> Digest {
        params.removeAll()
        let r = try pg.run("all_by_id", params)
        let rows = Self.records(r)
        PQclear(r)
        return Digests.written(rows)
    }

    /// The name of the prepared multi-row INSERT for `count` rows.
    private static func chunkName(_ count: Int) -> String { "bulk_\(count)" }

    /// Prepares the chunk statements a bulk insert of `count` rows will use (untimed).
    private func prepareChunks(_ count: Int) throws {
        for n in [min(count, Self.bulkChunk), count % Self.bulkChunk] where n > 0 {
            let sql = BenchSQL.multiRowInsert(rows: n, placeholder: { "$\($0)" }, returning: " RETURNING id")
            try pg.prepare(Self.chunkName(n), sql, parameters: n * BenchSQL.insertWidth)
        }
    }

    /// Prepared multi-row `INSERT … RETURNING id` of ``bulkChunk`` rows per statement; sets the ids.
    private func insertChunked(_ rows: inout [RawRecord]) throws {
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + Self.bulkChunk)
            params.removeAll()
            for i in start..<end { params.append(rows[i]) }
            let r = try pg.run(Self.chunkName(end - start), params)
            defer { PQclear(r) }
            guard PQntuples(r) == Int32(end - start) else {
                throw BenchError("libpq: the INSERT returned \(PQntuples(r)) ids for \(end - start) rows")
            }
            for i in start..<end { rows[i].id = RawPostgres.int64(r, Int32(i - start), 0) }
            start = end
        }
    }

    func insertOneByOne(_ count: Int) async throws -> Sample {
        var rows = (0..<count).map(RecordFactory.raw)
        return try timed(
            {
                try pg.exec("BEGIN")
                for i in rows.indices {
                    params.removeAll()
                    params.append(rows[i])
                    let r = try pg.run("ins", params)
                    if PQntuples(r) == 1 { rows[i].id = RawPostgres.int64(r, 0, 0) }
                    PQclear(r)
                }
                try pg.exec("COMMIT")
            }, digest: { Digests.written(rows) })
    }

    func bulkInsert(_ count: Int) async throws -> Sample {
        var rows = (0..<count).map(RecordFactory.raw)
        try prepareChunks(count)
        return try timed(
            {
                try pg.exec("BEGIN")
                try insertChunked(&rows)
                try pg.exec("COMMIT")
            }, digest: { Digests.written(rows) })
    }

    var bulkFloorName: String? { "binary COPY" }

    /// `COPY bench_record (…) FROM STDIN (FORMAT binary)`: the rows encoded (inside the timed section)
    /// in PostgreSQL's binary copy format into one reused buffer, sent with PQputCopyData each time it
    /// holds 1 MB (what Strata's driver does, so both sides stream the same pieces). No ids come back:
    /// the runner reads the table to check what was stored.
    func bulkInsertFloor(_ count: Int) async throws -> Sample {
        let rows = (0..<count).map(RecordFactory.raw)
        let buffer = BinaryCopy()
        return try timed(
            {
                try pg.exec("BEGIN")
                try pg.copyStart("COPY bench_record (\(BenchSQL.insertColumns)) FROM STDIN (FORMAT binary)")
                try copyRows(rows, through: buffer, ordinals: false)
                try pg.exec("COMMIT")
            }, digest: { _ in nil })
    }

    /// What `insertAll` sends for a large batch: a temporary staging table shaped like `bench_record`'s
    /// columns plus an order column, binary COPY into it (1 MB messages), one `INSERT … SELECT … ORDER BY
    /// strata_ord RETURNING id` whose ids are read back, the staging table dropped; in one transaction.
    func stagedInsert(_ count: Int) async throws -> Sample {
        var rows = (0..<count).map(RecordFactory.raw)
        let buffer = BinaryCopy()
        let columns = BenchSQL.insertColumns
        return try timed(
            {
                try pg.exec("BEGIN")
                try pg.exec(
                    "CREATE TEMPORARY TABLE strata_stage AS SELECT 0::int8 AS strata_ord, \(columns) "
                        + "FROM bench_record WITH NO DATA")
                try pg.copyStart("COPY strata_stage (strata_ord, \(columns)) FROM STDIN (FORMAT binary)")
                try copyRows(rows, through: buffer, ordinals: true)
                let sql =
                    "INSERT INTO bench_record (\(columns)) SELECT \(columns) FROM strata_stage ORDER BY strata_ord "
                    + "RETURNING id"
                let r = PQexec(pg.conn, sql)
                defer { PQclear(r) }
                try pg.check(r, sql)
                guard let r, PQntuples(r) == Int32(rows.count) else {
                    throw BenchError("libpq: the staged INSERT returned the wrong number of ids")
                }
                for i in rows.indices { rows[i].id = RawPostgres.int64(r, Int32(i), 0) }
                try pg.exec("DROP TABLE strata_stage")
                try pg.exec("COMMIT")
            }, digest: { Digests.written(rows) })
    }

    /// Encodes `rows` into `buffer` and streams them through the open COPY, sending each 1 MB piece with
    /// PQputCopyData as it fills (as Strata's driver does), then ends the COPY. With `ordinals`, each row leads
    /// with its index (the staging table's order column).
    private func copyRows(_ rows: [RawRecord], through buffer: BinaryCopy, ordinals: Bool) throws {
        buffer.removeAll()
        for (i, r) in rows.enumerated() {
            buffer.append(r, ordinal: ordinals ? i : nil)
            if buffer.count >= BinaryCopy.piece {
                try pg.copyPut(buffer.written)
                buffer.startPiece()
            }
        }
        buffer.finish()
        try pg.copyPut(buffer.written)
        try pg.copyEnd()
    }

    /// Reads every row of a result into records.
    private static func records(_ r: OpaquePointer) -> [RawRecord] {
        let n = PQntuples(r)
        var rows: [RawRecord] = []
        rows.reserveCapacity(Int(n))
        for row in 0..<n { rows.append(RawPostgres.record(r, row)) }
        return rows
    }

    func fetchAll(base: Int64) async throws -> Sample {
        params.removeAll()
        return try timed(
            {
                try pg.exec("BEGIN")
                let r = try pg.run("all", params)
                let rows = Self.records(r)
                PQclear(r)
                try pg.exec("COMMIT")
                return rows
            }, digest: { Digests.of($0, base: base) })
    }

    private func lookups(_ ids: [Int64], into found: inout [RawRecord]) throws {
        for id in ids {
            params.removeAll()
            params.append(id)
            let r = try pg.run("by_id", params)
            if PQntuples(r) == 1 { found.append(RawPostgres.record(r, 0)) }
            PQclear(r)
        }
    }

    func lookupsInTransaction(_ ids: [Int64], base: Int64) async throws -> Sample {
        var found: [RawRecord] = []
        found.reserveCapacity(ids.count)
        return try timed(
            {
                try pg.exec("BEGIN")
                try lookups(ids, into: &found)
                try pg.exec("COMMIT")
            }, digest: { Digests.of(found, base: base) })
    }

    func lookupsOneShot(_ ids: [Int64], base: Int64) async throws -> Sample {
        var found: [RawRecord] = []
        found.reserveCapacity(ids.count)
        return try timed({ try lookups(ids, into: &found) }, digest: { Digests.of(found, base: base) })
    }

    /// ``filteredQueries(_:limit:base:)`` in autocommit: each query its own transaction, as a one-shot call's.
    func oneShotQueries(_ thresholds: [Int], limit: Int, base: Int64) async throws -> Sample {
        var found: [RawRecord] = []
        found.reserveCapacity(thresholds.count * limit)
        return try timed(
            { try filteredQueries(thresholds, limit: limit, into: &found) }, digest: { Digests.of(found, base: base) })
    }

    func filteredQueries(_ thresholds: [Int], limit: Int, base: Int64) async throws -> Sample {
        var found: [RawRecord] = []
        found.reserveCapacity(thresholds.count * limit)
        return try timed(
            {
                try pg.exec("BEGIN")
                try filteredQueries(thresholds, limit: limit, into: &found)
                try pg.exec("COMMIT")
            }, digest: { Digests.of(found, base: base) })
    }

    /// Runs the prepared `filtered` statement once per threshold, appending each query's rows to `found`.
    @inline(__always)
    private func filteredQueries(_ thresholds: [Int], limit: Int, into found: inout [RawRecord]) throws {
        for t in thresholds {
            params.removeAll()
            params.append(t)
            params.append(limit)
            let r = try pg.run("filtered", params)
            found += Self.records(r)
            PQclear(r)
        }
    }

    /// Single-row mode: libpq hands over one row at a time instead of buffering the whole result.
    func stream(base: Int64) async throws -> Sample {
        try timed(
            {
                try pg.exec("BEGIN")
                guard PQsendQueryPrepared(pg.conn, "all", 0, nil, nil, nil, 0) == 1, PQsetSingleRowMode(pg.conn) == 1
                else {
                    throw BenchError("libpq: cannot start single-row mode: \(String(cString: PQerrorMessage(pg.conn)))")
                }
                var d = Digest()
                var failure: BenchError?
                while let r = PQgetResult(pg.conn) {
                    switch PQresultStatus(r) {
                    case PGRES_SINGLE_TUPLE: d.add(RawPostgres.record(r, 0), base: base)
                    case PGRES_TUPLES_OK: break
                    default: failure = BenchError("libpq: \(String(cString: PQresultErrorMessage(r)))")
                    }
                    PQclear(r)
                }
                if let failure { throw failure }
                try pg.exec("COMMIT")
                return d
            }, digest: { $0 })
    }

    /// The sum arrives as numeric text (PostgreSQL's SUM of bigint), read as an Int64 like the count.
    func groupSum() async throws -> Sample {
        try timed(
            {
                try pg.exec("BEGIN")
                params.removeAll()
                let r = try pg.run("group_sum", params)
                var d = Digest()
                for row in 0..<PQntuples(r) {
                    let key = PQgetvalue(r, row, 0).map { String(cString: $0) } ?? ""
                    let count = PQgetvalue(r, row, 1).flatMap { Int64(String(cString: $0)) } ?? 0
                    let sum = PQgetvalue(r, row, 2).flatMap { Int64(String(cString: $0)) } ?? 0
                    GroupSum.add(key, count: count, sum: sum, to: &d)
                }
                PQclear(r)
                try pg.exec("COMMIT")
                return d
            }, digest: { $0 })
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
