// Transaction: a leased connection on which statements run synchronously, inside BEGIN or not.
import Synchronization

/// The handle a transaction body (or a one-shot call) runs its statements on, synchronously.
///
/// Valid only inside the closure that received it: using it afterwards throws
/// ``StrataError/transactionMisuse(_:)``. Not `Sendable`, so it cannot leak to another task.
///
/// The bookkeeping every statement reads or writes (depth, open flag, rows changed, the tables written, the undo
/// scopes) is `@exclusivity(unchecked)`: the handle is used by one thread (it is not `Sendable`), and each of those
/// properties is read or written in one expression, never held open across a call that could reach it again, so
/// the dynamic exclusivity check on a class's stored properties (about 80 instructions an access, five a save)
/// could never fire.
public final class Transaction {
    let connection: any DatabaseConnection
    /// The database this handle belongs to.
    public let database: Database
    /// Where this handle's statements are logged and measured: the database's observer, or one logging to the
    /// caller's logger (see ``Database/withLogger(_:operation:)``).
    let observer: StatementObserver
    /// 0: autocommit; 1: inside BEGIN; n > 1: inside n - 1 savepoints.
    @exclusivity(unchecked) public private(set) var depth: Int
    @exclusivity(unchecked) private(set) var isOpen = true
    /// The isolation level the open transaction runs at, when it was begun with one (see ``IsolationLevel``):
    /// the level asked for or a stronger one the driver granted; nil in autocommit or at the driver's default.
    public private(set) var isolation: IsolationLevel?
    /// The tables written inside the open transaction, announced to observers when it commits.
    @exclusivity(unchecked) private var touched = TouchedTables()
    /// Whether the connection may be left inside a transaction this handle did not end: raw SQL ran (a raw `BEGIN`),
    /// or a `ROLLBACK` failed. Only then does the call's end ask the connection (see ``Database/withConnection(_:)``).
    private(set) var mayLeaveTransactionOpen = false
    /// Set when rolling back a savepoint failed: the transaction around it then rolls back instead of committing.
    private var savepointRollbackFailed = false
    /// Whether the open transaction was begun by raw SQL (`BEGIN`), which raw SQL then ends (see ``RawTransactionControl``).
    private var rawTransaction = false
    /// The open transaction and savepoints, outermost first, as the models written in them see them.
    @exclusivity(unchecked) private var undoScopes: [UndoScope] = []
    /// The innermost open transaction or savepoint, or nil in autocommit: what a model written or read now records.
    @usableFromInline var undoScope: UndoScope? { undoScopes.last }
    /// What a statement that fails does to the open transaction (see ``FailedStatementPolicy``): chosen by the
    /// outermost transaction, ``FailedStatementPolicy/undoStatement`` in autocommit.
    @exclusivity(unchecked) public private(set) var onFailedStatement: FailedStatementPolicy = .undoStatement
    /// With ``FailedStatementPolicy/abortTransaction``, after a failure: the depth of the scope it aborted, whose
    /// closure's end rolls it back. Every statement but that rollback is refused meanwhile.
    @exclusivity(unchecked) private(set) var abortedDepth: Int?
    /// What aborted the transaction, for the error later statements throw.
    private var abortCause = ""
    /// Why a failure aborts rather than undoing a statement, for the same error: the policy, or a save's read-back.
    private var abortPolicy = ""
    /// Rows the statements run on this handle changed: tells whether a write call that threw had written any.
    @exclusivity(unchecked) private var rowsChanged = 0
    /// The open transaction's history token and the scope that took it (see ``writeToken()``).
    var historyTokenTaken: (token: Int64, scope: UndoScope?)?
    /// The array a find binds its key's values from, kept from one find to the next with its capacity, so that a
    /// find allocates none (about 400 instructions a find went to allocating and freeing one): taken out while a
    /// find runs (a find inside another's row callback takes an empty one), put back emptied.
    @exclusivity(unchecked) var keyBinds: [DatabaseValue] = []
    /// The array an insert of one model binds its row from, kept as ``keyBinds`` is (see ``takeRowBinds()``): a
    /// model's own array of values, allocated, destroyed through the generic array witness and freed per insert,
    /// cost about 500 instructions.
    @exclusivity(unchecked) var rowBinds: [DatabaseValue] = []

    init(connection: any DatabaseConnection, database: Database, depth: Int, observer: StatementObserver? = nil) {
        self.connection = connection
        self.database = database
        self.depth = depth
        self.observer = observer ?? database.observer
    }

    /// Takes ``keyBinds`` out (leaving an empty array), for a find to append its key's values to. Not inlinable:
    /// `@exclusivity(unchecked)` is honored only in this module, and an access inlined into the model's module paid
    /// the dynamic exclusivity check (about 75 instructions).
    @usableFromInline
    func takeKeyBinds() -> [DatabaseValue] {
        var binds: [DatabaseValue] = []
        swap(&binds, &keyBinds)
        return binds
    }

