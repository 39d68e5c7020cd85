// StrataError: the typed errors every driver raises, in the user's terms.

/// Everything that can go wrong in Strata, the same cases on every driver.
///
/// Descriptions never show passwords or bound values.
public enum StrataError: Error, Sendable, Hashable, CustomStringConvertible {
    // Configuration
    /// A database URL could not be understood; `reason` says which part is wrong.
    case invalidURL(String, reason: String)
    /// No driver given or registered serves the URL's scheme (see ``DriverFactory``).
    case unknownScheme(String)
    /// The scheme's driver was not registered. No longer thrown: a scheme no driver serves is
    /// ``unknownScheme(_:)`` (the core knows no scheme of its own); kept so that existing `switch`es compile.
    case driverNotRegistered(scheme: String, module: String)

    // Validation and model use
    /// One or more validations failed; nothing was written.
    case validationFailed([ValidationError])
    /// A key path that maps to no column of the model.
    case unknownColumn(model: String, column: String)
    /// The operation needs a saved model (one with an id).
    case notPersisted(model: String)
    /// A fetched or saved model was saved again, but its row is gone (deleted by someone else); nothing was
    /// written. Pass `insertIfMissing: true` to `save` to insert it again instead.
    case recordNotFound(model: String, id: String)
    /// An INSERT of one model's row inserted nothing and raised no error: a conflict clause of the table's own
    /// (`UNIQUE … ON CONFLICT IGNORE` on SQLite) or a trigger skipped it. The model keeps no id it was not given.
    case insertIgnored(table: String)
    /// A model with a `@Version` column was saved, but its row changed (or went) since the model read it:
    /// `UPDATE … WHERE id = ? AND version = ?` matched nothing. Nothing was written; reload and retry. Version -1:
    /// the model was read inside a transaction or savepoint that rolled back, so its id may name another row now;
    /// read it again with a query.
    case staleRecord(model: String, id: String, version: Int64)
    /// The query asked for something no backend can do the same way (a negative limit, say).
    case invalidQuery(String)
    /// An association is declared in a way Strata cannot use (a foreign key it cannot find).
    case invalidAssociation(String)
    /// An association was read with `loaded(_:)` but the query did not include it.
    case associationNotLoaded(model: String, association: String)
    /// Deleting the model is refused by a `restrict` association that still has rows.
    case deleteRestricted(model: String, association: String)

    // Rendering
    /// An identifier that cannot be quoted safely (empty, NUL, too long).
    case invalidIdentifier(String, reason: String)
    /// More bound values than the dialect allows in one statement.
    case tooManyBindings(count: Int, limit: Int)

    // Database
    /// A write would give two rows the same values in a unique index or primary key; names the table and the
    /// index's columns when the engine reports them (empty when it does not). Nothing of the statement is kept.
    case uniqueViolation(table: String?, columns: [String])
    /// A write would store NULL in a column declared `NOT NULL`; names the table and the column when the engine
    /// reports them. Nothing of the statement is kept.
    case notNullViolation(table: String?, column: String?)
    /// A write or delete would leave a foreign key pointing at no row (a missing referenced row, or a referenced
    /// row deleted under a `restrict`/`noAction` rule); names the table when the engine reports it.
    case foreignKeyViolation(table: String?)
    /// A write breaks a CHECK constraint (such as SQLite's boolean `IN (0, 1)` check); names the table and, in
    /// `detail`, the constraint or the engine's message.
    case checkViolation(table: String?, detail: String)
    /// A value of the wrong type for its column (SQLite STRICT, PostgreSQL, memory).
    case typeMismatch(table: String?, column: String?, detail: String)
    /// A stored value does not fit the model property that reads it.
    case decodingFailed(model: String, column: String, value: String, expected: String)
    /// The model's `init(row:)` needs a column the query did not select.
    case columnNotSelected(model: String, column: String)
    /// The database schema does not match the models and migration is turned off; or, on any database, a query
    /// compares, orders or aggregates a number property whose column stores text (`missing` names each column
    /// and how the query uses it). Nothing ran.
    case schemaMismatch(table: String, missing: [String])
    /// A foreign key references a table that neither exists nor is among the models being migrated;
    /// `migrate` throws it before changing anything.
    case missingReferencedTable(table: String, column: String, references: String)
    /// No such table.
    case noSuchTable(String)
    /// The database is locked by another connection (retryable).
    case busy
    /// A transaction lost a race with another one and was rolled back (retryable, see ``RetryPolicy``): a
    /// serializable transaction that could not be serialized (PostgreSQL 40001), or a deadlock's victim (40P01).
    case serializationFailure
    /// The connection could not be opened: the server is unreachable, refused, timed out, or lacks the database.
    case connectionFailed(String)
    /// The server refused the credentials (a wrong or missing password); the message never shows the password.
    case authenticationFailed(String)
    /// The connection broke during an operation; it is discarded.
    case connectionLost(String)
    /// The driver cannot do this.
    case unsupported(feature: String, driver: String)
    /// Transaction misuse (a handle used outside its scope, a nested begin).
    case transactionMisuse(String)
    /// Any other error from the engine, with its own code and message.
    case database(code: Int, message: String)

