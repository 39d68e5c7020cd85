// RawSide: every workload through the libmariadb C API, the best equivalent of what Strata does.
import CMariaDB

/// Runs the workloads on one ``RawConnection``: statements prepared once (the first, warm-up run prepares them),
/// bound once to buffers, executed per row; transactions are `START TRANSACTION` … `COMMIT`, as Strata sends them.
final class RawSide {
    let connection: RawConnection

    init(_ connection: RawConnection) { self.connection = connection }

    static let inserted = "i1, i2, i3, d1, d2, d3, s1, s2, s3"
    static let columns = "id, " + inserted
    static let text = RawBinds.Kind.text(capacity: 64)
    static let rowParams: [RawBinds.Kind] = [.integer, .integer, .integer, .double, .double, .double, text, text, text]
    static let rowResults: [RawBinds.Kind] = [.integer] + rowParams

    /// Writes row `r` into params `at…at+8`.
    @inline(__always)
    static func bind(_ r: RawRecord, _ p: RawBinds, at o: Int) {
        p.set(o, Int64(r.i1))
        p.set(o + 1, Int64(r.i2))
        p.set(o + 2, Int64(r.i3))
        p.set(o + 3, r.d1)
        p.set(o + 4, r.d2)
        p.set(o + 5, r.d3)
        p.set(o + 6, r.s1)
        p.set(o + 7, r.s2)
        p.set(o + 8, r.s3)
    }

    @inline(__always)
    static func record(_ b: RawBinds) -> RawRecord {
        RawRecord(
            id: b.int64(0), i1: Int(b.int64(1)), i2: Int(b.int64(2)), i3: Int(b.int64(3)), d1: b.double(4),
            d2: b.double(5), d3: b.double(6), s1: b.string(7), s2: b.string(8), s3: b.string(9))
    }