    /// Empties `binds` (keeping its capacity) and keeps it as ``keyBinds`` for the next find.
    @usableFromInline
    func putBackKeyBinds(_ binds: inout [DatabaseValue]) {
        Self.empty(&binds)
        swap(&binds, &keyBinds)
    }

    /// Empties `binds`, keeping its capacity: value by value from the end (`removeAll(keepingCapacity:)` went
    /// through the generic range replacement, about 50 instructions a value).
    private static func empty(_ binds: inout [DatabaseValue]) {
        while !binds.isEmpty { binds.removeLast() }
    }

    /// Takes ``rowBinds`` out (leaving an empty array), for an insert to append its row's values to. Not inlinable,
    /// as ``takeKeyBinds()``.
    @usableFromInline
    func takeRowBinds() -> [DatabaseValue] {
        var binds: [DatabaseValue] = []
        swap(&binds, &rowBinds)
        return binds
    }

    /// Empties `binds` (keeping its capacity) and keeps it as ``rowBinds`` for the next insert.
    @usableFromInline
    func putBackRowBinds(_ binds: inout [DatabaseValue]) {
        Self.empty(&binds)
        swap(&binds, &rowBinds)
    }

    /// The name of the driver this handle talks to (`sqlite`, `memory`, …).
    public var driverName: String { database.driverName }

    /// Runs one statement on the connection.
    ///
    /// Every statement passes here (and through the template and raw variants below) on its way to a
    /// driver, so values no backend stores alike are refused once, the same on every driver (see
    /// ``ValueCheck``): ``StrataError/invalidValue(table:column:reason:)``, before anything is written; and so
    /// are the statements no backend answers alike (a negative limit, a dangling LIKE escape: see
    /// ``StatementCheck``).
    @usableFromInline
    package func execute(_ statement: Statement, onRow: (any RowReader) throws -> Void = { _ in }) throws -> Int {
        if !database.history.isEmpty, let table = statement.writtenTable, let entry = database.history.entry(table) {
            return try executeRecordingHistory(statement, key: entry.key, onRow: onRow)
        }
        return try executeUnrecorded(statement, onRow: onRow)
    }

    /// Runs one statement on the connection, recording no history (see ``execute(_:onRow:)``).
    func executeUnrecorded(_ statement: Statement, onRow: (any RowReader) throws -> Void = { _ in }) throws -> Int {
        guard observer.isActive else {
            try checkOpen()
            if abortedDepth != nil { try checkNotAborted(statement) }
            try ValueCheck.check(statement)
            try checkRowLock(statement)
            try checkStatement(statement)
            database.statementCounter.add(1, ordering: .relaxed)
            let changed = try running { try onConnection(statement, onRow: onRow) }
            wrote(statement)
            return changed
        }
        do {
            try checkOpen()
            if abortedDepth != nil { try checkNotAborted(statement) }
            try ValueCheck.check(statement)
            try checkRowLock(statement)
            try checkStatement(statement)
        } catch {
            observer.failedBeforeRunning(error)
            throw error
        }
        database.statementCounter.add(1, ordering: .relaxed)
        let kind = StatementKind(statement)
        let start = observer.start()
        var returned = 0
        let changed: Int
        do {
            changed = try running {
                try onConnection(statement) { row in
                    returned &+= 1
                    try onRow(row)
                }
            }
        } catch {
            observer.failed(kind, start: start, error: error, describe: { describe(statement) })
            throw error
        }
        observer.finished(kind, start: start, returned: returned, changed: changed, describe: { describe(statement) })
        wrote(statement)
        return changed
    }

    /// The core's statement check (``StatementCheck/check(_:schemas:)``), skipped for a SELECT of the key the
    /// connection rendered last when that one passed it against the same known tables
    /// (`RenderCache/passedCheck(_:generation:)`): a loop over one query is checked once per connection. The key
    /// keeps what the check reads of values (a count's sign, a LIKE pattern's validity, a value's kind), so a
    /// statement of the same key passes alike.
    private func checkStatement(_ statement: Statement) throws(StrataError) {
        if case .insert(let insert) = statement {
            try StatementCheck.check(statement)
            return try checkInsertValues(insert)
        }
        guard case .select(let select) = statement, let cache = renderCache else {
            return try StatementCheck.check(statement, schemas: database.knownSchemas)
        }
        try checkSelect(select, cache: cache) { statement }
    }

    /// `checkStatement(_:)` for a SELECT, with the connection's render cache; `statement` is the SELECT as a
    /// ``Statement``, made only when the check runs.
    private func checkSelect(_ select: Select, cache: RenderCache, statement: () -> Statement) throws(StrataError) {
        let generation = database.knownSchemas.generation
        if cache.passedCheck(select, generation: generation) {
            notedCheck = true  // the cache noted the match for this statement's rendering
            return
        }
        try StatementCheck.check(statement(), schemas: database.knownSchemas)
        cache.notePassed(generation: generation)
        notedCheck = true
    }

