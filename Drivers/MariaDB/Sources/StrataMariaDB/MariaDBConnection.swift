// MariaDBConnection: one libmariadb handle with a prepared-statement cache; runs rendered SQL over the binary protocol.
import CMariaDB
import Foundation
import Strata

/// A connection to a MariaDB database. Used by one task at a time (the pool sees to it).
public final class MariaDBConnection: SQLConnection {
    let handle: UnsafeMutablePointer<MYSQL>
    public let dialect: any Dialect = MariaDBDialect()
    public private(set) var isBroken = false
    /// Whether a result's rows are being read (unbuffered): no other statement may use the connection until they end.
    private var isReadingResults = false
    /// Prepared statements by SQL text; at most ``cacheLimit``.
    private var cache: [String: MariaDBStatement] = [:]
    private static let cacheLimit = 256
    /// The SQL of each statement template this connection ran, with the statement stripped of its rows (what `run`
    /// reads of it) and its prepared statement, so a template's execution hashes no SQL (see
    /// `execute(template:binds:statement:onRow:)`).
    var templates: [StatementTemplate: KnownTemplate] = [:]
    /// The unique keys of each table an upsert wrote (index name to columns), as of ``schemaFactsGeneration``
    /// (see `upsertRunsByRow(_:)`).
    var uniqueKeysByTable: [String: [String: [String]]] = [:]
    /// Counts the schema changes made through the driver's connections (this one included).
    let schemaChanges: MariaDBSchemaChanges
    /// Seconds a statement waits for a lock (the session's `innodb_lock_wait_timeout`).
    let lockWaitSeconds: Int
    /// `auto_increment_increment` when InnoDB assigns each statement's keys consecutively, else nil (see
    /// `insertIDPlan(_:sql:)`).
    var autoIncrementStep: Int64?
    /// Whether INSERTs that return their new keys read them from the insert id rather than from RETURNING rows
    /// (InnoDB's `innodb_autoinc_lock_mode` is 0 or 1; not on Galera, which needs 2).
    public var readsKeysFromInsertID: Bool { autoIncrementStep != nil }
    /// Each table's `AUTO_INCREMENT` column (nil for none), as of ``schemaFactsGeneration``.
    var autoIncrementByTable: [String: String?] = [:]
    /// The schema-change count (``MariaDBSchemaChanges``) the per-table facts above were read at (see
    /// `schemaFact(_:table:read:)`).
    var schemaFactsGeneration = 0
    /// The insert id of the last statement that returned no rows.
    var lastInsertID: UInt64 = 0

    /// libmariadb's global state is set up once, before any thread makes a handle (`mysql_init` alone is not
    /// thread-safe the first time); `mysql_server_init` is what the `mysql_library_init` macro calls.
    private static let libraryReady: Bool = mysql_server_init(0, nil, nil) == 0

    init(options: MariaDBConnectionOptions, schemaChanges: MariaDBSchemaChanges = MariaDBSchemaChanges()) throws {
        guard Self.libraryReady, let h = mysql_init(nil) else {
            throw StrataError.connectionFailed("cannot initialise libmariadb")
        }
        handle = h
        self.schemaChanges = schemaChanges
        lockWaitSeconds = options.timeoutSeconds
        var seconds = UInt32(options.timeoutSeconds)
        mysql_options(h, MYSQL_OPT_CONNECT_TIMEOUT, &seconds)
        // A reply that never comes (a prepared SELECT with LIMIT 0 was seen to leave libmariadb waiting for rows
        // the server never sends) fails the call, and the connection, instead of hanging it.
        var readSeconds = UInt32(options.readTimeoutSeconds)
        mysql_options(h, MYSQL_OPT_READ_TIMEOUT, &readSeconds)
        mysql_options(h, MYSQL_OPT_WRITE_TIMEOUT, &readSeconds)
        mysql_options(h, MYSQL_SET_CHARSET_NAME, "utf8mb4")
        let socket = options.host.hasPrefix("/") ? options.host : nil
        let host = socket == nil ? options.host : "localhost"
        // CLIENT_FOUND_ROWS: an UPDATE reports the rows it matched, as SQLite and PostgreSQL do, not only the ones
        // whose values changed.
        let flags = UInt(CLIENT_FOUND_ROWS)
        guard
            mysql_real_connect(
                h, host, options.user, options.password, options.database, UInt32(options.port), socket, flags) != nil
        else {
            let code = Int(mysql_errno(h))
            let message = String(cString: mysql_error(h))
            // deinit closes the handle: every stored property is set, so a throw from here on runs it.
            if code == 1045 || code == 1044 { throw StrataError.authenticationFailed("\(options): \(message)") }
            throw StrataError.connectionFailed("cannot connect to \(options): \(message)")
        }
        do {
            try exec(
                "SET NAMES utf8mb4 COLLATE utf8mb4_nopad_bin, time_zone = '+00:00', "
                    + "sql_mode = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,"
                    + "NO_ZERO_DATE,NO_ZERO_IN_DATE,NO_AUTO_VALUE_ON_ZERO,"
                    + "ANSI_QUOTES,PIPES_AS_CONCAT,NO_BACKSLASH_ESCAPES,SIMULTANEOUS_ASSIGNMENT', "
                    + "innodb_lock_wait_timeout = \(options.timeoutSeconds), lock_wait_timeout = \(options.timeoutSeconds)"
                    + (options.syncWait.map { ", wsrep_sync_wait = \($0)" } ?? "")
            )
        } catch {
            throw StrataError.connectionFailed("cannot configure the MariaDB session on \(options): \(error)")
        }
        autoIncrementStep = Self.autoIncrementStep(self)
    }

