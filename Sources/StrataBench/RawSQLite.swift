// RawSQLite: a bare libsqlite3 connection for the baseline: open, exec, and a prepared-statement cache.
import CSQLite

/// A libsqlite3 connection set up like Strata's (WAL, synchronous = NORMAL, busy timeout), and nothing more.
final class RawSQLite {
    let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    /// Where a multi-row INSERT's texts are copied to be bound without another copy (as Strata's driver does).
    private var arena = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)

    init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            if let db { sqlite3_close_v2(db) }
            throw BenchError("libsqlite3 cannot open \(path)")
        }
        handle = db
        sqlite3_busy_timeout(db, 5_000)
        try exec("PRAGMA journal_mode = WAL")
        try exec("PRAGMA synchronous = NORMAL")
    }

    deinit {
        for s in statements.values { sqlite3_finalize(s) }
        sqlite3_close_v2(handle)
        arena.deallocate()
    }

    /// Runs SQL without parameters or rows.
    func exec(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure(sql) }
    }

    /// The statement for `sql`, prepared on first use and kept.
    func statement(_ sql: String) throws -> OpaquePointer {
        if let s = statements[sql] { return s }
        var s: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil) == SQLITE_OK, let s
        else { throw failure(sql) }
        statements[sql] = s
        return s
    }

    /// The error for the last failed call.
    func failure(_ what: String) -> BenchError {
        BenchError("libsqlite3: \(String(cString: sqlite3_errmsg(handle))) (\(what))")
    }

    /// Steps a statement that returns no rows, then resets it.
    func stepDone(_ s: OpaquePointer) throws {
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE else { throw failure("step") }
    }

    /// Reads the ten columns of the current row (in ``BenchSQL/columns`` order) into a record.
    @inline(__always)
    static func record(_ s: OpaquePointer) -> RawRecord {
        RawRecord(
            id: sqlite3_column_int64(s, 0),
            i1: Int(sqlite3_column_int64(s, 1)),
            i2: Int(sqlite3_column_int64(s, 2)),
            i3: Int(sqlite3_column_int64(s, 3)),
            d1: sqlite3_column_double(s, 4),
            d2: sqlite3_column_double(s, 5),
            d3: sqlite3_column_double(s, 6),
            s1: text(s, 7),
            s2: text(s, 8),
            s3: text(s, 9))
    }

    @inline(__always)
    static func text(_ s: OpaquePointer, _ i: Int32) -> String {
        guard let p = sqlite3_column_text(s, i) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(s, i))), as: UTF8.self)
    }

    /// Binds the nine non-id columns of `r` to `?1`…`?9` and runs `body` while the text is bound
    /// (SQLITE_STATIC: SQLite reads the caller's bytes, no copy).
    @inline(__always)
    static func withBound<T>(_ r: RawRecord, to s: OpaquePointer, _ body: () throws -> T) rethrows -> T {
        sqlite3_bind_int64(s, 1, Int64(r.i1))
        sqlite3_bind_int64(s, 2, Int64(r.i2))
        sqlite3_bind_int64(s, 3, Int64(r.i3))
        sqlite3_bind_double(s, 4, r.d1)
        sqlite3_bind_double(s, 5, r.d2)
        sqlite3_bind_double(s, 6, r.d3)
        var (s1, s2, s3) = (r.s1, r.s2, r.s3)
        return try s1.withUTF8 { a in
            try s2.withUTF8 { b in
                try s3.withUTF8 { c in
                    bindText(a, s, 7)
                    bindText(b, s, 8)
                    bindText(c, s, 9)
                    return try body()
                }
            }
        }
    }

    /// Binds the nine non-id columns of each row in `rows` to consecutive parameters (row k takes
    /// `9k + 1`…`9k + 9`), copying the texts once into the arena (SQLITE_STATIC), then steps and resets.
    func withBound(_ rows: ArraySlice<RawRecord>, to s: OpaquePointer, _ body: () throws -> Void) rethrows {
        var need = 0
        for r in rows { need += r.s1.utf8.count + r.s2.utf8.count + r.s3.utf8.count + 3 }
        if arena.count < need {
            arena.deallocate()
            arena = .allocate(byteCount: need * 2, alignment: 8)
        }
        var offset = 0
        var p: Int32 = 1
        for r in rows {
            sqlite3_bind_int64(s, p, Int64(r.i1))
            sqlite3_bind_int64(s, p + 1, Int64(r.i2))
            sqlite3_bind_int64(s, p + 2, Int64(r.i3))
            sqlite3_bind_double(s, p + 3, r.d1)
            sqlite3_bind_double(s, p + 4, r.d2)
            sqlite3_bind_double(s, p + 5, r.d3)
            copyAndBind(r.s1, s, p + 6, &offset)
            copyAndBind(r.s2, s, p + 7, &offset)
            copyAndBind(r.s3, s, p + 8, &offset)
            p += 9
        }
        try body()
    }

    @inline(__always)
    private func copyAndBind(_ text: String, _ s: OpaquePointer, _ i: Int32, _ offset: inout Int) {
        var text = text
        text.withUTF8 { bytes in
            let start = arena.baseAddress.map { $0 + offset }
            if let start, let from = bytes.baseAddress { start.copyMemory(from: from, byteCount: bytes.count) }
            _ = sqlite3_bind_text64(
                s, i, start?.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count), nil, UInt8(SQLITE_UTF8))
            offset += bytes.count + 1
        }
    }

    @inline(__always)
    static func bindText(_ buf: UnsafeBufferPointer<UInt8>, _ s: OpaquePointer, _ i: Int32) {
        guard let base = buf.baseAddress else {
            sqlite3_bind_text64(s, i, "", 0, strata_sqlite_transient(), UInt8(SQLITE_UTF8))
            return
        }
        base.withMemoryRebound(to: CChar.self, capacity: buf.count) { p in
            _ = sqlite3_bind_text64(s, i, p, sqlite3_uint64(buf.count), nil, UInt8(SQLITE_UTF8))
        }
    }
}

/// The SQL the raw baselines run, written as a person would write it by hand.
enum BenchSQL {
    static let columns = "id, i1, i2, i3, d1, d2, d3, s1, s2, s3"
    static let insertColumns = "i1, i2, i3, d1, d2, d3, s1, s2, s3"
    static let selectAll = "SELECT \(columns) FROM bench_record"
    /// The nine values each inserted row binds.
    static let insertWidth = 9

    /// Rows per multi-row INSERT, as `Model.insertAll` computes it: the dialect's bind limit over the
    /// number of inserted columns.
    static func rowsPerStatement(bindLimit: Int) -> Int {
        max(1, bindLimit / max(1, BenchRecord.schema.insertColumnNames.count))
    }

    /// `INSERT INTO bench_record (…) VALUES (…), (…), …` for `rows` rows, parameter `n` spelt `placeholder(n)`.
    static func multiRowInsert(rows: Int, placeholder: (Int) -> String, returning: String = "") -> String {
        var sql = "INSERT INTO bench_record (\(insertColumns)) VALUES "
        sql.reserveCapacity(sql.utf8.count + rows * insertWidth * 8)
        for r in 0..<rows {
            sql += r == 0 ? "(" : ", ("
            for c in 1...insertWidth {
                if c > 1 { sql += ", " }
                sql += placeholder(r * insertWidth + c)
            }
            sql += ")"
        }
        return sql + returning
    }
}