    /// `checkStatement(_:)` for the SELECT an `explain()` shows (wrapped in a ``Statement`` only when the check runs).
    func checkExplained(_ select: Select) throws(StrataError) {
        guard let cache = renderCache else {
            return try StatementCheck.check(.select(select), schemas: database.knownSchemas)
        }
        try checkSelect(select, cache: cache) { .select(select) }
    }

    /// Ends what `checkStatement(_:)` noted for the statement's rendering, rendered or not (a statement run by
    /// `onConnection(_:onRow:)`, or a SELECT `explain()` shows).
    func endNotedCheck() {
        guard notedCheck else { return }
        notedCheck = false
        renderCache?.endStatement()
    }

    /// Runs a statement that passed the checks on the connection. A check noted for its rendering
    /// (`RenderCache/notePassed(generation:)`) ends with it, rendered or not.
    private func onConnection(_ statement: Statement, onRow: (any RowReader) throws -> Void) throws -> Int {
        guard notedCheck else { return try connection.execute(statement, onRow: onRow) }
        defer { endNotedCheck() }
        return try connection.execute(statement, onRow: onRow)
    }

    /// Whether `checkStatement(_:)` left a note with the render cache for the statement about to run (a passed check,
    /// or the last key matched).
    @exclusivity(unchecked) private var notedCheck = false

    /// The model last found free of number properties over text-only columns, and the count of schema changes
    /// (`TextStoredColumns/generation`) it was found at (see `hasNoNumbersStoredAsText(_:)`).
    @exclusivity(unchecked) var textFreeModel: (model: ObjectIdentifier, generation: Int)?

    /// What the tables Strata knows were before each schema change made in this transaction, with the depth of the
    /// scope that made it (see `followSchema(_:)`), the oldest first.
    @exclusivity(unchecked) private var schemaUndo: [(depth: Int, table: String, before: [TableColumn]?)] = []

    /// The connection's render cache (``SQLConnection/renderCache``), looked up on the first SELECT.
    ///
    /// This and the two below are kept by hand rather than as `lazy var`s: a lazy property's every read is a
    /// mutating access, which Swift checked for exclusivity at run time (about 75 instructions a read).
    private var renderCache: RenderCache? {
        if let known = renderCacheSlot { return known }
        let found = sqlConnection?.renderCache
        renderCacheSlot = .some(found)
        return found
    }
    @exclusivity(unchecked) private var renderCacheSlot: RenderCache??

    /// The connection as a ``SQLConnection``, or nil for a driver that renders no SQL; cast once, on first use.
    var sqlConnection: (any SQLConnection)? {
        if let known = sqlConnectionSlot { return known }
        let found = connection as? any SQLConnection
        sqlConnectionSlot = .some(found)
        return found
    }
    @exclusivity(unchecked) private var sqlConnectionSlot: (any SQLConnection)??

    /// The SQL connection's dialect and its name, read once per handle: read through the connection's witness, a
    /// dialect is a new existential each time (about 170 instructions a read, twice a prepared query's run).
    var sqlDialect: (dialect: any Dialect, name: String)? {
        if let known = sqlDialectSlot { return known }
        let found = sqlConnection.map { c in
            let d = c.dialect
            return (d, d.name)
        }
        sqlDialectSlot = .some(found)
        return found
    }
    @exclusivity(unchecked) private var sqlDialectSlot: (dialect: any Dialect, name: String)??

    /// Runs a statement of a fixed shape with `binds` (see
    /// ``DatabaseConnection/execute(template:binds:statement:onRow:)``).
    @usableFromInline
    package func execute(
        template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        if !template.isRead, !database.history.isEmpty, let entry = database.history.entry(template.table) {
            return try executeRecordingHistory(
                template: template, binds: binds, statement: statement, key: entry.key, onRow: onRow)
        }
        return try executeUnrecorded(template: template, binds: binds, statement: statement, onRow: onRow)
    }

