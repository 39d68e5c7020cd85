// RawPostgres: a bare libpq connection for the baseline: connect, exec, prepare, run with text parameters, COPY.
import CPostgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A libpq connection and the few calls the baseline makes, each checked.
final class RawPostgres {
    let conn: OpaquePointer
    private var prepared: Set<String> = []

    /// Connects with libpq's own URL and environment handling (`postgres://` alone reads `PG*` variables).
    init(url: String) throws {
        guard let c = PQconnectdb(url) else { throw BenchError("libpq: out of memory") }
        guard PQstatus(c) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(c))
            PQfinish(c)
            throw BenchError("libpq cannot connect: \(message)")
        }
        conn = c
        strata_pq_silence_notices(c)
    }

    deinit { PQfinish(conn) }

    /// Runs SQL without parameters, discarding any rows.
    func exec(_ sql: String) throws {
        let r = PQexec(conn, sql)
        defer { PQclear(r) }
        try check(r, sql)
    }

    /// Runs SQL that returns one integer (or NULL, read as 0).
    func scalar(_ sql: String) throws -> Int64 {
        let r = PQexec(conn, sql)
        defer { PQclear(r) }
        try check(r, sql)
        guard PQntuples(r) > 0, PQgetisnull(r, 0, 0) == 0, let v = PQgetvalue(r, 0, 0) else { return 0 }
        return Int64(strtoll(v, nil, 10))
    }

    /// Prepares `sql` under `name` once per connection (parameter types left to the server).
    func prepare(_ name: String, _ sql: String, parameters: Int) throws {
        guard !prepared.contains(name) else { return }
        let r = PQprepare(conn, name, sql, Int32(parameters), nil)
        defer { PQclear(r) }
        try check(r, sql)
        prepared.insert(name)
    }

    /// Runs a prepared statement with the text parameters in `params`; the caller clears the result.
    func run(_ name: String, _ params: TextParams) throws -> OpaquePointer {
        let r = params.withValues { values in
            PQexecPrepared(conn, name, Int32(params.count), values, nil, nil, 0)
        }
        guard let r else { throw BenchError("libpq: \(String(cString: PQerrorMessage(conn)))") }
        do { try check(r, name) } catch {
            PQclear(r)
            throw error
        }
        return r
    }

    /// Starts `COPY … FROM STDIN`; send the data with ``copyPut(_:)`` and finish with ``copyEnd()``.
    func copyStart(_ sql: String) throws {
        let started = PQexec(conn, sql)
        let status = started.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        PQclear(started)
        guard status == PGRES_COPY_IN else {
            throw BenchError("libpq: \(String(cString: PQerrorMessage(conn))) (\(sql))")
        }
    }

    /// Sends one piece of COPY data (one CopyData message), blocking until libpq has queued it.
    func copyPut(_ data: UnsafeRawBufferPointer) throws {
        let sent =
            data.baseAddress.map {
                PQputCopyData(conn, $0.assumingMemoryBound(to: CChar.self), Int32(data.count)) == 1
            } ?? true
        guard sent else { throw BenchError("libpq: COPY failed: \(String(cString: PQerrorMessage(conn)))") }
    }

    /// Ends the COPY and reads its outcome.
    func copyEnd() throws {
        guard PQputCopyEnd(conn, nil) == 1 else {
            throw BenchError("libpq: COPY failed: \(String(cString: PQerrorMessage(conn)))")
        }
        var failure: BenchError?
        while let r = PQgetResult(conn) {
            if PQresultStatus(r) != PGRES_COMMAND_OK, failure == nil {
                failure = BenchError("libpq: COPY failed: \(String(cString: PQresultErrorMessage(r)))")
            }
            PQclear(r)
        }
        if let failure { throw failure }
    }

    func check(_ r: OpaquePointer?, _ what: String) throws {
        let status = r.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_SINGLE_TUPLE else {
            throw BenchError("libpq: \(String(cString: PQerrorMessage(conn))) (\(what))")
        }
    }

    /// Reads row `row` of a result in ``BenchSQL/columns`` order into a record.
    @inline(__always)
    static func record(_ r: OpaquePointer, _ row: Int32) -> RawRecord {
        RawRecord(
            id: Int64(strtoll(PQgetvalue(r, row, 0), nil, 10)),
            i1: strtol(PQgetvalue(r, row, 1), nil, 10),
            i2: strtol(PQgetvalue(r, row, 2), nil, 10),
            i3: strtol(PQgetvalue(r, row, 3), nil, 10),
            d1: strtod(PQgetvalue(r, row, 4), nil),
            d2: strtod(PQgetvalue(r, row, 5), nil),
            d3: strtod(PQgetvalue(r, row, 6), nil),
            s1: text(r, row, 7),
            s2: text(r, row, 8),
            s3: text(r, row, 9))
    }

    /// An integer column of a result row.
    @inline(__always)
    static func int64(_ r: OpaquePointer, _ row: Int32, _ column: Int32) -> Int64 {
        Int64(strtoll(PQgetvalue(r, row, column), nil, 10))
    }

    @inline(__always)
    private static func text(_ r: OpaquePointer, _ row: Int32, _ column: Int32) -> String {
        guard let p = PQgetvalue(r, row, column) else { return "" }
        let count = Int(PQgetlength(r, row, column))
        return p.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }
}