    // Values and resources
    /// A value Strata refuses to bind or store, the same on every driver: text holding NUL, a date that no
    /// backend can represent (NaN, infinite, beyond ±292,000 years), a `Codable` value whose encoding fails.
    /// `table` and `column` name where it was headed when known.
    case invalidValue(table: String?, column: String?, reason: String)
    /// No pooled connection became free within the configured wait (``Configuration/poolTimeout``).
    case poolTimeout(seconds: Double)
    /// Two backends of a differential database answered one statement differently.
    case divergence(statement: String, details: String)
    /// Arithmetic no backend can answer the same way: integer overflow (of `+ - * /`, `sum`) or division by
    /// zero. `expression` names the model and column (or the operation) where it happened. Every driver raises
    /// it rather than returning NULL, a float or a wrapped value.
    case arithmeticError(expression: String, reason: String)
    /// An aggregate, grouping or DISTINCT the query cannot run the same way everywhere: `sum`/`avg` of a column
    /// that is not numeric, `min`/`max` of one with no order on every backend, `having` without `group(by:)`,
    /// a column neither grouped nor aggregated. Thrown before any SQL is sent; `column` names the column (or
    /// the aggregate) of `model`.
    case invalidAggregate(model: String, column: String, reason: String)
    /// With migration turned off, several models do not match the live schema; each entry lists every problem
    /// of one table (one table alone throws ``schemaMismatch(table:missing:)``). Nothing ran.
    case schemaMismatches([SchemaMismatch])
    /// A versioned migration step that is already applied has changed since (its checksum differs).
    case migrationChecksumMismatch(step: String, applied: String, current: String)
    /// A migration step was asked to revert but has no `down`.
    case irreversibleMigration(step: String)
    /// A command-line argument (`--url`, `--steps`, the command's name) is missing, unknown or malformed.
    case invalidArgument(String, reason: String)
    /// A row lock that was asked not to wait (``RowLock/Wait/noWait``, PostgreSQL's `NOWAIT`, SQLSTATE 55P03) met
    /// a row another transaction holds; `table` names the locked table. Like any failed statement it leaves the
    /// transaction usable: its earlier writes stay, and commit unless the error leaves the body (which rolls
    /// everything back). Not retried by ``RetryPolicy``.
    case lockNotAvailable(table: String)
    /// The statement ran past its time limit (PostgreSQL's `statement_timeout` URL parameter, SQLSTATE 57014)
    /// and the server cancelled it: nothing it did remains, and the connection stays usable.
    case statementTimeout(table: String?)
    /// The connection broke after a write (an autocommit INSERT, UPDATE, DELETE or DDL, or a COMMIT) was sent
    /// and before the server answered, so it may or may not have been applied. Retrying it may apply it twice:
    /// check first (or make the write idempotent, e.g. an upsert on a natural key). The connection is discarded.
    case outcomeUnknown(String)
    /// An encrypted column (see <doc:EncryptedColumns>) could not be written, read or queried: no keyring, a key
    /// id the keyring does not hold, a stored value altered or sealed under another key, or an operator such a
    /// column cannot serve (only `==` and IN on a deterministic column). Never carries the value.
    case encryptedColumn(model: String, column: String, reason: String)
    /// A generated column (see ``GeneratedColumn``) was named as a write target (an assignment, an upsert's set
    /// list, a saved model's assigned property), or its declaration is wrong (no expression, an expression over
    /// the primary key or another generated column). Names the model and the column.
    case generatedColumn(model: String, column: String, reason: String)
    /// A versioned migration step failed on a backend whose DDL is not transactional (MariaDB: each DDL statement
    /// commits), and Strata could not undo all it had done: `remaining` lists, in order, the operations whose
    /// effects stay in the database (a change with no inverse, a transform committed by a later DDL statement);
    /// `reason` is the failure. The step is not recorded as applied. Where every operation could be undone, the
    /// step's own error is thrown instead and the database is as it was.
    case migrationStepIncomplete(step: String, remaining: [String], reason: String)
    /// A ``ShardedDatabase`` refused to run something on more than one shard, or on the wrong one: a query whose
    /// WHERE does not pin the model's shard key to one shard (ask ``QueryBuilder/fanOut()`` to read every shard), a
    /// write or aggregate that cannot be combined across shards, a write inside a one-shard transaction to a model
    /// of another shard, or a saved model whose shard key was assigned. `model` names the model; nothing ran.
    case crossShard(model: String, reason: String)
    /// ``ShardedDatabase/migrate(_:)`` failed on shard `failedShard`: `migrated` lists the shards that were
    /// migrated before it (they keep their new schema); the failed shard is as it was where its DDL is
    /// transactional (SQLite, PostgreSQL), and the later shards were not touched. `reason` is the shard's error.
    case shardMigrationIncomplete(failedShard: Int, migrated: [Int], reason: String)
    /// A full-text search Strata refused before any driver saw it: a query with no word (`"--- !!"`), a dangling
    /// `OR`, a phrase, a word too long to index, a model without searchable columns, or a write that would leave
    /// the stored search document stale. `part` is the query word, declaration or column at fault.
    case invalidSearch(model: String, part: String, reason: String)