    /// Runs a statement of a fixed shape, recording no history (see ``execute(template:binds:statement:onRow:)``).
    func executeUnrecorded(
        template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        guard observer.isActive else {
            try checkOpen()
            if abortedDepth != nil { try checkNotAborted(nil) }
            try ValueCheck.checkBinds(binds, statement: statement)
            if !template.isRead { try checkWrittenBinds(template, binds, statement) }
            database.statementCounter.add(1, ordering: .relaxed)
            let changed = try running {
                try connection.execute(template: template, binds: binds, statement: statement, onRow: onRow)
            }
            if !template.isRead { wrote(table: template.table) }
            return changed
        }
        do {
            try checkOpen()
            if abortedDepth != nil { try checkNotAborted(nil) }
            try ValueCheck.checkBinds(binds, statement: statement)
            if !template.isRead { try checkWrittenBinds(template, binds, statement) }
        } catch {
            observer.failedBeforeRunning(error)
            throw error
        }
        database.statementCounter.add(1, ordering: .relaxed)
        let kind: StatementKind = template.isRead ? .select : .insert
        func described() -> (sql: String, binds: [DatabaseValue]) {
            guard let built = try? statement() else { return ("\(template.kind)", binds) }
            return describe(built)
        }
        let start = observer.start()
        var returned = 0
        let changed: Int
        do {
            changed = try running {
                try connection.execute(template: template, binds: binds, statement: statement) { row in
                    returned &+= 1
                    try onRow(row)
                }
            }
        } catch {
            observer.failed(kind, start: start, error: error, describe: described)
            throw error
        }
        observer.finished(kind, start: start, returned: returned, changed: changed, describe: described)
        if kind != .select { wrote(table: template.table) }
        return changed
    }

    /// The write template whose binds were last checked against the tables Strata knows, the generation of
    /// ``KnownSchemas`` it was checked at, and the binds to check at each of its statements (see
    /// `checkWrittenBinds(_:_:_:)`).
    @exclusivity(unchecked) private var checkedTemplates: [CheckedTemplate] = []
    @exclusivity(unchecked) private var checkedTemplatesGeneration = -1

    /// A write template whose statement passed the check of written values, and the binds to check again.
    private struct CheckedTemplate {
        var template: StatementTemplate
        var binds: [BindCheck]
    }

    /// The INSERT (not of a template) whose values were last checked against the tables Strata knows: its table,
    /// its columns, their known types, and the generation of ``KnownSchemas`` they were read at.
    @exclusivity(unchecked) private var checkedInsert: (table: String, columns: [String], types: [ColumnType?])?
    @exclusivity(unchecked) private var checkedInsertGeneration = -1

    /// The core's check of written values (``StatementCheck/checkWrittenValues(_:_:)``) for a statement of a write
    /// template, which skips the statement check: a value of another type than its known column's is
    /// `typeMismatch`, once a schema change other than its CREATE TABLE changed the table (see
    /// `KnownSchemas.isAltered(_:)`). A template's statement is built and checked once per template and schema generation; a bind
    /// that held a value of its column's type then holds one of the same model property, of the same type, at every
    /// statement of the template, so only the binds that were NULL are checked again (usually none).
    private func checkWrittenBinds(
        _ template: StatementTemplate, _ binds: [DatabaseValue], _ statement: () throws -> Statement
    ) throws {
        let generation = database.knownSchemas.generation
        if generation != checkedTemplatesGeneration {
            checkedTemplates.removeAll(keepingCapacity: true)
            checkedTemplatesGeneration = generation
        }
        func check(_ again: [BindCheck]) throws {
            for b in again where b.index < binds.count && !StatementCheck.takes(b.type, binds[b.index]) {
                throw StatementCheck.mismatch(template.table, b.column, b.type, binds[b.index])
            }
        }
        for checked in checkedTemplates where checked.template.isSame(as: template) { return try check(checked.binds) }
        // A few templates at once (a save's insert and its read-back, an upsert's), the oldest dropped past four.
        if checkedTemplates.count >= 4 { checkedTemplates.removeFirst() }
        let schemas = database.knownSchemas
        guard schemas.isAltered(template.table) else {
            checkedTemplates.append(CheckedTemplate(template: template, binds: []))
            return
        }
        if let again = schemas.checkedBinds(template, generation: generation) {
            checkedTemplates.append(CheckedTemplate(template: template, binds: again))
            return try check(again)
        }
        guard case .insert(let insert) = try statement(), let known = schemas.columns(of: insert.table) else {
            checkedTemplates.append(CheckedTemplate(template: template, binds: []))
            schemas.noteChecked(template, [], generation: generation)
            return
        }
        try StatementCheck.checkWrittenValues(insert, known)
        var again: [BindCheck] = []
        for (r, row) in insert.rows.enumerated() {
            for (k, name) in insert.columns.enumerated() where k < row.count && row[k].isNull {
                guard let type = known.first(where: { $0.name == name })?.type else { continue }
                again.append(BindCheck(index: r * insert.columns.count + k, column: name, type: type))
            }
        }
        checkedTemplates.append(CheckedTemplate(template: template, binds: again))
        schemas.noteChecked(template, again, generation: generation)
    }