    private func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try connection.exec("START TRANSACTION")
        do {
            let result = try body()
            try connection.exec("COMMIT")
            return result
        } catch {
            try? connection.exec("ROLLBACK")
            throw error
        }
    }

    /// One prepared INSERT, executed per row; the id from `mysql_stmt_insert_id` (no result set to read).
    func insertOneByOne(_ count: Int) async throws -> Sample {
        var records = (0..<count).map(RecordFactory.raw)
        let stmt = try connection.statement(
            "INSERT INTO bench_record (\(Self.inserted)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", params: Self.rowParams)
        return try await timed(
            {
                try inTransaction {
                    for i in records.indices {
                        Self.bind(records[i], stmt.params, at: 0)
                        try stmt.execute()
                        records[i].id = stmt.insertID
                    }
                }
            }, digest: { Digest.written(records) })
    }

    /// Multi-row statements by table, rows and suffix, so that a timed run does not even build their SQL again.
    private var multiRows: [String: RawStatement] = [:]

    /// The multi-row INSERT for `rows` rows (`INSERT … VALUES (…), (…)`), with `suffix` after it.
    private func multiRow(_ table: String, rows: Int, suffix: String = "") throws -> RawStatement {
        let key = "\(table) \(rows) \(suffix)"
        if let stmt = multiRows[key] { return stmt }
        let one = "(" + Array(repeating: "?", count: 9).joined(separator: ", ") + ")"
        let sql =
            "INSERT INTO \(table) (\(Self.inserted)) VALUES "
            + Array(repeating: one, count: rows).joined(separator: ", ") + suffix
        let params = (0..<rows).flatMap { _ in Self.rowParams }
        let stmt = try connection.statement(sql, params: params, results: suffix.isEmpty ? [] : [.integer])
        multiRows[key] = stmt
        return stmt
    }

    /// Multi-row INSERTs of as many rows as the binary protocol's 65,535 parameters allow (as `insertAll` chunks
    /// them), in one transaction; ids are the first row's `insert_id` on, as InnoDB numbers a simple multi-row
    /// INSERT consecutively.
    func bulkInsert(_ count: Int, rowsPerStatement: Int) async throws -> Sample {
        var records = (0..<count).map(RecordFactory.raw)
        return try await timed(
            {
                try inTransaction {
                    var start = 0
                    while start < records.count {
                        let n = min(rowsPerStatement, records.count - start)
                        let stmt = try multiRow("bench_record", rows: n)
                        for j in 0..<n { Self.bind(records[start + j], stmt.params, at: 9 * j) }
                        try stmt.execute()
                        let first = stmt.insertID
                        for j in 0..<n { records[start + j].id = first + Int64(j) }
                        start += n
                    }
                }
            }, digest: { Digest.written(records) })
    }

    /// `SELECT` every row into structs.
    func fetchAll(base: Int64) async throws -> Sample {
        let stmt = try connection.statement(
            "SELECT \(Self.columns) FROM bench_record", params: [], results: Self.rowResults)
        return try await timed(
            {
                try inTransaction {
                    var rows: [RawRecord] = []
                    try stmt.execute()
                    try stmt.forEachRow { rows.append(Self.record($0)) }
                    return rows
                }
            }, digest: { Digest.of($0, base: base) })
    }

    /// One prepared `SELECT … WHERE id = ?`, executed per id, in one transaction.
    func lookups(_ ids: [Int64], base: Int64) async throws -> Sample {
        let stmt = try connection.statement(
            "SELECT \(Self.columns) FROM bench_record WHERE id = ?", params: [.integer], results: Self.rowResults)
        var found: [RawRecord] = []
        found.reserveCapacity(ids.count)
        return try await timed(
            {
                try inTransaction {
                    for id in ids {
                        stmt.params.set(0, id)
                        try stmt.execute()
                        try stmt.forEachRow { found.append(Self.record($0)) }
                    }
                }
            }, digest: { Digest.of(found, base: base) })
    }

    /// One prepared `SELECT … WHERE i1 > ? ORDER BY d1 LIMIT ?`, executed per threshold, in one transaction.
    func filteredQueries(_ thresholds: [Int], limit: Int, base: Int64) async throws -> Sample {
        let stmt = try connection.statement(
            "SELECT \(Self.columns) FROM bench_record WHERE i1 > ? ORDER BY d1 LIMIT ?", params: [.integer, .integer],
            results: Self.rowResults)
        var found: [RawRecord] = []
        return try await timed(
            {
                try inTransaction {
                    for t in thresholds {
                        stmt.params.set(0, Int64(t))
                        stmt.params.set(1, Int64(limit))
                        try stmt.execute()
                        try stmt.forEachRow { found.append(Self.record($0)) }
                    }
                }
            }, digest: { Digest.of(found, base: base) })
    }

    /// Multi-row `INSERT … ON DUPLICATE KEY UPDATE … RETURNING id` in chunks, in one transaction: each row's id,
    /// stored or new, read back in order.
    func upsert(_ count: Int, rowsPerStatement: Int) async throws -> Sample {
        var records = (0..<count).map(RecordFactory.raw)
        let update =
            " ON DUPLICATE KEY UPDATE i2 = VALUES(i2), i3 = VALUES(i3), d1 = VALUES(d1), d2 = VALUES(d2), "
            + "d3 = VALUES(d3), s1 = VALUES(s1), s2 = VALUES(s2), s3 = VALUES(s3) RETURNING id"
        return try await timed(
            {
                try inTransaction {
                    var start = 0
                    while start < records.count {
                        let n = min(rowsPerStatement, records.count - start)
                        let stmt = try multiRow("bench_keyed", rows: n, suffix: update)
                        for j in 0..<n { Self.bind(records[start + j], stmt.params, at: 9 * j) }
                        try stmt.execute()
                        var j = start
                        try stmt.forEachRow { r in
                            records[j].id = r.int64(0)
                            j += 1
                        }
                        start += n
                    }
                }
            }, digest: { Digest.written(records) })
    }

    /// Every row of `table`, ids relative to the smallest: what a write workload left behind.
    func tableDigest(_ table: String) throws -> Digest {
        let stmt = try connection.statement(
            "SELECT \(Self.columns) FROM \(table) ORDER BY id", params: [], results: Self.rowResults)
        var rows: [RawRecord] = []
        try stmt.execute()
        try stmt.forEachRow { rows.append(Self.record($0)) }
        return Digest.written(rows)
    }
}