    /// A one-line message naming the model, table, column or parameter; it never shows a password or bound values.
    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): return "invalid database URL '\(URLRedaction.redact(url))': \(reason)"
        case .unknownScheme(let s):
            return "no driver serves '\(s):' URLs: pass its DriverFactory to Database.open(_:drivers:) or "
                + "Database.register(_:)"
        case .driverNotRegistered(let s, let m):
            return "no driver registered for '\(s):' URLs: import \(m) and pass it to Database.open(_:drivers:)"
        case .validationFailed(let errors):
            return "validation failed: " + errors.map(\.description).joined(separator: "; ")
        case .unknownColumn(let m, let c): return "\(m) has no column '\(c)'"
        case .notPersisted(let m): return "\(m) has not been saved yet (its id is nil)"
        case .recordNotFound(let m, let id): return "\(m) with id \(id) is no longer in the database"
        case .insertIgnored(let t):
            return
                "the database inserted no row into \(t) and raised no error (a conflict clause or trigger skipped it)"
        case .staleRecord(let m, let id, -1):
            return "\(m) with id \(id) was read in a transaction that rolled back; read it again with a query"
        case .staleRecord(let m, let id, let v):
            return "\(m) with id \(id) changed since version \(v) was read; reload it and try again"
        case .invalidQuery(let r): return "invalid query: \(r)"
        case .invalidAssociation(let r): return "invalid association: \(r)"
        case .associationNotLoaded(let m, let a):
            return "\(m).\(a) was not loaded; add including(…) to the query or fetch it"
        case .deleteRestricted(let m, let a): return "cannot delete \(m): its \(a) still has rows (restrict)"
        case .invalidIdentifier(let i, let r): return "invalid identifier '\(i)': \(r)"
        case .tooManyBindings(let c, let l): return "statement binds \(c) values; the limit is \(l)"
        case .uniqueViolation(let t, let c):
            return "unique constraint violated on \(t ?? "?")(\(c.joined(separator: ", ")))"
        case .notNullViolation(let t, let c): return "NOT NULL constraint violated on \(t ?? "?").\(c ?? "?")"
        case .foreignKeyViolation(let t): return "foreign key constraint violated on \(t ?? "?")"
        case .checkViolation(let t, let d): return "CHECK constraint violated on \(t ?? "?"): \(d)"
        case .typeMismatch(let t, let c, let d): return "wrong type for \(t ?? "?").\(c ?? "?"): \(d)"
        case .decodingFailed(let m, let c, let v, let e): return "cannot read \(m).\(c): \(v) is not a \(e)"
        case .columnNotSelected(let m, let c):
            return "\(m).\(c) was not selected and has no default; select it or give the property a default"
        case .schemaMismatch(let t, let missing):
            return "table '\(t)' lacks or mismatches \(missing.joined(separator: ", ")) and migration is turned off"
        case .missingReferencedTable(let t, let c, let r):
            return "\(t).\(c) references table '\(r)', which does not exist: migrate its model too"
        case .noSuchTable(let t): return "no such table '\(t)'"
        case .busy: return "the database is busy (locked by another connection)"
        case .serializationFailure: return "could not serialize access; retry the transaction"
        case .connectionFailed(let r): return "could not connect: \(r)"
        case .authenticationFailed(let r): return "authentication failed: \(r)"
        case .connectionLost(let r): return "connection lost: \(r)"
        case .unsupported(let f, let d): return "\(f) is not supported by the \(d) driver"
        case .transactionMisuse(let r): return "transaction misuse: \(r)"
        case .database(let code, let message): return "database error \(code): \(message)"
        case .invalidValue(let t, let c, let r):
            let place = t.map { "\($0)." + (c ?? "?") } ?? c ?? "a bound value"
            return "invalid value for \(place): \(r)"
        case .poolTimeout(let s): return "no pooled connection became free within \(s) s"
        case .divergence(let statement, let details):
            return "backends diverged on \(statement): \(details)"
        case .arithmeticError(let e, let r): return "arithmetic error in \(e): \(r)"
        case .invalidAggregate(let m, let c, let r): return "invalid aggregate on \(m).\(c): \(r)"
        case .schemaMismatches(let all):
            return "the models do not match the database and migration is turned off: "
                + all.map(\.description).joined(separator: " | ")
        case .migrationChecksumMismatch(let s, let a, let c):
            return "migration \(s) changed after it was applied (checksum \(a), now \(c)); add a new step instead"
        case .irreversibleMigration(let s): return "migration \(s) has no down step and cannot be reverted"
        case .invalidArgument(let a, let r): return "invalid argument \(a): \(r)"
        case .lockNotAvailable(let t):
            return "could not lock rows of \(t) without waiting: another transaction holds them"
        case .statementTimeout(let t):
            return
                "statement on \(t ?? "?") ran past statement_timeout and was cancelled; the connection is still usable"
        case .outcomeUnknown(let r):
            return "connection lost after a write was sent, before the answer: it may or may not have been applied "
                + "(retrying may apply it twice): \(r)"
        case .encryptedColumn(let m, let c, let r): return "encrypted column \(m).\(c): \(r)"
        case .generatedColumn(let m, let c, let r): return "generated column \(m).\(c) \(r)"
        case .invalidSearch(let m, let p, let r): return "invalid full-text search on \(m): '\(p)' \(r)"
        case .migrationStepIncomplete(let s, let remaining, let r):
            return
                "migration \(s) failed (\(r)) and could not be undone (DDL is not transactional here); still applied: "
                + remaining.joined(separator: "; ")
        case .crossShard(let m, let r): return "\(m) spans shards: \(r)"
        case .shardMigrationIncomplete(let f, let done, let r):
            let list = done.isEmpty ? "none" : done.map(String.init).joined(separator: ", ")
            return "migration failed on shard \(f) (\(r)); shards migrated before it: \(list)"
        }
    }
}