    deinit {
        for stmt in cache.values { stmt.close() }
        mysql_close(handle)
    }

    /// Whether a transaction is open (the server's status flag after the last statement).
    public var isInTransaction: Bool {
        handle.pointee.server_status & UInt32(SERVER_STATUS_IN_TRANS) != 0
    }

    /// Runs SQL without binds over the text protocol, discarding any result (session set-up, statements the
    /// binary protocol cannot prepare).
    func exec(_ sql: String, table: String? = nil) throws {
        if mysql_real_query(handle, sql, UInt(sql.utf8.count)) != 0 {
            throw failure(table: table)
        }
        repeat {
            if let result = mysql_store_result(handle) { mysql_free_result(result) }
        } while mysql_next_result(handle) == 0
    }

    /// The typed error for the handle's last failure; marks the connection broken when the server is gone.
    func failure(table: String?) -> StrataError {
        let code = Int(mysql_errno(handle))
        noteLoss(code)
        return MariaDBErrors.map(code, message: String(cString: mysql_error(handle)), table: table, on: self)
    }

    func failure(of stmt: StatementHandle, table: String?) -> StrataError {
        let code = Int(mysql_stmt_errno(stmt))
        noteLoss(code)
        return MariaDBErrors.map(code, message: String(cString: mysql_stmt_error(stmt)), table: table, on: self)
    }

    /// Marks the connection broken when error `code` means the server is gone or the node cannot serve it, and
    /// notes whether the loss happened with a statement in flight (its outcome is then unknown).
    private func noteLoss(_ code: Int) {
        if MariaDBErrors.losesConnection(code) { isBroken = true }
        if MariaDBErrors.lostInFlight(code) { lostInFlight = true }
    }

    /// Whether the last statement's connection broke while the statement was on its way or awaiting its answer
    /// (CR_SERVER_GONE_ERROR, CR_SERVER_LOST): the server may have applied it.
    private var lostInFlight = false

    /// Whether the idle connection is still fit to use, found without a round trip: its socket has nothing to read
    /// (a MariaDB server sends nothing unasked; a killed or stopped server leaves the end of the stream, or an
    /// error packet, there). The pool replaces one that is not, so a node that died costs no caller an error.
    public var isUsable: Bool {
        guard !isBroken else { return false }
        let fd = mysql_get_socket(handle)
        guard fd >= 0 else { return true }
        var ready = pollfd(fd: Int32(fd), events: Int16(POLLIN), revents: 0)
        let n = poll(&ready, 1, 0)
        if n == 0 { return true }
        if n < 0 { return errno == EINTR }
        isBroken = true
        return false
    }

    /// Whether the server is ready for statements: not a Galera node (`wsrep_on` OFF, or no such variable), or one
    /// whose `wsrep_ready` is ON (a node outside the primary component, or still joining, refuses them with error
    /// 1047). Only SHOW statements, which such a node still answers.
    func isGaleraReady() throws -> Bool {
        guard try showValue("SHOW VARIABLES LIKE 'wsrep_on'")?.uppercased() == "ON" else { return true }
        return try showValue("SHOW STATUS LIKE 'wsrep_ready'")?.uppercased() == "ON"
    }

