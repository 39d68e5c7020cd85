// SQLiteConnection: one libsqlite3 handle with a prepared-statement cache; runs rendered SQL.
import CSQLite
import Foundation
import Strata

/// A connection to a SQLite database. Used by one task at a time (the pool sees to it).
///
/// The state every statement touches (the template plans, the held statements, the bind arena, the reused row) is
/// `@exclusivity(unchecked)`: one thread at a time uses a connection (the pool leases it whole), and no access to
/// those properties is ever left open across a call that could reach them again (each is read or written in one
/// expression, or copied out first, as `step` does with the arena), so the dynamic exclusivity check Swift makes on
/// a class's stored properties (about 80 instructions an access, eight accesses a save) could never fire.
public final class SQLiteConnection: SQLConnection {
    let handle: OpaquePointer
    private var cache: [String: OpaquePointer] = [:]
    /// The cached statement `prepared(_:)` handed out last, and its SQL (always an entry of `cache`).
    private var lastPrepared: (sql: String, stmt: OpaquePointer)?
    /// Prepared statements of templates, so their hot path builds, renders and hashes no SQL (see
    /// `execute(template:binds:statement:onRow:)`).
    @exclusivity(unchecked) var templateStatements: [StatementTemplate: PreparedTemplate] = [:]
    /// The plan of the template run last (see `cachedPlan(for:)`), which names its template.
    @exclusivity(unchecked) var lastPlan: PreparedTemplate?
    /// The plan run before ``lastPlan``: a save that reads back what the database computed alternates two templates.
    @exclusivity(unchecked) var previousPlan: PreparedTemplate?
    /// The SQL of SELECTs run before, by shape: a query run again with other values is not rendered again.
    public let renderCache: RenderCache? = RenderCache()
    /// Whether a table's key column is its rowid alias, by `table NUL column` (see `isRowidAlias`).
    var rowidAliases: [String: Bool] = [:]
    private static let cacheLimit = 512
    /// Statements a caller holds between preparing and finishing with them (a template's INSERT while the
    /// driver prepares the statements that read its keys, an outer query while its row callback runs):
    /// eviction never finalizes them. A short stack: calls nest a few deep at most, so its first `heldSlots`
    /// entries lie in a buffer of their own (an array's append and removeLast checked its uniqueness twice, about
    /// 80 instructions a statement) and deeper ones in `heldBeyond`.
    private let held = UnsafeMutablePointer<OpaquePointer?>.allocate(
        capacity: SQLiteConnection.heldSlots)
    @exclusivity(unchecked) private var heldCount = 0
    @exclusivity(unchecked) private var heldBeyond: [OpaquePointer] = []
    private static let heldSlots = 8
    /// Text and blob binds are copied here and bound without a copy by SQLite (SQLITE_STATIC), so a bind
    /// costs no SQLite allocation. Only the outermost statement uses it: a statement run from inside
    /// another's row callback binds with copies, as the outer one still reads its bytes.
    @exclusivity(unchecked) private var bindArena = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    @exclusivity(unchecked) private var bindArenaBusy = false
    /// The reader of the outermost running statement, reused from one statement to the next.
    @exclusivity(unchecked) private var outerRow: SQLiteRow?
    /// The one-value row that hands back an INSERT's key.
    let keyRow = SQLiteKeyRow()
    /// The SQLite dialect, reading which FTS5 index tables exist from this connection's database.
    public private(set) var dialect: any Dialect = SQLiteDialect()
    /// The FTS5 index tables of the database (see ``SQLiteFullTextCatalog``).
    private var fullTextCatalog: SQLiteFullTextCatalog?
    public private(set) var isBroken = false
    /// Whether a transaction is open (SQLite is not in autocommit mode).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    init(path: String, timeout: Double, journal: SQLiteJournalMode = .wal, walAutocheckpoint: Int? = nil) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StrataError.connectionFailed("cannot open SQLite database '\(path)': \(message)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Int32(max(0, timeout) * 1000))
        _ = strata_sqlite_disable_dqs(db)
        SQLiteDecimalCollation.register(on: db)
        SQLiteLike.register(on: db)
        SQLiteDecimalSum.register(on: db)
        SQLiteArithmetic.register(on: db)
        SQLiteNumbers.register(on: db)
        let catalog = SQLiteFullTextCatalog(handle: db)
        fullTextCatalog = catalog
        dialect = SQLiteDialect(catalog: catalog)
        do {
            if path != ":memory:", let pragma = journal.pragma { try exec(pragma) }
            try exec("PRAGMA synchronous = NORMAL")
            if let pages = walAutocheckpoint { sqlite3_wal_autocheckpoint(db, Int32(clamping: max(pages, 0))) }
            try exec("PRAGMA foreign_keys = ON")
        } catch {
            sqlite3_close_v2(db)
            throw StrataError.connectionFailed("cannot configure SQLite database '\(path)': \(error)")
        }
    }

    deinit {
        fullTextCatalog?.close()
        for stmt in cache.values { sqlite3_finalize(stmt) }
        sqlite3_close_v2(handle)
        bindArena.deallocate()
        held.deallocate()
    }

    /// Runs SQL without binds (connection set-up only).
    private func exec(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        defer { sqlite3_free(err) }
        if rc != SQLITE_OK { throw SQLiteErrors.map(rc, message: err.map { String(cString: $0) } ?? "", table: nil) }
    }

    /// Whether `stmt` is in use: held by a caller (see `holding(_:_:)`) or mid-iteration.
    func isInUse(_ stmt: OpaquePointer) -> Bool {
        if sqlite3_stmt_busy(stmt) != 0 { return true }
        for i in 0..<min(heldCount, Self.heldSlots) where held[i] == stmt { return true }
        return heldCount > Self.heldSlots && heldBeyond.contains(stmt)
    }

    /// Runs `body` with `stmt` held, so that no statement prepared meanwhile evicts (finalizes) it.
    @inline(__always)
    func holding<T>(_ stmt: OpaquePointer, _ body: () throws -> T) rethrows -> T {
        if heldCount < Self.heldSlots { held[heldCount] = stmt } else { heldBeyond.append(stmt) }
        heldCount += 1
        defer {
            heldCount -= 1
            if heldCount >= Self.heldSlots { heldBeyond.removeLast() }
        }
        return try body()
    }

    /// The cached prepared statement for `sql`, or, when that one is in use (a statement run from inside
    /// the row callback of the same SQL, or while a caller holds it), a fresh one the caller owns and
    /// finalizes (`owned`).
    private func prepared(_ sql: String) throws -> (stmt: OpaquePointer, owned: Bool) {
        // The statement run last, found without hashing its SQL: a loop of one query shape takes its text from the
        // render cache each time, the same string, which compares equal at once.
        if let last = lastPrepared, last.sql == sql {
            if !isInUse(last.stmt) { return (last.stmt, false) }
            return (try compile(sql, persistent: false), true)
        }
        if let stmt = cache[sql] {
            lastPrepared = (sql, stmt)
            if !isInUse(stmt) { return (stmt, false) }
            return (try compile(sql, persistent: false), true)
        }
        let stmt = try compile(sql, persistent: true)
        if cache.count >= Self.cacheLimit {
            // Statements in use (an outer query whose row callback is running, a statement a caller holds
            // while it prepares another) stay: finalizing one would leave its holder a dangling pointer.
            for (key, old) in cache where !isInUse(old) {
                sqlite3_finalize(old)
                cache[key] = nil
            }
            templateStatements = templateStatements.filter { cache.values.contains($0.value.stmt) }
            (lastPlan, previousPlan) = (nil, nil)
        }
        cache[sql] = stmt
        lastPrepared = (sql, stmt)
        return (stmt, false)
    }

    func compile(_ sql: String, persistent: Bool) throws -> OpaquePointer {
        var stmt: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sqlite3_prepare_v3(handle, sql, -1, flags, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw SQLiteErrors.map(rc, message: String(cString: sqlite3_errmsg(handle)), table: nil)
        }
        return stmt
    }

    /// Renders and prepares a statement (through the SQL cache) without running it; `owned` as for
    /// `prepared(_:)`.
    func prepare(_ statement: Statement) throws -> (stmt: OpaquePointer, binds: [DatabaseValue], owned: Bool) {
        let rendered = try SQLRenderer.render(statement, dialect: dialect)
        let (stmt, owned) = try prepared(rendered.sql)
        return (stmt, rendered.binds, owned)
    }

    public func run(_ rendered: RenderedSQL, statement: Statement?, onRow: (any RowReader) throws -> Void) throws -> Int
    {
        let (stmt, owned) = try prepared(rendered.sql)
        defer { if owned { sqlite3_finalize(stmt) } }
        return try holding(stmt) { try step(stmt, rendered.binds, table: statement?.tableName, onRow: onRow) }
    }

    /// Binds, steps to the end handing each row to `onRow` (to the first row only with `firstRowOnly`, for a statement
    /// that reads at most one), and resets; `table` names the table in errors.
    func step(
        _ stmt: OpaquePointer, _ binds: [DatabaseValue], table: String?, firstRowOnly: Bool = false,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        let usesArena = !bindArenaBusy
        // Raw SQL may name parameters the binds do not fill: those must read NULL, not a previous run's value.
        let fillsEvery = Int(sqlite3_bind_parameter_count(stmt)) == binds.count
        if !fillsEvery { sqlite3_clear_bindings(stmt) }
        bindArenaBusy = true
        var arena = usesArena ? bindArena : UnsafeMutableRawBufferPointer(start: nil, count: 0)
        var shortfall = 0
        defer {
            sqlite3_reset(stmt)
            // A run that binds every parameter overwrites all of them, so stale arena pointers are never
            // read; only SQLite's own copies (large or nested binds) are worth freeing now.
            if shortfall > 0 || !usesArena || !fillsEvery { sqlite3_clear_bindings(stmt) }
            if usesArena {
                bindArenaBusy = false
                if shortfall > 0 { growArena(toHold: bindArena.count - arena.count + shortfall) }
            }
        }
        // The values are read in place through the buffer (borrowed: `binds[i]` copied each, a retain and a release
        // of every text).
        let rc = binds.withUnsafeBufferPointer { values in
            for i in values.indices {
                let rc = bind(values[i], to: stmt, at: Int32(i + 1), arena: &arena, shortfall: &shortfall)
                if rc != SQLITE_OK { return rc }
            }
            return SQLITE_OK
        }
        if rc != SQLITE_OK {
            throw SQLiteErrors.map(rc, message: String(cString: sqlite3_errmsg(handle)), table: nil)
        }
        let row: SQLiteRow
        if usesArena {
            row = outerRow ?? SQLiteRow(stmt)
            row.stmt = stmt
            outerRow = row
        } else {
            row = SQLiteRow(stmt)  // the outer statement's reader is still in use
        }
        // sqlite3_changes keeps the last INSERT, UPDATE or DELETE's count through DDL: a DROP TABLE after an
        // INSERT of 7 rows would report 7. Only a statement that moved the total changed rows.
        let readOnly = sqlite3_stmt_readonly(stmt) != 0
        let totalBefore = readOnly ? 0 : sqlite3_total_changes64(handle)
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_ROW {
                try onRow(row)
                // The reset (deferred) ends the statement as stepping to its end would.
                if firstRowOnly { break }
            } else if rc == SQLITE_DONE {
                break
            } else {
                let message = String(cString: sqlite3_errmsg(handle))
                throw SQLiteErrors.map(sqlite3_extended_errcode(handle), message: message, table: table)
            }
        }
        if readOnly || sqlite3_total_changes64(handle) == totalBefore { return 0 }
        return Int(sqlite3_changes64(handle))
    }

    /// Grows the arena (between statements, never while one is bound to it) so that `bytes` fit next time;
    /// never past 1 MiB, so one large blob does not pin memory: bigger binds are copied by SQLite.
    private func growArena(toHold bytes: Int) {
        guard bytes > bindArena.count, bytes <= 1 << 20 else { return }
        bindArena.deallocate()
        bindArena = .allocate(byteCount: max(bytes, 2 * bindArena.count, 4096), alignment: 16)
    }

    /// Binds one value; text and blobs are copied into `arena` (advanced past them) and bound SQLITE_STATIC
    /// when it has room, else bound SQLITE_TRANSIENT (SQLite copies) and counted in `shortfall`, so the
    /// arena grows for the next statement.
    private func bind(
        _ value: DatabaseValue, to stmt: OpaquePointer, at i: Int32, arena: inout UnsafeMutableRawBufferPointer,
        shortfall: inout Int
    ) -> Int32 {
        switch value {
        case .null: return sqlite3_bind_null(stmt, i)
        case .bool(let b): return sqlite3_bind_int64(stmt, i, b ? 1 : 0)
        case .integer(let v): return sqlite3_bind_int64(stmt, i, v)
        // -0.0 is bound as 0.0, as every driver binds it (PostgreSQL sends "0"): a bound value read back unstored
        // (a window's default, a selected parameter) has no sign to lose later.
        case .double(let d): return sqlite3_bind_double(stmt, i, d == 0 ? 0 : d)
        case .text(let s), .json(let s): return bindText(s, stmt, i, arena: &arena, shortfall: &shortfall)
        case .date(let d): return bindText(DateText.format(d), stmt, i, arena: &arena, shortfall: &shortfall)
        case .decimal(let d): return bindText(d.description, stmt, i, arena: &arena, shortfall: &shortfall)
        case .uuid(let u): return bindText(u.uuidString.lowercased(), stmt, i, arena: &arena, shortfall: &shortfall)
        case .blob(let data):
            if data.isEmpty { return sqlite3_bind_zeroblob(stmt, i, 0) }
            return data.withUnsafeBytes { raw in
                if let base = arena.baseAddress, arena.count >= raw.count {
                    arena.copyMemory(from: raw)
                    arena = UnsafeMutableRawBufferPointer(rebasing: arena[raw.count...])
                    return sqlite3_bind_blob64(stmt, i, base, sqlite3_uint64(raw.count), nil)
                }
                shortfall += raw.count
                return sqlite3_bind_blob64(
                    stmt, i, raw.baseAddress, sqlite3_uint64(raw.count), strata_sqlite_transient())
            }
        }
    }

    /// Binds text: read in place through its UTF-8 storage (`withUTF8` needs a mutable copy of the string, a retain
    /// and a release a value), or through a contiguous copy for a string without such storage.
    private func bindText(
        _ s: String, _ stmt: OpaquePointer, _ i: Int32, arena: inout UnsafeMutableRawBufferPointer,
        shortfall: inout Int
    ) -> Int32 {
        if let rc = s.utf8.withContiguousStorageIfAvailable({ buf in
            bindUTF8(buf, stmt, i, arena: &arena, shortfall: &shortfall)
        }) {
            return rc
        }
        var s = s
        return s.withUTF8 { buf in bindUTF8(buf, stmt, i, arena: &arena, shortfall: &shortfall) }
    }

    /// Binds UTF-8 bytes as text: copied into `arena` and bound SQLITE_STATIC when it has room, else bound
    /// SQLITE_TRANSIENT (SQLite copies them) and counted in `shortfall`.
    @inline(__always)
    private func bindUTF8(
        _ buf: UnsafeBufferPointer<UInt8>, _ stmt: OpaquePointer, _ i: Int32,
        arena: inout UnsafeMutableRawBufferPointer, shortfall: inout Int
    ) -> Int32 {
        if let base = arena.baseAddress, arena.count >= buf.count {
            arena.copyMemory(from: UnsafeRawBufferPointer(buf))
            arena = UnsafeMutableRawBufferPointer(rebasing: arena[buf.count...])
            return sqlite3_bind_text64(
                stmt, i, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(buf.count), nil,
                UInt8(SQLITE_UTF8))
        }
        shortfall += buf.count
        // A non-nil pointer even for "", so the empty string is stored as text, not NULL.
        let base = buf.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(("" as StaticString).utf8Start)
        return sqlite3_bind_text64(
            stmt, i, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(buf.count),
            strata_sqlite_transient(), UInt8(SQLITE_UTF8))
    }

    public func columns(of table: String) throws -> [String]? {
        var names: [String] = []
        // table_xinfo: generated columns too (hidden 2 and 3), which table_info leaves out.
        let sql = "SELECT name FROM pragma_table_xinfo(?1) WHERE hidden IN (0, 2, 3)"
        _ = try run(RenderedSQL(sql: sql, binds: [.text(table)]), statement: nil) { r in
            if case .text(let n) = r.value(at: 0) { names.append(n) }
        }
        return names.isEmpty ? nil : names
    }
}