    /// The check of an INSERT's values (``StatementCheck/checkWrittenValues(_:_:)``), its columns' known types
    /// looked up once for a loop of INSERTs of one shape (a history row per write, a chunk of `insertAll`).
    private func checkInsertValues(_ i: Insert) throws(StrataError) {
        let generation = database.knownSchemas.generation
        let types: [ColumnType?]
        if generation == checkedInsertGeneration, let last = checkedInsert, last.table == i.table,
            last.columns == i.columns
        {
            types = last.types
        } else {
            guard let known = database.knownSchemas.columns(of: i.table) else {
                (checkedInsert, checkedInsertGeneration) = ((i.table, i.columns, []), generation)
                return
            }
            types = i.columns.map { name in known.first { $0.name == name }?.type }
            (checkedInsert, checkedInsertGeneration) = ((i.table, i.columns, types), generation)
        }
        guard !types.isEmpty else { return }
        for row in i.rows {
            for k in row.indices where k < types.count {
                guard let type = types[k], !StatementCheck.takes(type, row[k]) else { continue }
                throw StatementCheck.mismatch(i.table, i.columns[k], type, row[k])
            }
        }
    }

    /// Runs one statement's driver call: a failure is noted for the transaction's policy (see
    /// ``statementFailed(_:)``), and the rows it changed are counted (see ``atomic(_:)``).
    @inline(__always)
    func running(_ call: () throws -> Int) throws -> Int {
        let changed: Int
        do {
            changed = try call()
        } catch {
            statementFailed(error)
            throw error
        }
        rowsChanged &+= changed
        return changed
    }

    /// Runs a connection's bulk path (COPY) into `table` as one statement: counted, timed and logged like any
    /// other, and announced to observers as a write of `table`. `body` returns nil when the path does not apply
    /// (and then wrote nothing).
    package func runBulk<T>(into table: String, rows: Int, _ body: () throws -> T?) throws -> T? {
        try checkOpen()
        // A history-tracked table takes the statement path, which records each row's key.
        if database.history.entry(table) != nil { return nil }
        if abortedDepth != nil { try checkNotAborted(nil) }
        database.statementCounter.add(1, ordering: .relaxed)
        var result: T?
        _ = try running {
            guard observer.isActive else {
                result = try body()
                return result == nil ? 0 : rows
            }
            return try observer.run(
                .insert, describe: { ("COPY \(table) FROM STDIN (\(rows) rows)", []) }, onRow: { _ in }
            ) { _ in
                result = try body()
                return result == nil ? 0 : rows
            }
        }
        if result != nil { wrote(table: table) }
        return result
    }

    /// Notes a statement that ran: a write's table is announced now in autocommit, at COMMIT otherwise.
    private func wrote(_ statement: Statement) {
        switch statement {
        case .createTable(let schema):
            database.textStoredColumns.forget()
            followSchema(.createTable(schema))
            wrote(table: schema.name)
        case .addColumn(let table, let column):
            database.textStoredColumns.forget()
            followSchema(.addColumn(table: table, column))
            wrote(table: table)
        case .dropTable(let table):
            database.textStoredColumns.forget()
            followSchema(.dropTable(table))
            wrote(table: table)
        case .select, .begin, .commit, .rollback, .savepoint, .releaseSavepoint, .rollbackToSavepoint, .beginIsolated:
            return
        default: if let table = statement.tableName { wrote(table: table) }
        }
    }

    /// Makes the tables Strata knows (``KnownSchemas``) follow a schema change that ran; inside a transaction, what
    /// was known before is kept, for a rollback to put back (where the database's DDL is transactional: MariaDB's
    /// commits, so a rollback leaves it).
    func followSchema(_ change: SchemaChange) {
        let before = database.knownSchemas.follow(change)
        guard depth > 0, !before.isEmpty, (sqlConnection?.dialect.ddlCommit ?? DDLCommit.none) == .none else { return }
        for entry in before { schemaUndo.append((depth, entry.table, entry.before)) }
    }

    /// Puts back what the tables Strata knows were before the schema changes made in scopes deeper than `depth`,
    /// which rolled back.
    private func undoSchemaChanges(above depth: Int) {
        guard let first = schemaUndo.firstIndex(where: { $0.depth > depth }) else { return }
        database.knownSchemas.restore(schemaUndo[first...].map { ($0.table, $0.before) })
        schemaUndo.removeSubrange(first...)
        // What was found of models over the changed tables was found against the undone changes.
        database.textStoredColumns.forget()
    }

    private func wrote(table: String) {
        if depth > 0 {
            touched.add(table)
        } else if database.changes.observerCount > 0 {
            database.changes.committed([table])
        }
    }

    /// The SQL a statement runs as on this connection (for a driver without SQL, as PostgreSQL would
    /// write it), with its binds, for logs.
    private func describe(_ statement: Statement) -> (sql: String, binds: [DatabaseValue]) {
        let dialect = (connection as? any SQLConnection)?.dialect ?? DescriptionDialect()
        guard let rendered = try? SQLRenderer.render(statement, dialect: dialect) else {
            return ("\(statement)", [])
        }
        return (rendered.sql, rendered.binds)
    }