    /// The value column of the first row a `SHOW … LIKE` statement answers, or nil for none.
    private func showValue(_ sql: String) throws -> String? {
        if mysql_real_query(handle, sql, UInt(sql.utf8.count)) != 0 { throw failure(table: nil) }
        guard let result = mysql_store_result(handle) else { return nil }
        defer { mysql_free_result(result) }
        guard mysql_num_fields(result) >= 2, let row = mysql_fetch_row(result), let value = row[1] else { return nil }
        return String(cString: value)
    }

    /// `read()`'s answer for `table` (a fact read from `information_schema`), kept in `cache` until a schema change
    /// through the driver (``MariaDBSchemaChanges``): a migration, DDL or raw SQL that is not a query or a row write,
    /// on any of its connections, clears every table's facts.
    func schemaFact<T>(
        _ cache: ReferenceWritableKeyPath<MariaDBConnection, [String: T]>, table: String, read: () throws -> T
    ) rethrows -> T {
        let generation = schemaChanges.current
        if generation != schemaFactsGeneration {
            uniqueKeysByTable = [:]
            autoIncrementByTable = [:]
            schemaFactsGeneration = generation
        }
        if let known = self[keyPath: cache][table] { return known }
        let fact = try read()
        // Kept only when no schema change came while it was read (it might predate it).
        if schemaChanges.current == generation { self[keyPath: cache][table] = fact }
        return fact
    }

    /// The cached prepared statement for `sql` (`known` when it is still open and idle: a template's, found without
    /// hashing its SQL), or a fresh one the caller closes (`owned`) when the cached one is in use or the statement
    /// is not worth caching.
    private func prepared(_ sql: String, cacheable: Bool, table: String?, known: MariaDBStatement?) throws -> (
        MariaDBStatement, owned: Bool
    ) {
        if let known, !known.isClosed, !known.inUse { return (known, false) }
        if let stmt = cache[sql], !stmt.inUse { return (stmt, false) }
        guard let handle = mysql_stmt_init(handle) else { throw failure(table: table) }
        if mysql_stmt_prepare(handle, sql, UInt(sql.utf8.count)) != 0 {
            let error = failure(of: handle, table: table)
            mysql_stmt_close(handle)
            throw error
        }
        let stmt = MariaDBStatement(handle, sql: sql)
        guard cacheable, cache[sql] == nil else { return (stmt, true) }
        if cache.count >= Self.cacheLimit {
            for (key, old) in cache where !old.inUse {
                old.close()
                cache[key] = nil
            }
        }
        cache[sql] = stmt
        return (stmt, false)
    }

    /// The open cached statement prepared for `sql`, if any.
    func cachedStatement(_ sql: String) -> MariaDBStatement? {
        cache[sql].flatMap { $0.isClosed ? nil : $0 }
    }

    public func run(_ rendered: RenderedSQL, statement: Statement?, onRow: (any RowReader) throws -> Void) throws -> Int
    {
        try run(rendered, statement: statement, known: nil, onRow: onRow)
    }

    /// ``run(_:statement:onRow:)`` with the prepared statement a template found for the SQL last time, if any;
    /// `readsIDs`: `rendered` is an INSERT whose RETURNING clause ``insertIDPlan(_:sql:)`` removed.
    func run(
        _ rendered: RenderedSQL, statement: Statement?, known: MariaDBStatement?, readsIDs: Bool = false,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        let autocommit = !isInTransaction
        lostInFlight = false
        do {
            if let statement {
                if readsIDs {
                    return try insertReadingIDs(rendered, statement: statement, known: known, onRow: onRow)
                }
                if known == nil, let sql = try insertIDPlan(statement, sql: rendered.sql) {
                    return try insertReadingIDs(
                        RenderedSQL(sql: sql, binds: rendered.binds), statement: statement, known: nil, onRow: onRow)
                }
            }
            return try perform(rendered, statement: statement, known: known, onRow: onRow)
        } catch StrataError.foreignKeyViolation where statement?.isDropTable == true {
            // InnoDB refuses to drop a table another table's foreign key references (1451): the error every driver
            // raises for it, naming that table.
            guard case .dropTable(let name)? = statement else { throw StrataError.foreignKeyViolation(table: nil) }
            let other = try? rows(
                "SELECT TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() "
                    + "AND REFERENCED_TABLE_NAME = ? AND TABLE_NAME <> ? LIMIT 1", [.text(name), .text(name)]
            ).first?.first
            guard case .text(let referencing)? = other else { throw StrataError.tableReferenced(name, by: "?") }
            throw StrataError.tableReferenced(name, by: referencing)
        } catch StrataError.connectionLost(let reason)
            where lostInFlight && Self.mayHaveWritten(statement, sql: rendered.sql, autocommit: autocommit)
        {
            // The server went away after the statement was sent: a COMMIT, an autocommit write or a DDL statement
            // (which commits the open transaction first) may have been applied, or not (a Galera node killed
            // mid-commit may have replicated it to the others).
            throw StrataError.outcomeUnknown(reason)
        }
    }