extension StrataError {
    /// The error every driver raises for a DROP TABLE of a table that another table's foreign key references:
    /// ``invalidQuery(_:)`` naming both (PostgreSQL refuses such a drop; SQLite would first delete the table's rows,
    /// cascading into the other table's, so its driver and the memory driver refuse it too).
    ///
    /// - Parameters:
    ///   - table: the table to drop.
    ///   - other: a table whose foreign key references it.
    /// - Returns: the error.
    public static func tableReferenced(_ table: String, by other: String) -> StrataError {
        .invalidQuery("cannot drop table \(table): table \(other) references it (drop it first, or its foreign key)")
    }
}

/// Hides the passwords of a URL before it goes into a message.
///
/// Conservative: everything from the first `:` after `://` to the last `@` before the query is hidden, so a
/// password holding an unencoded `@`, `:` or `/` is hidden whole too; so is the value of every query parameter
/// that carries a secret (`password`, `sslpassword`, however its name is cased or percent-encoded).
enum URLRedaction {
    /// The query parameters whose values are secrets (libpq's `password` and `sslpassword`).
    static let secretParameters: Set<String> = ["password", "sslpassword"]

    static func redact(_ url: String) -> String {
        let query = url.firstIndex(of: "?")
        let head = redactAuthority(String(url[..<(query ?? url.endIndex)]))
        guard let query else { return head }
        let pairs = url[url.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map {
            pair -> String in
            let key = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let name = (String(key).removingPercentEncoding ?? String(key)).lowercased()
            return secretParameters.contains(name) || name.hasSuffix("password") ? key + "=***" : String(pair)
        }
        return head + "?" + pairs.joined(separator: "&")
    }

    private static func redactAuthority(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let afterScheme = url[schemeEnd.upperBound...]
        guard let at = afterScheme.lastIndex(of: "@"), let colon = afterScheme[..<at].firstIndex(of: ":") else {
            return url
        }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}