    /// Runs `body` in a nested scope that rolls back alone when it throws.
    ///
    /// Inside a transaction this is a SAVEPOINT (uniquely named by depth); on an autocommit handle it
    /// is a whole transaction. Throwing ``Rollback`` undoes the scope and, for a Void body, returns.
    ///
    /// - Throws: whatever `body` throws (after rolling back), and database errors.
    @discardableResult
    public func savepoint<T>(_ body: (Transaction) throws -> T) throws -> T {
        try scope(isolation: nil, body)
    }

    /// The names of the savepoints at depths below 16 (`strata_sp_1`…), made once.
    private static let savepointNames = (0..<16).map { "strata_sp_\($0)" }

    /// A savepoint, or at depth 0 a transaction, begun at `isolation.asked` (granted `isolation.granted`) when
    /// set. A scope that throws is rolled back; when that rollback fails, the transaction around it rolls back
    /// instead of committing, and a connection left inside a transaction is not given back to the pool as it is
    /// (see ``Database/withConnection(_:)``).
    func scope<T>(
        isolation: (asked: IsolationLevel, granted: IsolationLevel)?,
        onFailedStatement policy: FailedStatementPolicy = .undoStatement, _ body: (Transaction) throws -> T
    ) throws -> T {
        let name = depth < Self.savepointNames.count ? Self.savepointNames[depth] : "strata_sp_\(depth)"
        let open: Statement =
            depth > 0 ? .savepoint(name) : isolation.map { Statement.beginIsolated($0.asked) } ?? .begin
        try control(open)
        depth += 1
        undoScopes.append(UndoScope(parent: undoScopes.last))
        if depth == 1 {
            self.isolation = isolation?.granted
            if policy == .abortTransaction {
                onFailedStatement = policy
                connection.protectsFailedStatements = false
            }
        }
        defer {
            if depth == 0 {
                self.isolation = nil
                historyTokenTaken = nil
                savepointRollbackFailed = false
                abortedDepth = nil
                if onFailedStatement != .undoStatement {
                    onFailedStatement = .undoStatement
                    connection.protectsFailedStatements = true
                }
            }
        }
        let result: T
        do {
            result = try body(self)
            // A failure this scope's closure caught: it still rolls back, and says so.
            if abortedDepth == depth { throw abortedError() }
        } catch {
            depth -= 1
            undoScopes.removeLast().rolledBack()
            if !schemaUndo.isEmpty { undoSchemaChanges(above: depth) }
            if depth == 0 {
                touched.removeAll()
                if (try? control(.rollback)) == nil { mayLeaveTransactionOpen = true }
            } else {
                do {
                    try control(.rollbackToSavepoint(name))
                    try control(.releaseSavepoint(name))
                    if let aborted = abortedDepth, aborted > depth { abortedDepth = nil }
                } catch {
                    // The savepoint's writes may still be in the transaction: it must not commit.
                    savepointRollbackFailed = true
                    if onFailedStatement == .abortTransaction { abortedDepth = depth }
                }
            }
            if error is Rollback, let none = () as? T { return none }
            throw error
        }
        depth -= 1
        let scope = undoScopes.removeLast()
        if depth == 0 {
            do {
                if savepointRollbackFailed {
                    throw StrataError.transactionMisuse(
                        "a savepoint could not be rolled back, so the transaction was rolled back instead of committed")
                }
                try control(.commit)
            } catch {
                scope.rolledBack()
                if !schemaUndo.isEmpty { undoSchemaChanges(above: 0) }
                touched.removeAll()
                if (try? control(.rollback)) == nil { mayLeaveTransactionOpen = true }
                throw error
            }
            scope.committed()
            if !schemaUndo.isEmpty { schemaUndo.removeAll() }
            if !touched.isEmpty {
                database.changes.committed(touched.announced)
                touched.removeAll()
            }
        } else {
            do {
                try control(.releaseSavepoint(name))
            } catch {
                scope.rolledBack()
                throw error
            }
        }
        return result
    }

    /// Runs a transaction control statement of ``scope(isolation:onFailedStatement:_:)`` (`BEGIN`, `COMMIT`,
    /// `ROLLBACK`, a savepoint, its release or its rollback): it binds no value, reads or writes no table and passes
    /// no statement check, so with no observer to tell it skips ``executeUnrecorded(_:onRow:)``'s checks.
    private func control(_ statement: Statement) throws {
        guard !observer.isActive else {
            _ = try executeUnrecorded(statement)
            return
        }
        try checkOpen()
        if abortedDepth != nil { try checkNotAborted(statement) }
        database.statementCounter.add(1, ordering: .relaxed)
        _ = try running { try connection.execute(statement, onRow: { _ in }) }
    }

