// PostgresRawContender+Upsert: the libpq side of the upsert and long-IN workloads, prepared once, text parameters.
import CPostgres
import StrataPostgres

extension PostgresRawContender {
    /// Rows per upsert statement: what `upsertAll` computes (65,535 binds / 9 columns).
    static let upsertChunk = KeyedBench.rowsPerStatement(bindLimit: PostgresDialect().maxBindParameters)

    private static func upsertName(_ rows: Int) -> String { "upsert_\(rows)" }

    private func prepareUpserts(_ count: Int) throws {
        for n in [min(count, Self.upsertChunk), count % Self.upsertChunk] where n > 0 {
            try pg.prepare(
                Self.upsertName(n), KeyedBench.upsert(rows: n, placeholder: { "$\($0)" }),
                parameters: n * BenchSQL.insertWidth)
        }
    }

    private func upsertChunked(_ rows: inout [RawRecord]) throws {
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + Self.upsertChunk)
            params.removeAll()
            for i in start..<end { params.append(rows[i]) }
            let r = try pg.run(Self.upsertName(end - start), params)
            defer { PQclear(r) }
            guard PQntuples(r) == Int32(end - start) else {
                throw BenchError("libpq: the upsert returned \(PQntuples(r)) ids for \(end - start) rows")
            }
            for i in start..<end { rows[i].id = RawPostgres.int64(r, Int32(i - start), 0) }
            start = end
        }
    }

    func seedKeyed(_ count: Int) async throws {
        var rows = KeyedBench.seeded(count)
        try prepareUpserts(rows.count)
        try pg.exec("TRUNCATE bench_keyed RESTART IDENTITY")
        try pg.exec("BEGIN")
        try upsertChunked(&rows)
        try pg.exec("COMMIT")
        try pg.exec("VACUUM ANALYZE bench_keyed")
    }

    func upsert(_ count: Int) async throws -> Sample {
        var rows = (0..<count).map(KeyedBench.raw)
        try prepareUpserts(count)
        return try timed(
            {
                try pg.exec("BEGIN")
                try upsertChunked(&rows)
                try pg.exec("COMMIT")
            }, digest: { Digests.written(rows) })
    }

    func keyedDigest() async throws -> Digest {
        try pg.prepare("keyed_all", KeyedBench.selectAll, parameters: 0)
        params.removeAll()
        let r = try pg.run("keyed_all", params)
        defer { PQclear(r) }
        return Digests.written((0..<PQntuples(r)).map { RawPostgres.record(r, $0) })
    }

    /// The ids as one array literal (built inside the timed section, as Strata builds its own, digit by digit as C
    /// would: see `IntegerListText`), `= ANY($1)`.
    func inLookup(_ ids: [Int64], base: Int64) async throws -> Sample {
        try pg.prepare("in_ids", "\(BenchSQL.selectAll) WHERE id = ANY(CAST($1 AS BIGINT[]))", parameters: 1)
        return try timed(
            {
                try pg.exec("BEGIN")
                let array = IntegerListText.withText(ids, open: UInt8(ascii: "{"), close: UInt8(ascii: "}")) {
                    String(decoding: $0, as: UTF8.self)
                }
                params.removeAll()
                params.append(text: array)
                let r = try pg.run("in_ids", params)
                let rows = (0..<PQntuples(r)).map { RawPostgres.record(r, $0) }
                PQclear(r)
                try pg.exec("COMMIT")
                return rows
            }, digest: { Digests.of($0, base: base) })
    }
}
