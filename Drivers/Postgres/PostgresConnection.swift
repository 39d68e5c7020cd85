// PostgresConnection: one libpq connection with a prepared-statement cache; runs rendered SQL as parameters.
import CPostgres
import Strata

/// A connection to a PostgreSQL server. Used by one task at a time (the pool sees to it).
///
/// Every statement is prepared once per connection (`PQprepare`, named `strata_1`, `strata_2`, …)
/// and run with `PQexecPrepared`; values are always parameters. When the server goes away the
/// connection marks itself broken, throws ``StrataError/connectionLost(_:)``, and the pool
/// replaces it.
public final class PostgresConnection: SQLConnection {
    private let handle: OpaquePointer
    public let dialect: any Dialect = PostgresDialect()
    public private(set) var isBroken = false

    /// Prepared statements: the same SQL bound with different types (NULL vs text) is prepared apart.
    private struct Key: Hashable {
        var sql: String
        var types: [Oid]
    }
    private var cache: [Key: String] = [:]
    private var prepareCount = 0
    private static let cacheLimit = 512

    /// Opens a connection; see ``PostgresConnectionOptions`` for what it falls back on.
    ///
    /// - Throws: ``StrataError/connectionFailed(_:)`` saying whether authentication failed, the database
    ///   is missing, the attempt timed out, or the server could not be reached.
    public init(options: PostgresConnectionOptions) throws {
        handle = try PostgresConnector.open(options)
    }

    deinit { PQfinish(handle) }

    /// The server's version number, e.g. 150018 for 15.18.
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    public func run(_ rendered: RenderedSQL, statement: Statement?, onRow: (any RowReader) throws -> Void) throws -> Int {
        let guarded = PQtransactionStatus(handle) == PQTRANS_INTRANS
            && StatementSavepoints.needed(for: statement, sql: rendered.sql)
        var retried = false
        while true {
            if guarded { try control("SAVEPOINT strata_stmt", statement) }
            do {
                let changed = try perform(rendered, statement: statement, onRow: onRow)
                if guarded { try control("RELEASE SAVEPOINT strata_stmt", statement) }
                return changed
            } catch {
                if guarded && !isBroken {
                    try control("ROLLBACK TO SAVEPOINT strata_stmt", statement)
                    try control("RELEASE SAVEPOINT strata_stmt", statement)
                }
                if let stale = error as? StalePlan {
                    // A table changed under a cached statement: prepare it afresh, once, when nothing else was undone.
                    if !retried && (guarded || PQtransactionStatus(handle) == PQTRANS_IDLE) {
                        retried = true
                        continue
                    }
                    throw stale.error
                }
                throw error
            }
        }
    }

    /// Prepares (or finds) and runs one statement, handing each row to `onRow`.
    private func perform(_ rendered: RenderedSQL, statement: Statement?, onRow: (any RowReader) throws -> Void) throws -> Int {
        try checkUsable()
        let binds = try PostgresBinds(rendered.binds, table: statement?.postgresTable)
        let key = Key(sql: rendered.sql, types: binds.types)
        let name = try prepared(key, statement)
        let result = binds.withParameters { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(binds.count), values, lengths, formats, 0)
        }
        defer { PQclear(result) }
        guard let result, [PGRES_TUPLES_OK, PGRES_COMMAND_OK].contains(PQresultStatus(result)) else {
            let failure = PostgresFailure(result: result, connection: handle)
            if failure.isStalePlan {
                cache[key] = nil
                throw StalePlan(error: PostgresErrors.map(failure, table: statement?.postgresTable))
            }
            throw fail(failure, statement)
        }
        let rows = PQntuples(result)
        if rows > 0 {
            let reader = PostgresRow(result)
            for r in 0..<rows {
                reader.row = r
                try onRow(reader)
            }
        }
        return Self.changedRows(result)
    }

    /// The name of the prepared statement for `key`, preparing it on first use.
    private func prepared(_ key: Key, _ statement: Statement?) throws -> String {
        if let name = cache[key] { return name }
        if cache.count >= Self.cacheLimit { evictAll() }
        prepareCount += 1
        let name = "strata_\(prepareCount)"
        let result = key.types.withUnsafeBufferPointer { types in
            PQprepare(handle, name, key.sql, Int32(key.types.count), types.baseAddress)
        }
        defer { PQclear(result) }
        guard let result, PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw fail(PostgresFailure(result: result, connection: handle), statement)
        }
        cache[key] = name
        return name
    }

    /// Forgets every prepared statement, on the server too (when the transaction state allows it).
    private func evictAll() {
        let status = PQtransactionStatus(handle)
        guard status == PQTRANS_IDLE || status == PQTRANS_INTRANS else { return }
        let result = PQexec(handle, "DEALLOCATE ALL")
        if let result, PQresultStatus(result) == PGRES_COMMAND_OK { cache.removeAll(keepingCapacity: true) }
        PQclear(result)
    }

    /// Runs constant SQL (savepoint control; never user data) with the simple protocol.
    private func control(_ sql: StaticString, _ statement: Statement?) throws {
        try checkUsable()
        let result = PQexec(handle, sql.description)
        defer { PQclear(result) }
        guard let result, PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw fail(PostgresFailure(result: result, connection: handle), statement)
        }
    }

    private func checkUsable() throws {
        if isBroken || PQstatus(handle) != CONNECTION_OK {
            isBroken = true
            throw StrataError.connectionLost("the connection to the server is closed")
        }
    }

    /// The typed error for a failure; a lost connection is marked broken so the pool drops it.
    private func fail(_ failure: PostgresFailure, _ statement: Statement?) -> StrataError {
        if failure.losesConnection || PQstatus(handle) != CONNECTION_OK {
            isBroken = true
            return .connectionLost(PostgresConnector.tidy(failure.message))
        }
        return PostgresErrors.map(failure, table: statement?.postgresTable)
    }

    /// Rows an INSERT, UPDATE, DELETE or MERGE changed; 0 for queries and DDL.
    private static func changedRows(_ result: OpaquePointer) -> Int {
        guard let status = PQcmdStatus(result) else { return 0 }
        let tag = String(cString: status)
        guard ["INSERT", "UPDATE", "DELETE", "MERGE"].contains(where: { tag.hasPrefix($0 + " ") }),
              let tuples = PQcmdTuples(result) else { return 0 }
        return Int(String(cString: tuples)) ?? 0
    }

    public func columns(of table: String) throws -> [String]? {
        var names: [String] = []
        let sql = "SELECT column_name::text FROM information_schema.columns "
            + "WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position"
        _ = try run(RenderedSQL(sql: sql, binds: [.text(table)]), statement: nil) { r in
            if case .text(let n) = r.value(at: 0) { names.append(n) }
        }
        return names.isEmpty ? nil : names
    }
}

/// A cached statement whose result type changed; `run` prepares it again once.
private struct StalePlan: Error {
    let error: StrataError
}