    /// Runs raw SQL whose `?` markers take `binds`; rows come back as arrays of values.
    ///
    /// The one raw-SQL door: values are still bound, never pasted. The memory driver throws
    /// ``StrataError/unsupported(feature:driver:)`` (it runs `BEGIN`, `COMMIT` and `ROLLBACK` only). A value
    /// no backend stores alike (text holding NUL, a date outside 0001…9999) throws
    /// ``StrataError/invalidValue(table:column:reason:)`` naming it `parameter N` (from 1).
    ///
    /// A transaction taken in raw SQL is followed as if ``Database/transaction(_:)`` had opened it: after a raw
    /// `BEGIN` on an autocommit handle, models saved on it learn whether the raw `COMMIT` or `ROLLBACK` (or the
    /// call's end, which rolls back a transaction left open) kept their writes, and ``savepoint(_:)`` nests
    /// inside it. Transaction control Strata could not follow throws ``StrataError/transactionMisuse(_:)``
    /// before it runs: raw `SAVEPOINT`, `RELEASE` and `ROLLBACK TO`, a raw `BEGIN` inside a transaction, and a
    /// raw `COMMIT` or `ROLLBACK` inside a transaction or savepoint Strata opened.
    ///
    /// ```swift
    /// try await db.withConnection { tx in
    ///     try tx.unsafeRawExecute("BEGIN")
    ///     try post.save(tx)
    ///     try tx.unsafeRawExecute("ROLLBACK")  // post is new again: its next save inserts
    /// }
    /// ```
    @discardableResult
    public func unsafeRawExecute(_ sql: String, _ binds: [any DatabaseValueConvertible] = []) throws
        -> [[DatabaseValue]]
    {
        try checkOpen()
        let control = RawTransactionControl(sql)
        try checkRawControl(control)
        // An aborted raw transaction (a save's read-back failed in it) may still be rolled back by raw SQL.
        if abortedDepth != nil, control != .rollback { throw abortedError() }
        mayLeaveTransactionOpen = true
        let values = binds.map(\.databaseValue)
        try ValueCheck.checkParameters(values)
        var ran = false
        defer { if control != nil || rawTransaction { followRawTransaction(control, succeeded: ran) } }
        database.statementCounter.add(1, ordering: .relaxed)
        var rows: [[DatabaseValue]] = []
        let collect: (any RowReader) throws -> Void = { r in
            rows.append((0..<r.columnCount).map { r.value(at: $0) })
        }
        _ = try running {
            guard observer.isActive else { return try connection.executeRaw(sql, values, onRow: collect) }
            return try observer.run(.raw, describe: { (sql, values) }, onRow: collect) {
                try connection.executeRaw(sql, values, onRow: $0)
            }
        }
        ran = true
        // Raw SQL may write any table; only a plain SELECT is known to write none.
        if !sql.drop(while: { $0 == " " || $0 == "\n" || $0 == "\t" }).prefix(6).uppercased().hasPrefix("SELECT") {
            if depth == 0 { database.changes.committed(nil) } else { touched.addUnknown() }
            database.textStoredColumns.forget()
            database.knownSchemas.forgetAll()
        }
        return rows
    }

    /// Refuses raw transaction control Strata could not follow: a raw `COMMIT` or `ROLLBACK` of a transaction or
    /// savepoint Strata opened, a raw `BEGIN` inside one, and raw savepoints (``savepoint(_:)`` is the way).
    private func checkRawControl(_ control: RawTransactionControl?) throws {
        guard let control else { return }
        switch control {
        case .savepoint:
            throw StrataError.transactionMisuse(
                "raw SAVEPOINT, RELEASE and ROLLBACK TO are not supported: use tx.savepoint { … }")
        case .begin where depth > 0:
            throw StrataError.transactionMisuse("a raw BEGIN inside a transaction")
        case .commit, .rollback:
            if depth > 1 || (depth == 1 && !rawTransaction) {
                throw StrataError.transactionMisuse(
                    "a raw COMMIT or ROLLBACK inside a transaction or savepoint Strata opened: end it by returning "
                        + "or throwing from its closure")
            }
        case .begin: return
        }
    }

    /// Follows a transaction raw SQL began or ended, so that models written in it learn its fate as in a
    /// ``Database/transaction(_:)``: a raw `BEGIN` opens a scope (and later writes run inside it, savepoints
    /// included); the raw `COMMIT` or `ROLLBACK` that ends it, or any statement after which the connection is no
    /// longer in a transaction (SQLite rolls back on some errors), closes it.
    private func followRawTransaction(_ control: RawTransactionControl?, succeeded: Bool) {
        let open = connection.isInTransaction
        if depth == 0, open {
            depth = 1
            rawTransaction = true
            undoScopes.append(UndoScope(parent: nil))
        } else if rawTransaction, depth == 1, !open {
            endRawTransaction(committed: succeeded && control == .commit)
        }
    }

