// PostgresConnection: one libpq connection with a prepared-statement cache; runs rendered SQL as parameters.
import CPostgres
import Strata

/// A connection to a PostgreSQL server. Used by one task at a time (the pool sees to it).
///
/// Every statement is prepared once per connection (`PQprepare`, named `strata_<token>_1`, `strata_<token>_2`, …,
/// the token random per connection, so a pooler's shared server connection never runs another client's
/// statement) and run with `PQsendQueryPrepared`; with `prepare=off` (or a pooler detected, see
/// ``PostgresPrepareMode``) each is sent unnamed with `PQsendQueryParams` instead. Statements are (in single-row mode when the caller streams); values are always
/// parameters. A write inside a transaction runs in its own savepoint, pipelined into the same round
/// trip. When the server goes away the connection marks itself broken, throws
/// ``StrataError/connectionLost(_:)``, and the pool replaces it.
public final class PostgresConnection: SQLConnection {
    let handle: OpaquePointer
    public let dialect: any Dialect
    /// The engine behind the connection, detected when it opened or pinned by the URL (see ``PostgresEngine``).
    public let engine: PostgresEngine
    /// The distribution column of each table an upsert went into, on Citus (nil: the table is not distributed).
    var distributionColumns: [String: String?] = [:]
    /// Whether the server has Citus's `citus_tables` view (nil: not looked up yet).
    var citusCatalog: Bool?
    /// The token of the `strata_migration_lock` lease this connection holds, on an engine without advisory locks.
    var migrationLease: String?
    /// How long ``willBeginMigrationStep()`` waits for the migration lease: the lock timeout (a day when 0).
    let migrationLockWait: Duration
    /// Whether the connection went bad (lost, or found unusable): the pool drops it.
    ///
    /// This flag, ``isReadingResults``, ``awaitingAnswer`` and ``protectsFailedStatements`` are
    /// `@exclusivity(unchecked)`: the connection is used by one thread at a time, and each is read or set in one
    /// expression, never held across a call (each statement checked four of them dynamically, about 230
    /// instructions).
    @exclusivity(unchecked) public internal(set) var isBroken = false
    /// Whether the server holds a transaction open on this connection (`PQtransactionStatus` is in a transaction
    /// block, failed or not; a connection gone bad is ``isBroken``'s business).
    public var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }
    /// Whether a statement's results are being read (its rows handed to `onRow`): libpq runs one
    /// statement at a time, so another one cannot start until they are all read.
    @exclusivity(unchecked) var isReadingResults = false

    /// Prepared statements: the same SQL bound with different types (NULL vs text) is prepared apart.
    struct Key: Hashable {
        let sql: String
        let types: [Oid]
        /// The SQL's hash, worked out once: the statement loop keeps a template's, so a call does not hash its SQL.
        let sqlHash: Int

        init(sql: String, types: [Oid], sqlHash: Int? = nil) {
            self.sql = sql
            self.types = types
            self.sqlHash = sqlHash ?? sql.hashValue
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(sqlHash)
            hasher.combine(types.count)
            // The OIDs' bytes at once: a multi-row statement has tens of thousands (hashed one by one, about 50
            // instructions each).
            types.withUnsafeBytes { hasher.combine(bytes: $0) }
        }

        static func == (a: Key, b: Key) -> Bool { a.sqlHash == b.sqlHash && a.types == b.types && a.sql == b.sql }
    }
    /// Prepared statements by SQL and parameter types, and their names. Remove entries only through
    /// ``forgetPrepared(_:)`` or ``evictAll()``, which also forget ``lastPrepared``.
    var cache: [Key: String] = [:]
    /// The ``PostgresSchemaEpoch`` the statements of ``cache`` were prepared at.
    private(set) var schemaEpoch = PostgresSchemaEpoch.current
    /// Statements still prepared on the server that ``cache`` forgot when the schema changed (their names are not
    /// used again); they count towards ``cacheLimit`` until ``evictAll()`` deallocates them.
    private(set) var staleStatements = 0
    /// Whether this connection changed a schema inside the transaction now open: its end marks another change,
    /// since other connections can prepare against the old schema until it commits.
    private var schemaChangePending = false
    /// The statement ``cachedName(_:)`` found last. `@exclusivity(unchecked)`: read and written in one expression
    /// each, by the one thread using the connection.
    @exclusivity(unchecked) var lastPrepared: (key: Key, name: String)?
    /// The names a guarded write's `SAVEPOINT strata_stmt` and `RELEASE SAVEPOINT strata_stmt` are prepared under
    /// (see ``performGuarded(_:traits:sqlHash:onRow:)``), fixed per connection, and whether each is prepared now
    /// (``evictAll()`` drops them with the rest).
    /// C strings, made once: a `String` handed to libpq in a closure was copied into a new array each call.
    lazy var savepointNames: (savepoint: ContiguousArray<CChar>, release: ContiguousArray<CChar>) = (
        "strata_\(statementToken)_savepoint".utf8CString, "strata_\(statementToken)_release".utf8CString
    )
    var savepointPrepared = false
    var releasePrepared = false
    /// The SQL of SELECTs run before, by shape: a query run again with other values is not rendered again.
    public let renderCache: RenderCache? = RenderCache()
    /// Templates' SQL, and a statement of their shape (its values are the first call's; only its kind and
    /// table are read), so a template's later calls build and render nothing.
    /// A class per template (``PostgresLoopPlan``, as the statement loop keeps), so a lookup copies one reference,
    /// not the statement, and the prepared-statement cache's key takes the SQL's hash worked out once.
    ///
    /// Bounded by ``templateLimit``: an upsert's template is one per row count, and a long-lived connection that
    /// upserts batches of many sizes would otherwise keep every one (each plan holds the SQL and its first
    /// statement's values).
    @exclusivity(unchecked) private var templatePlans: [StatementTemplate: PostgresLoopPlan] = [:]
    /// The template run last and its plan: a loop of saves or finds compares its template with this one instead of
    /// hashing it (the table's name, about 200 instructions a statement).
    ///
    /// `@exclusivity(unchecked)`, as ``templatePlans``: the connection is used by one thread at a time, and each is
    /// read or written in one expression, never held open across a call that could reach it again.
    @exclusivity(unchecked) private var lastTemplate: StatementTemplate?
    @exclusivity(unchecked) private var lastPlan: PostgresLoopPlan?
    /// The most template plans a connection keeps; past it they are all forgotten (and rendered again when used).
    static let templateLimit = 128
    private var prepareCount = 0
    /// The parameter arrays the last statement filled, refilled by the next (see ``PostgresBinds/fill(_:table:)``).
    /// `@exclusivity(unchecked)`: taken out whole by ``takeBinds()`` and put back when the statement ends, each in one
    /// expression, by the one thread using the connection.
    @exclusivity(unchecked) var bindScratch = PostgresBinds()
    /// libpq's parameter arrays, laid out for each statement sent (see ``PostgresBinds/withParameters(in:_:)``).
    let parameterArrays = ParameterArrays()
    /// The row reader of the last statement that returned rows, taken by the next (a statement run from inside
    /// another's row callback makes its own): one allocation a statement less.
    @exclusivity(unchecked) private var spareRow: PostgresRow?
    /// Whether statements are prepared by name (see ``PostgresPrepareMode``).
    let usesNamedStatements: Bool
    /// How long one call may wait for the server's answer before the connection is given up (see
    /// ``PostgresConnectionOptions/statementTimeout``); nil waits as long as libpq does.
    let callTimeout: Duration?
    /// Whether a statement was sent and the server has not answered it yet (its outcome is unknown if the
    /// connection breaks now).
    @exclusivity(unchecked) var awaitingAnswer = false
    /// False inside a transaction begun with `onFailedStatement: .abortTransaction`: writes then run without
    /// their savepoint, and a failure aborts the transaction as PostgreSQL does by itself.
    @exclusivity(unchecked) public var protectsFailedStatements = true
    /// Which thread of the pool's ``PostgresStatementLoop`` sends this connection's statements, once it has sent one.
    var loopSlot: Int?
    /// Makes statement names unique to this connection (see the type's documentation).
    private let statementToken = String(UInt32.random(in: .min ... .max), radix: 36)
    static let cacheLimit = 512

    /// Opens a connection; see ``PostgresConnectionOptions`` for what it falls back on.
    ///
    /// - Throws: ``StrataError/authenticationFailed(_:)``, or ``StrataError/connectionFailed(_:)`` saying whether the database
    ///   is missing, the attempt timed out, or the server could not be reached.
    public convenience init(options: PostgresConnectionOptions) throws {
        try self.init(options: options, own: nil)
    }

    /// A connection whose backend is listed in `own` while it lives (see ``PostgresChangeListener``).
    init(options: PostgresConnectionOptions, own: OwnBackends?) throws {
        let session = try PostgresConnector.openSession(options)
        handle = session.connection
        engine = session.engine
        dialect = PostgresDialect(engine: session.engine)
        self.own = own
        backend = PQbackendPID(handle)
        usesNamedStatements = options.prepare == .on || (options.prepare == .auto && session.serverPID == backend)
        callTimeout = options.callTimeout
        let wait = options.lockTimeoutMilliseconds
        migrationLockWait = .milliseconds(wait > 0 ? wait : 86_400_000)
        requiresStandby = options.extra["target_session_attrs"] == "standby"
        own?.add(backend)
    }

    /// Whether the connection was opened for a standby only (`target_session_attrs=standby`, as a replica of a
    /// failover formation is): once its server reports it is no longer one, the pool replaces it.
    let requiresStandby: Bool
    private let own: OwnBackends?
    private let backend: Int32

    deinit {
        own?.remove(backend)
        PQfinish(handle)
    }

    public func execute(
        template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        if let plan = lastPlan, lastTemplate == template {
            return try run(
                RenderedSQL(sql: plan.sql, binds: binds), statement: nil, plan: plan, onRow: onRow)
        }
        if let plan = templatePlans[template] {
            lastTemplate = template
            lastPlan = plan
            return try run(
                RenderedSQL(sql: plan.sql, binds: binds), statement: nil, plan: plan, onRow: onRow)
        }
        let built = try statement()
        let rendered = try SQLRenderer.render(built, dialect: dialect)
        assert(rendered.binds == binds, "template binds differ from the statement's")
        let plan = PostgresLoopPlan(sql: rendered.sql, shape: built)
        if templatePlans.count >= Self.templateLimit { templatePlans.removeAll() }
        templatePlans[template] = plan
        lastTemplate = template
        lastPlan = plan
        return try run(rendered, statement: built, plan: plan, onRow: onRow)
    }

    /// The server's version number, e.g. 150018 for 15.18.
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    public func run(_ rendered: RenderedSQL, statement: Statement?, onRow: (any RowReader) throws -> Void) throws -> Int
    {
        try run(rendered, statement: statement, plan: nil, onRow: onRow)
    }

    /// ``run(_:statement:onRow:)`` with a template's plan when there is one: its SQL's hash and what the driver asks
    /// of its statement (``StatementTraits``) were worked out once, and its statement (`plan.shape`, read only on
    /// the rare paths that need more) is not copied out of the plan on every call (about 700 instructions a lookup);
    /// `statement` is then nil.
    func run(
        _ rendered: RenderedSQL, statement: Statement?, plan: PostgresLoopPlan?, onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        if engine.conflictTargetNeedsDistributionColumn { try checkDistributionColumn(plan?.shape ?? statement) }
        let traits = plan?.traits ?? StatementTraits(statement, sql: rendered.sql)
        let sqlHash = plan?.sqlHash
        let guarded = protectsFailedStatements && PQtransactionStatus(handle) == PQTRANS_INTRANS && traits.writes
        func attempt() throws -> Int {
            guarded
                ? try performGuarded(rendered, traits: traits, sqlHash: sqlHash, onRow: onRow)
                : try perform(rendered, traits: traits, sqlHash: sqlHash, onRow: onRow)
        }
        let changed: Int
        let autocommit = PQtransactionStatus(handle) == PQTRANS_IDLE
        awaitingAnswer = false
        do {
            changed = try attempt()
        } catch StrataError.connectionLost(let reason)
            where awaitingAnswer
            && Self.mayHaveWritten(plan?.shape ?? statement, sql: rendered.sql, autocommit: autocommit)
        {
            throw StrataError.outcomeUnknown(reason)
        } catch let stale as StalePlan {
            // A table changed under a cached statement: prepare it afresh, once, when nothing else was undone.
            guard guarded || PQtransactionStatus(handle) == PQTRANS_IDLE else { throw stale.error }
            do {
                changed = try attempt()
            } catch let again as StalePlan {
                throw again.error
            }
        }
        if traits.hasExplicitKey, case .insert(let insert)? = plan?.shape ?? statement, insert.explicitKey != nil {
            try advanceIdentity(past: insert)
        }
        if traits.changesSchema || schemaChangePending { noteSchemaChange(traits.changesSchema) }
        if engine.commitsEachDDL, !autocommit, traits.changesSchema { try commitAfterDDL() }
        return changed
    }

    /// Moves the key column's identity past the largest explicit key the insert gave, so the next automatic id
    /// does not collide with it (PostgreSQL's identity ignores explicit values; SQLite and memory continue past
    /// them). Never moves it backwards. `setval` is not transactional: a rolled-back insert leaves a gap.
    private func advanceIdentity(past insert: Insert) throws {
        guard let key = insert.explicitKey, let k = insert.columns.firstIndex(of: key) else { return }
        let largest = insert.rows.lazy.compactMap { row -> Int64? in
            if case .integer(let v) = row[k] { return v }
            return nil
        }.max()
        guard let largest, largest > 0 else { return }
        let sql =
            "SELECT setval(s, $1) FROM (SELECT pg_get_serial_sequence(quote_ident($2), $3)::regclass AS s) q "
            + "WHERE s IS NOT NULL AND $1 > COALESCE(pg_sequence_last_value(s), 0)"
        _ = try run(
            RenderedSQL(sql: sql, binds: [.integer(largest), .text(insert.table), .text(key)]), statement: nil
        ) { _ in }
    }

    /// Prepares (or finds) and runs one statement. A streamed SELECT (`forEach`) reads its rows one at a
    /// time (libpq's single-row mode), so a large result never sits in memory whole; any other result
    /// arrives whole, which costs libpq one result object instead of one per row.
    private func perform(
        _ rendered: RenderedSQL, traits: StatementTraits, sqlHash: Int?, onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        try checkUsable()
        var binds = takeBinds()
        defer { keepBinds(&binds) }
        try binds.fill(rendered.binds, table: traits.table)
        let key = Key(sql: rendered.sql, types: binds.types, sqlHash: sqlHash)
        let deadline = callDeadline
        let sent: Int32
        if usesNamedStatements {
            sent = sendStatement(key, binds: binds, name: try prepared(key, table: traits.table, deadline: deadline))
        } else {
            sent = sendStatement(key, binds: binds, name: nil)
        }
        guard sent == 1 else {
            isBroken = true
            throw StrataError.connectionLost(PostgresConnector.tidy(String(cString: PQerrorMessage(handle))))
        }
        awaitingAnswer = true
        if traits.streamsRows {
            _ = PQsetSingleRowMode(handle)  // when refused, the rows arrive buffered and are read below all the same
        }
        // Read to the end even after a failure or a throwing onRow, so the connection stays in step
        // (cancelling instead would abort an enclosing transaction).
        isReadingResults = true
        defer { isReadingResults = false }
        var reader: PostgresRow?
        defer { if let reader { spareRow = reader } }
        var failure: PostgresFailure?
        var rowError: (any Error)?
        var changed: Int?
        while let result = try awaitResult(by: deadline) {
            defer { PQclear(result) }
            // Only an error from the server settles the outcome before the results end: an autocommit statement's
            // rows and CommandComplete come before its implicit transaction commits (at the Sync), so a connection
            // lost after them leaves a write applied or not.
            if Self.isServerAnswer(result), PQresultStatus(result) == PGRES_FATAL_ERROR { awaitingAnswer = false }
            switch PQresultStatus(result) {
            case PGRES_SINGLE_TUPLE, PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                let rows = PQntuples(result)
                if PQresultStatus(result) != PGRES_SINGLE_TUPLE { changed = Self.changedRows(result) }
                guard rows > 0, failure == nil, rowError == nil else { continue }
                let row = reader ?? takeRow(for: result)
                reader = row
                row.use(result)
                do {
                    for r in 0..<rows {
                        row.row = r
                        try onRow(row)
                    }
                } catch {
                    rowError = error
                }
            default:
                if failure == nil { failure = PostgresFailure(result: result, connection: handle) }
            }
        }
        if PQstatus(handle) == CONNECTION_OK { awaitingAnswer = false }  // ReadyForQuery came: the outcome is known
        if let failure {
            if failure.isStalePlan && reader == nil {
                forgetPrepared(key)
                throw StalePlan(error: PostgresErrors.map(failure, table: traits.table))
            }
            throw fail(failure, table: traits.table)
        }
        guard let changed, PQstatus(handle) == CONNECTION_OK else {
            throw fail(PostgresFailure(result: nil, connection: handle), table: traits.table)
        }
        if let rowError { throw rowError }
        return changed
    }

    /// A reader for `result`: the spare one, or a new one while the spare is in use.
    private func takeRow(for result: OpaquePointer) -> PostgresRow {
        guard let spare = spareRow else { return PostgresRow(result) }
        spareRow = nil
        spare.reuse(for: result)
        return spare
    }

    /// The connection's parameter arrays, moved out (the connection holds empty ones until they are put back), so
    /// that filling them finds them uniquely referenced and reuses their storage.
    func takeBinds() -> PostgresBinds {
        var binds = PostgresBinds()
        swap(&binds, &bindScratch)
        return binds
    }

    /// Puts the parameter arrays back for the next statement, unless they grew past a point lookup's or a save's
    /// needs (a multi-row statement's, a large blob's): those are freed rather than held by an idle connection.
    ///
    /// Swapped back in, not assigned: an assignment retained each of the three arrays and the caller's copy then
    /// released them.
    func keepBinds(_ binds: inout PostgresBinds) {
        if binds.isSmall { swap(&binds, &bindScratch) }
        parameterArrays.shrinkIfLarge()
    }

    /// The name of the prepared statement for `key`, preparing it on first use.
    private func prepared(_ key: Key, table: String?, deadline: PoolInstant?) throws -> String {
        if let name = cachedName(key) { return name }
        let name = newStatementName()
        guard sendPrepare(key, name: name) == 1 else {
            throw fail(PostgresFailure(result: nil, connection: handle), table: table)
        }
        var failure: PostgresFailure?
        while let result = try awaitResult(by: deadline) {
            defer { PQclear(result) }
            if PQresultStatus(result) != PGRES_COMMAND_OK, failure == nil {
                failure = PostgresFailure(result: result, connection: handle)
            }
        }
        if let failure { throw fail(failure, table: table) }
        guard PQstatus(handle) == CONNECTION_OK else {
            throw fail(PostgresFailure(result: nil, connection: handle), table: table)
        }
        cache[key] = name
        return name
    }

    /// The name `key`'s statement is prepared under, if it is: the statement found last is compared first (a loop of
    /// lookups or saves runs one statement; hashing its key cost about 500 instructions a call).
    func cachedName(_ key: Key) -> String? {
        if !checkSchemaEpoch() { return nil }
        if let last = lastPrepared, last.key.sqlHash == key.sqlHash, last.key == key { return last.name }
        guard let name = cache[key] else { return nil }
        lastPrepared = (key, name)
        return name
    }

    /// Whether the statements of ``cache`` were prepared at the current ``PostgresSchemaEpoch``; when not, forgets
    /// them (they are prepared again under new names, and deallocated with the next ``evictAll()``) and returns false.
    func checkSchemaEpoch() -> Bool {
        let epoch = PostgresSchemaEpoch.current
        if epoch == schemaEpoch { return true }
        schemaEpoch = epoch
        staleStatements += cache.count
        cache.removeAll(keepingCapacity: true)
        lastPrepared = nil
        return false
    }

    /// Whether preparing one more statement would pass ``cacheLimit`` (counting the stale ones still on the server).
    var cacheIsFull: Bool { cache.count + staleStatements >= Self.cacheLimit }

    /// After a statement ran: marks a schema change when it made one, and again when the transaction it was made in
    /// has ended.
    func noteSchemaChange(_ changesSchema: Bool) {
        if changesSchema {
            PostgresSchemaEpoch.bump()
            schemaChangePending = PQtransactionStatus(handle) != PQTRANS_IDLE
        } else if schemaChangePending && PQtransactionStatus(handle) == PQTRANS_IDLE {
            PostgresSchemaEpoch.bump()
            schemaChangePending = false
        }
    }

    /// Forgets a prepared statement whose plan went stale (it is prepared again under a new name).
    func forgetPrepared(_ key: Key) {
        cache[key] = nil
        lastPrepared = nil
    }

    /// Sends `key`'s statement with `binds`, without waiting for the answer: as the prepared statement `name`, or
    /// unnamed (its SQL parsed again) when `name` is nil. Returns libpq's 1 when sent.
    func sendStatement(_ key: Key, binds: PostgresBinds, name: String?) -> Int32 {
        guard let name else {
            return key.types.withUnsafeBufferPointer { types in
                binds.withParameters(in: parameterArrays) { values, lengths, formats in
                    PQsendQueryParams(
                        handle, key.sql, Int32(binds.count), types.baseAddress, values, lengths, formats, 0)
                }
            }
        }
        // withCString: a short name passed as a String argument is copied to the heap each call.
        return name.withCString { name in
            binds.withParameters(in: parameterArrays) { values, lengths, formats in
                PQsendQueryPrepared(handle, name, Int32(binds.count), values, lengths, formats, 0)
            }
        }
    }

    /// Sends the PREPARE of `key`'s statement as `name`, without waiting for the answer. Returns libpq's 1 when sent.
    func sendPrepare(_ key: Key, name: String) -> Int32 {
        key.types.withUnsafeBufferPointer { types in
            PQsendPrepare(handle, name, key.sql, Int32(key.types.count), types.baseAddress)
        }
    }

    /// A fresh name for a statement about to be prepared (making room in the cache first).
    func newStatementName() -> String {
        if cacheIsFull { evictAll() }
        prepareCount += 1
        return "strata_\(statementToken)_\(prepareCount)"
    }

    /// Forgets every prepared statement, on the server too (when the transaction state allows it).
    func evictAll() {
        let status = PQtransactionStatus(handle)
        guard status == PQTRANS_IDLE || status == PQTRANS_INTRANS else { return }
        let result = PQexec(handle, "DEALLOCATE ALL")
        if let result, PQresultStatus(result) == PGRES_COMMAND_OK {
            cache.removeAll(keepingCapacity: true)
            lastPrepared = nil
            staleStatements = 0
            savepointPrepared = false
            releasePrepared = false
        }
        PQclear(result)
    }

    /// Runs constant SQL (savepoint control; never user data) with the simple protocol.
    func control(_ sql: StaticString, _ statement: Statement?) throws {
        try control(sql, table: statement?.tableName)
    }

    /// ``control(_:_:)`` naming the table its errors name.
    func control(_ sql: StaticString, table: String?) throws {
        try checkUsable()
        guard PQsendQuery(handle, sql.description) == 1 else {
            throw fail(PostgresFailure(result: nil, connection: handle), table: table)
        }
        var failure: PostgresFailure?
        while let result = try awaitResult(by: callDeadline) {
            defer { PQclear(result) }
            if PQresultStatus(result) != PGRES_COMMAND_OK, failure == nil {
                failure = PostgresFailure(result: result, connection: handle)
            }
        }
        if let failure { throw fail(failure, table: table) }
        guard PQstatus(handle) == CONNECTION_OK else {
            throw fail(PostgresFailure(result: nil, connection: handle), table: table)
        }
    }

    func checkUsable() throws {
        if isReadingResults {
            throw StrataError.unsupported(
                feature: "a statement inside forEach's body (collect the rows with all() first)",
                driver: "postgres")
        }
        if isBroken || PQstatus(handle) != CONNECTION_OK {
            isBroken = true
            throw StrataError.connectionLost("the connection to the server is closed")
        }
    }

    /// The typed error for a failure; a lost connection is marked broken so the pool drops it.
    func fail(_ failure: PostgresFailure, _ statement: Statement?) -> StrataError {
        fail(failure, table: statement?.tableName)
    }

    /// ``fail(_:_:)`` for a statement whose table is known.
    func fail(_ failure: PostgresFailure, table: String?) -> StrataError {
        if failure.losesConnection || PQstatus(handle) != CONNECTION_OK {
            isBroken = true
            return .connectionLost(PostgresConnector.tidy(failure.message))
        }
        return PostgresErrors.map(failure, table: table)
    }

    /// Rows an INSERT, UPDATE, DELETE or MERGE changed; 0 for queries and DDL.
    static func changedRows(_ result: OpaquePointer) -> Int {
        guard let status = PQcmdStatus(result) else { return 0 }
        switch UInt8(bitPattern: status[0]) {  // most tags are SELECT's: told apart without making a String
        case UInt8(ascii: "I"), UInt8(ascii: "U"), UInt8(ascii: "D"), UInt8(ascii: "M"): break
        default: return 0
        }
        // The tag's first word, compared in place: "INSERT 0 1", "UPDATE 3", "DELETE 0", "MERGE 2".
        func starts(with word: StaticString) -> Bool {
            word.withUTF8Buffer { w in
                for i in 0..<w.count where UInt8(bitPattern: status[i]) != w[i] { return false }  // stops at the NUL
                return true
            }
        }
        let isRowCount =
            starts(with: "INSERT ") || starts(with: "UPDATE ") || starts(with: "DELETE ")
            || starts(with: "MERGE ")
        guard isRowCount, let tuples = PQcmdTuples(result) else { return 0 }
        var count = 0
        var p = tuples
        while p.pointee >= 0x30 && p.pointee <= 0x39 {
            let (times, o1) = count.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int(p.pointee) - 0x30)
            guard !o1 && !o2 else { return 0 }
            count = sum
            p += 1
        }
        return p.pointee == 0 && p != tuples ? count : 0
    }

    public func columns(of table: String) throws -> [String]? {
        var names: [String] = []
        let sql =
            "SELECT column_name::text FROM information_schema.columns "
            + "WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position"
        _ = try run(RenderedSQL(sql: sql, binds: [.text(table)]), statement: nil) { r in
            if case .text(let n) = r.value(at: 0) { names.append(n) }
        }
        return names.isEmpty ? nil : names
    }
}

/// A cached statement whose result type changed; `run` prepares it again once.
struct StalePlan: Error {
    let error: StrataError
}
