// SQLiteRawContender+Upsert: the libsqlite3 side of the upsert and long-IN workloads, prepared once, stepped by hand.
import CSQLite
import Foundation
import StrataSQLite

extension SQLiteRawContender {
    /// Rows per upsert statement: what `upsertAll` computes.
    static let upsertChunk = KeyedBench.rowsPerStatement(bindLimit: SQLiteDialect().maxBindParameters)
    static let inLookupSQL = "\(BenchSQL.selectAll) WHERE id IN (SELECT value FROM json_each(?1))"

    private func upsertStatement(_ rows: Int) throws -> OpaquePointer {
        try db.statement(KeyedBench.upsert(rows: rows, placeholder: { _ in "?" }))
    }

    /// The upsert statements for `count` rows, chunked as `upsertAll` chunks; sets each row's id.
    private func upsertChunked(_ rows: inout [RawRecord]) throws {
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + Self.upsertChunk)
            let s = try upsertStatement(end - start)
            var i = start
            try db.withBound(rows[start..<end], to: s) {
                while true {
                    let rc = sqlite3_step(s)
                    if rc == SQLITE_ROW {
                        rows[i].id = sqlite3_column_int64(s, 0)
                        i += 1
                    } else {
                        sqlite3_reset(s)
                        guard rc == SQLITE_DONE else { throw db.failure("upsert") }
                        break
                    }
                }
            }
            guard i == end else {
                throw BenchError("libsqlite3: the upsert returned \(i - start) ids for \(end - start) rows")
            }
            start = end
        }
    }

    func seedKeyed(_ count: Int) async throws {
        var rows = KeyedBench.seeded(count)
        try db.exec("DELETE FROM bench_keyed")
        try db.stepDone(try db.statement("BEGIN IMMEDIATE"))
        try upsertChunked(&rows)
        try db.stepDone(try db.statement("COMMIT"))
    }

    func upsert(_ count: Int) async throws -> Sample {
        var rows = (0..<count).map(KeyedBench.raw)
        for n in [min(count, Self.upsertChunk), count % Self.upsertChunk] where n > 0 { _ = try upsertStatement(n) }
        let (begin, commit) = (try db.statement("BEGIN IMMEDIATE"), try db.statement("COMMIT"))
        return try timed(
            {
                try db.stepDone(begin)
                try upsertChunked(&rows)
                try db.stepDone(commit)
            }, digest: { Digests.written(rows) })
    }

    func keyedDigest() async throws -> Digest {
        let s = try db.statement(KeyedBench.selectAll)
        var rows: [RawRecord] = []
        while sqlite3_step(s) == SQLITE_ROW { rows.append(RawSQLite.record(s)) }
        sqlite3_reset(s)
        return Digests.written(rows)
    }

    /// The ids as one JSON array (built inside the timed section, as Strata builds its own, digit by digit into one
    /// buffer as C would: see `IntegerListText`), bound to `json_each` without a copy.
    func inLookup(_ ids: [Int64], base: Int64) async throws -> Sample {
        let s = try db.statement(Self.inLookupSQL)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        return try timed(
            {
                try db.stepDone(begin)
                var rows: [RawRecord] = []
                try IntegerListText.withText(ids, open: UInt8(ascii: "["), close: UInt8(ascii: "]")) { text in
                    sqlite3_bind_text(
                        s, 1, UnsafeRawPointer(text.baseAddress)?.assumingMemoryBound(to: CChar.self),
                        Int32(text.count),
                        nil)
                    while true {
                        let rc = sqlite3_step(s)
                        if rc == SQLITE_ROW {
                            rows.append(RawSQLite.record(s))
                        } else {
                            sqlite3_reset(s)
                            sqlite3_clear_bindings(s)
                            guard rc == SQLITE_DONE else { throw db.failure("in-lookup") }
                            break
                        }
                    }
                }
                try db.stepDone(commit)
                return rows
            }, digest: { Digests.of($0, base: base) })
    }
}