    /// Whether a statement that lost its connection in flight may have changed the database: a COMMIT, a write
    /// outside a transaction, any DDL (MariaDB commits the open transaction before it); never a read, a BEGIN, a
    /// ROLLBACK or a savepoint.
    static func mayHaveWritten(_ statement: Statement?, sql: String, autocommit: Bool) -> Bool {
        switch statement {
        case .commit?: return true
        case .select?, .begin?, .beginIsolated?, .rollback?, .savepoint?, .releaseSavepoint?, .rollbackToSavepoint?:
            return false
        case .insert?, .update?, .delete?: return autocommit
        case .some: return true
        case nil:
            let word = sql.drop { $0.isWhitespace || $0 == "(" }.prefix { $0.isLetter }.uppercased()
            let reads = [
                "SELECT", "SHOW", "BEGIN", "START", "ROLLBACK", "SAVEPOINT", "RELEASE", "VALUES", "SET", "WITH",
            ]
            if ["INSERT", "UPDATE", "DELETE", "REPLACE"].contains(word) { return autocommit }
            return !reads.contains(word)
        }
    }

    /// Runs one statement; `table` names the table for a typed error when `statement` is nil.
    ///
    /// Transaction control (`START TRANSACTION`, `COMMIT`, savepoints) goes over the text protocol: one round trip,
    /// nothing to prepare or close. Anything that may change a table's schema counts as a schema change
    /// (``MariaDBSchemaChanges``) once it has run, or failed.
    func perform(
        _ rendered: RenderedSQL, statement: Statement?, table: String? = nil, known: MariaDBStatement? = nil,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        if isReadingResults {
            // The rows are read off the socket as the callback asks for them (see `prepareAndRun`): nothing else
            // can go over the connection until they end, as on PostgreSQL.
            throw StrataError.unsupported(
                feature: "a statement inside forEach's body (collect the rows with all() first)", driver: "mariadb")
        }
        let table = statement?.tableName ?? table
        if let statement, Self.isTransactionControl(statement), rendered.binds.isEmpty {
            try exec(rendered.sql, table: table)
            return 0
        }
        if Self.mayChangeSchema(statement, sql: rendered.sql) {
            defer { schemaChanges.note() }
            return try prepareAndRun(rendered, statement: statement, table: table, known: known, onRow: onRow)
        }
        return try prepareAndRun(rendered, statement: statement, table: table, known: known, onRow: onRow)
    }

