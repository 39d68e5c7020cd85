// SQLiteConnection+RowKeys: the keys of a multi-row INSERT, read from what SQLite assigned, under its write lock.
import CSQLite
import Strata

/// The keys a multi-row INSERT assigned, in row order.
private enum AssignedKeys {
    /// `first`, `first + 1`, … one per row.
    case consecutive(first: Int64)
    /// One key per row, read after each row's own INSERT.
    case each([Int64])
}

extension SQLiteConnection {
    /// Runs a multi-row INSERT (`stmt`, bound with `binds`) into a rowid table whose rows name `columns` but not
    /// the rowid alias `key`, and hands each row's key to `onRow`, in row order.
    ///
    /// The keys are `last_insert_rowid() - count + 1 … last_insert_rowid()` when all of this holds:
    /// 1. This connection holds SQLite's write lock from the check below to the end of the INSERT: the driver
    ///    opens `BEGIN IMMEDIATE` itself on an autocommit connection, and Strata's transactions open with
    ///    `BEGIN IMMEDIATE`. (In a deferred transaction opened by raw SQL, the check and the INSERT read one
    ///    snapshot and SQLite fails the INSERT with `SQLITE_BUSY` rather than write over a newer one.) So no
    ///    other connection inserts into the table between the check and the INSERT, or during it.
    /// 2. No trigger is defined on the table (checked under that lock), so nothing on this connection
    ///    inserts into it during the statement either.
    /// 3. The table's largest key before the INSERT is below `Int64.max - count`. SQLite's `OP_NewRowid`
    ///    (vdbe.c) gives each new row the largest rowid in the table plus one (`sqlite3BtreeLast`), and
    ///    picks random rowids only once the largest is `Int64.max` (https://sqlite.org/autoinc.html); an
    ///    AUTOINCREMENT table takes the larger of that and `sqlite_sequence` plus one, and fails with
    ///    `SQLITE_FULL` rather than go random. Rowids are chosen before constraint checks, so an
    ///    `ON CONFLICT REPLACE` clause does not break the run. Each row of the statement thus gets the
    ///    previous row's key plus one, and VALUES rows are inserted in their order.
    /// 4. Every row was stored (`sqlite3_changes64` is `count`): an `ON CONFLICT IGNORE` clause in the
    ///    table's definition may skip rows, and then which key belongs to which row is unknown, an error.
    /// `last_insert_rowid` is then the last row's key (https://sqlite.org/c3ref/last_insert_rowid.html).
    ///
    /// When 2 or 3 fails, each row runs as its own single-row INSERT and its key is `last_insert_rowid` right
    /// after it, which is exact whatever triggers or random rowids do; a savepoint keeps the rows all or
    /// nothing, as one statement is.
    ///
    /// SQLite runs `INSERT … RETURNING` about 2.5 times slower than a plain INSERT (3.40), and its
    /// RETURNING rows come in no documented order, hence this.
    func insertRows(
        _ stmt: OpaquePointer, _ binds: [DatabaseValue], count: Int, into table: String, columns: [String],
        key: String, defaults: [String: DatabaseDefault], onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        let ownsTransaction = sqlite3_get_autocommit(handle) != 0
        if ownsTransaction { try runControl("BEGIN IMMEDIATE") }
        let keys: AssignedKeys
        do {
            if let largest = try largestKeyIfConsecutive(in: table, key: key, count: count) {
                let changed = try step(stmt, binds, table: table) { _ in }
                guard changed == count else { throw Self.rowsSkipped(table: table, stored: changed, of: count) }
                let first = sqlite3_last_insert_rowid(handle) - Int64(count) + 1
                guard first > largest else {
                    throw StrataError.divergence(
                        statement: "INSERT INTO \(table)",
                        details: "SQLite assigned keys from \(first), not after the largest key \(largest)")
                }
                keys = .consecutive(first: first)
            } else {
                keys = .each(
                    try insertOneByOne(
                        binds, count: count, into: table, columns: columns, defaults: defaults,
                        inSavepoint: !ownsTransaction))
            }
            if ownsTransaction { try runControl("COMMIT") }
        } catch {
            if ownsTransaction && sqlite3_get_autocommit(handle) == 0 { try? runControl("ROLLBACK") }
            throw error
        }
        switch keys {
        case .consecutive(let first):
            for offset in 0..<Int64(count) {
                keyRow.key = first + offset
                try onRow(keyRow)
            }
        case .each(let list):
            for k in list {
                keyRow.key = k
                try onRow(keyRow)
            }
        }
        return count
    }

    /// The table's largest key (0 when empty) when a `count`-row INSERT will assign consecutive keys after it:
    /// no trigger on the table (in the main or the temp schema) and the largest key below `Int64.max - count`.
    /// Nil otherwise.
    private func largestKeyIfConsecutive(in table: String, key: String, count: Int) throws -> Int64? {
        // The key column, not `rowid`, which a column of that name would shadow; `max` of the rowid alias is
        // one b-tree descent.
        let sql =
            "SELECT (SELECT max(\(try dialect.quote(key))) FROM \(try dialect.quote(table))), "
            + "EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE) "
            + "OR EXISTS (SELECT 1 FROM sqlite_temp_schema WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE)"
        var largest: Int64 = 0
        var hasTriggers = true
        _ = try run(RenderedSQL(sql: sql, binds: [.text(table)]), statement: nil) { r in
            if case .integer(let v) = r.value(at: 0) { largest = v }
            if case .integer(let t) = r.value(at: 1) { hasTriggers = t != 0 }
        }
        guard !hasTriggers, largest < Int64.max - Int64(count) else { return nil }
        return largest
    }

    /// Inserts the rows one by one with a single-row INSERT, reading each key right after its row; inside a
    /// savepoint when `inSavepoint` (the caller's transaction), so a failure undoes every row.
    private func insertOneByOne(
        _ binds: [DatabaseValue], count: Int, into table: String, columns: [String],
        defaults: [String: DatabaseDefault], inSavepoint: Bool
    ) throws -> [Int64] {
        let width = columns.count
        let single = Insert(table: table, columns: columns, rows: [Array(binds[0..<width])], defaults: defaults)
        let (stmt, _, owned) = try prepare(.insert(single))
        defer { if owned { sqlite3_finalize(stmt) } }
        if inSavepoint { try runControl("SAVEPOINT strata_insert_rows") }
        do {
            let keys = try holding(stmt) {
                var keys: [Int64] = []
                keys.reserveCapacity(count)
                for row in 0..<count {
                    let changed = try step(stmt, Array(binds[row * width..<(row + 1) * width]), table: table) { _ in }
                    guard changed == 1 else { throw Self.rowsSkipped(table: table, stored: row, of: count) }
                    keys.append(sqlite3_last_insert_rowid(handle))
                }
                return keys
            }
            if inSavepoint { try runControl("RELEASE strata_insert_rows") }
            return keys
        } catch {
            if inSavepoint {
                try? runControl("ROLLBACK TO strata_insert_rows")
                try? runControl("RELEASE strata_insert_rows")
            }
            throw error
        }
    }

    /// Runs a transaction-control statement through the statement cache.
    private func runControl(_ sql: String) throws {
        _ = try run(RenderedSQL(sql: sql, binds: []), statement: nil) { _ in }
    }

    private static func rowsSkipped(table: String, stored: Int, of count: Int) -> StrataError {
        // A conflict clause of the table's own skipped some rows, so which key belongs to which row is unknown.
        .insertIgnored(table: table)
    }
}