    /// Closes the scope of a transaction raw SQL began: committed (observers are told) or rolled back.
    func endRawTransaction(committed: Bool) {
        guard rawTransaction else { return }
        rawTransaction = false
        depth = 0
        historyTokenTaken = nil
        abortedDepth = nil
        let scope = undoScopes.removeLast()
        if committed {
            scope.committed()
            if !schemaUndo.isEmpty { schemaUndo.removeAll() }
            if !touched.isEmpty { database.changes.committed(touched.announced) }
        } else {
            scope.rolledBack()
            if !schemaUndo.isEmpty { undoSchemaChanges(above: 0) }
        }
        touched.removeAll()
    }

    /// Runs a write call's statements (a save with callbacks, `upsert`, `insertAll`, …) as one: in a savepoint that
    /// undoes them all when it throws, or with ``FailedStatementPolicy/abortTransaction`` in the transaction
    /// itself, which the call aborts when it throws after a statement of it changed a row (no savepoint to pay for).
    @usableFromInline
    package func atomic<T>(_ body: (Transaction) throws -> T) throws -> T {
        guard depth > 0, onFailedStatement == .abortTransaction else { return try savepoint(body) }
        return try abortingAfterWrites(body)
    }

    /// ``atomic(_:)`` for a save's write and its read-back of the columns the database computed: with no savepoint
    /// inside a caller's transaction when the read-back cannot fail on its values (``ReadBackTotality``), so that
    /// only a failed statement can fail it after the write (an I/O error, a lost connection). Such a failure after a
    /// statement of it changed a row aborts the innermost open scope, as with
    /// ``FailedStatementPolicy/abortTransaction``: every later statement is refused and the scope's closure rolls it
    /// back and throws, so the row never commits. A failure before any row changed (the write refused) leaves the
    /// transaction going on, as the savepoint did.
    @usableFromInline
    func atomic<T>(readingBack totality: ReadBackTotality, _ body: (Transaction) throws -> T) throws -> T {
        guard depth > 0 else { return try savepoint(body) }
        switch totality {
        case .total: break
        case .totalWhereGeneratedColumnsAreNotNull where generatedColumnsAreNotNull: break
        default: if onFailedStatement != .abortTransaction { return try savepoint(body) }
        }
        return try abortingAfterWrites(body, readBack: onFailedStatement != .abortTransaction)
    }

    /// Runs `body` in the open transaction, aborting the innermost scope when it throws after a statement of it
    /// changed a row; `readBack` names the cause in the error later statements throw.
    private func abortingAfterWrites<T>(_ body: (Transaction) throws -> T, readBack: Bool = false) throws -> T {
        let before = rowsChanged
        do {
            return try body(self)
        } catch {
            if rowsChanged != before, abortedDepth == nil {
                abort(because: error)
                if readBack { abortPolicy = "a save's read-back failed after its write" }
            }
            throw error
        }
    }

    /// Whether the connection's database enforces a generated column's NOT NULL (``GeneratedColumnSyntax``): true on
    /// the memory driver, false where the dialect cannot declare it. Asked once per handle.
    private var generatedColumnsAreNotNull: Bool {
        if let known = generatedColumnsAreNotNullSlot { return known }
        let found = (sqlConnection?.dialect.generatedColumnSyntax ?? .storedNotNull) == .storedNotNull
        generatedColumnsAreNotNullSlot = found
        return found
    }
    @exclusivity(unchecked) private var generatedColumnsAreNotNullSlot: Bool?

    /// Notes a statement that failed in the driver: with ``FailedStatementPolicy/abortTransaction`` it aborts the
    /// innermost open scope.
    @inline(__always)
    private func statementFailed(_ error: any Error) {
        if onFailedStatement == .abortTransaction, depth > 0, abortedDepth == nil { abort(because: error) }
    }

    private func abort(because error: any Error) {
        abortedDepth = depth
        abortCause = (error as? StrataError).map { " (\($0))" } ?? ""
        abortPolicy = "onFailedStatement: .abortTransaction"
    }

    /// Refuses a statement in an aborted transaction, all but the rollback that ends it.
    func checkNotAborted(_ statement: Statement?) throws {
        switch statement {
        case .rollback?, .rollbackToSavepoint?, .releaseSavepoint?: return
        default: throw abortedError()
        }
    }

    private func abortedError() -> StrataError {
        .transactionMisuse(
            "the transaction was aborted by an earlier failed statement\(abortCause) "
                + "(\(abortPolicy)); it rolls back when its closure ends")
    }

    func close() { isOpen = false }

    /// Refuses a handle used after the closure that received it returned.
    func checkOpen() throws {
        guard isOpen else {
            throw StrataError.transactionMisuse("the transaction handle is used after its scope ended")
        }
    }
}