    private func prepareAndRun(
        _ rendered: RenderedSQL, statement: Statement?, table: String?, known: MariaDBStatement?,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        if case .insert(let insert)? = statement, try upsertRunsByRow(insert) {
            return try runUpsertByRow(insert, onRow: onRow)
        }
        let cacheable = statement.map(Self.isCacheable) ?? !rendered.binds.isEmpty
        let stmt: MariaDBStatement
        let owned: Bool
        do {
            (stmt, owned) = try prepared(rendered.sql, cacheable: cacheable, table: table, known: known)
        } catch StrataError.database(code: 1295, _) where rendered.binds.isEmpty {
            // ER_UNSUPPORTED_PS: a statement the binary protocol cannot prepare runs as text.
            try exec(rendered.sql, table: table)
            return Int(clamping: mysql_affected_rows(handle))
        }
        stmt.inUse = true
        // A statement that failed is closed, never run again: libmariadb 3.3 leaves a statement whose result
        // ended in an error (an INSERT … RETURNING refused by a constraint) waiting, on its next execution, for a
        // reply the server never sends, until the read timeout drops the connection ("Server has gone away").
        // Its buffers go with it, so the next execution starts from fresh ones.
        var failed = true
        defer {
            mysql_stmt_free_result(stmt.handle)
            stmt.inUse = false
            if failed && !owned && cache[stmt.sql] === stmt { cache[stmt.sql] = nil }
            if owned || failed { stmt.close() }
        }
        let parameters = Int(mysql_stmt_param_count(stmt.handle))
        guard parameters == rendered.binds.count else {
            throw StrataError.invalidQuery(
                "the statement has \(parameters) parameters and \(rendered.binds.count) values")
        }
        if !rendered.binds.isEmpty {
            stmt.params.set(rendered.binds)
            if stmt.params.bind(to: stmt.handle) != 0 { throw failure(of: stmt.handle, table: table) }
        }
        if mysql_stmt_execute(stmt.handle) != 0 { throw failure(of: stmt.handle, table: table) }
        guard mysql_stmt_field_count(stmt.handle) > 0 else {
            failed = false
            lastInsertID = mysql_stmt_insert_id(stmt.handle)
            let changed = mysql_stmt_affected_rows(stmt.handle)
            return changed == UInt64.max ? 0 : Int(clamping: changed)
        }
        // The rows are read unbuffered, straight off the socket, as the raw API's loop reads them (storing the
        // result first copies every row once more); the connection is busy until they end, so a statement from
        // inside `onRow` is refused (see `perform`). Ending early, by a throw, flushes the rest (`free_result`).
        isReadingResults = true
        defer { isReadingResults = false }
        let row: MariaDBRow
        if let kept = stmt.row, kept.reads(stmt.handle) {
            row = kept
        } else {
            row = try MariaDBRow(stmt.handle)
            stmt.row = row
        }
        try row.bind(to: stmt.handle)
        var count = 0
        while true {
            let rc = mysql_stmt_fetch(stmt.handle)
            if rc == MYSQL_NO_DATA { break }
            if rc != 0 && rc != MYSQL_DATA_TRUNCATED {
                // An error ending an unbuffered result (an INSERT … RETURNING refused by a unique key) is the
                // connection's: libmariadb sets no statement error for it. The result has ended, so the error's
                // mapping may query the connection (a unique key's columns).
                isReadingResults = false
                throw mysql_stmt_errno(stmt.handle) != 0
                    ? failure(of: stmt.handle, table: table) : failure(table: table)
            }
            try row.refetchTruncated(stmt.handle)
            count += 1
            try onRow(row)
        }
        failed = false
        // Rows a query returned are not rows it changed; an INSERT or DELETE … RETURNING changed those it returned.
        switch statement {
        case .insert?, .delete?: return count
        default: return 0
        }
    }

    /// Whether a statement begins, ends or marks a point in a transaction.
    private static func isTransactionControl(_ statement: Statement) -> Bool {
        switch statement {
        case .begin, .beginIsolated, .commit, .rollback, .savepoint, .releaseSavepoint, .rollbackToSavepoint:
            return true
        default: return false
        }
    }

    /// Whether a statement may change a table's schema: anything but a query, a row write or transaction control
    /// (raw SQL by its first word; a word not known to leave the schema alone counts as a change).
    static func mayChangeSchema(_ statement: Statement?, sql: String) -> Bool {
        switch statement {
        case .select?, .insert?, .update?, .delete?: return false
        case .some(let s): return !isTransactionControl(s)
        case nil:
            let word = sql.drop { $0.isWhitespace || $0 == "(" }.prefix { $0.isLetter }.uppercased()
            let leaves = [
                "SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "SHOW", "BEGIN", "START", "COMMIT", "ROLLBACK",
                "SAVEPOINT", "RELEASE", "VALUES", "SET", "WITH", "EXPLAIN", "DESCRIBE", "DESC", "DO",
            ]
            return !leaves.contains(word)
        }
    }

    /// Whether a statement's prepared form is worth keeping: queries and writes, not DDL or transaction control.
    private static func isCacheable(_ statement: Statement) -> Bool {
        switch statement {
        case .select, .insert, .update, .delete: return true
        default: return false
        }
    }

    public func columns(of table: String) throws -> [String]? {
        try liveColumns(of: table)?.map(\.name)
    }
}

extension Statement {
    /// Whether this is a DROP TABLE (see ``MariaDBConnection/run(_:statement:known:readsIDs:onRow:)``).
    fileprivate var isDropTable: Bool {
        if case .dropTable = self { return true }
        return false
    }
}