/// The current row of a stepping statement.
final class SQLiteRow: RowReader {
    var stmt: OpaquePointer
    init(_ stmt: OpaquePointer) { self.stmt = stmt }

    // The typed readers look at the column's value object once (sqlite3_column_value) and read it with the
    // sqlite3_value_* calls: one column lookup instead of two. Such an "unprotected" value may be read this
    // way only without concurrent use of the connection, which the pool guarantees (and NOMUTEX assumes).

    func int64(at index: Int) -> Int64? {
        guard let v = sqlite3_column_value(stmt, Int32(index)), sqlite3_value_type(v) == SQLITE_INTEGER else {
            return nil
        }
        return sqlite3_value_int64(v)
    }

    func double(at index: Int) -> Double? {
        guard let v = sqlite3_column_value(stmt, Int32(index)), sqlite3_value_type(v) == SQLITE_FLOAT else {
            return nil
        }
        return sqlite3_value_double(v)
    }

    func string(at index: Int) -> String? {
        guard let v = sqlite3_column_value(stmt, Int32(index)), sqlite3_value_type(v) == SQLITE_TEXT else {
            return nil
        }
        // sqlite3_value_text before sqlite3_value_bytes, as SQLite documents.
        guard let p = sqlite3_value_text(v) else { return "" }
        let count = Int(sqlite3_value_bytes(v))
        return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
    }

    var columnCount: Int { Int(sqlite3_column_count(stmt)) }

    func value(at index: Int) -> DatabaseValue {
        guard let v = sqlite3_column_value(stmt, Int32(index)) else { return .null }
        switch sqlite3_value_type(v) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(v))
        case SQLITE_FLOAT: return .double(sqlite3_value_double(v))
        case SQLITE_TEXT:
            guard let p = sqlite3_value_text(v) else { return .text("") }
            let count = Int(sqlite3_value_bytes(v))
            return .text(String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let p = sqlite3_value_blob(v)
            let count = Int(sqlite3_value_bytes(v))
            guard count > 0, let p else { return .blob(Data()) }
            return .blob(Data(bytes: p, count: count))
        default: return .null
        }
    }
}
