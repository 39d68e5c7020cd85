// PostgresConnection+GuardedWrite: a write inside a transaction, in its own savepoint, in one round trip.
import CPostgres
import Strata

extension PostgresConnection {
    static let savepointSQL = "SAVEPOINT strata_stmt"
    static let releaseSQL = "RELEASE SAVEPOINT strata_stmt"

    /// Sends the prepared statement `name` (a control statement: no parameters); true when sent.
    private func sendPrepared(_ name: UnsafeBufferPointer<CChar>) -> Bool {
        PQsendQueryPrepared(handle, name.baseAddress, 0, nil, nil, nil, 0) == 1
    }

    /// What each query of the pipeline is, in the order its results come back.
    private enum Stage { case savepoint, prepareSavepoint, prepareRelease, prepare, execute, release }

    /// Runs a write between `SAVEPOINT strata_stmt` and `RELEASE`, pipelined with the statement
    /// (and its PREPARE on first use) so that it costs one round trip; on failure rolls back to the
    /// savepoint, leaving the transaction usable as on SQLite (see ``StatementSavepoints``).
    func performGuarded(
        _ rendered: RenderedSQL, traits: StatementTraits, sqlHash: Int?, onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        try checkUsable()
        var binds = takeBinds()
        defer { keepBinds(&binds) }
        try binds.fill(rendered.binds, table: traits.table)
        let key = Key(sql: rendered.sql, types: binds.types, sqlHash: sqlHash)
        let named = usesNamedStatements
        let cached = named ? cachedName(key) : nil
        let name = named ? cached ?? newStatementName() : ""
        // SAVEPOINT and RELEASE run as statements prepared once per connection, like the write itself: sent as
        // text each time (`PQsendQueryParams`), each was parsed again and its text copied by libpq, about 1,500
        // client instructions a write for the two. The first guarded write prepares them, after its SAVEPOINT.
        let controls = named && savepointPrepared && releasePrepared ? savepointNames : nil
        let prepareControls = named && controls == nil
        var stages: [Stage] = [.savepoint]
        if prepareControls {
            if !savepointPrepared { stages.append(.prepareSavepoint) }
            if !releasePrepared { stages.append(.prepareRelease) }
        }
        if named && cached == nil { stages.append(.prepare) }
        stages += [.execute, .release]
        let deadline = callDeadline

        guard PQenterPipelineMode(handle) == 1 else {
            throw fail(PostgresFailure(result: nil, connection: handle), table: traits.table)
        }
        var sent: Bool
        if let controls {
            sent = controls.savepoint.withUnsafeBufferPointer { sendPrepared($0) }
        } else {
            sent = PQsendQueryParams(handle, Self.savepointSQL, 0, nil, nil, nil, nil, 0) == 1
        }
        if stages.contains(.prepareSavepoint) {
            sent =
                sent
                && savepointNames.savepoint.withUnsafeBufferPointer {
                    PQsendPrepare(handle, $0.baseAddress, Self.savepointSQL, 0, nil) == 1
                }
        }
        if stages.contains(.prepareRelease) {
            sent =
                sent
                && savepointNames.release.withUnsafeBufferPointer {
                    PQsendPrepare(handle, $0.baseAddress, Self.releaseSQL, 0, nil) == 1
                }
        }
        if named && cached == nil { sent = sent && sendPrepare(key, name: name) == 1 }
        sent = sent && sendStatement(key, binds: binds, name: named ? name : nil) == 1
        if let controls {
            sent = sent && controls.release.withUnsafeBufferPointer { sendPrepared($0) }
        } else {
            sent = sent && PQsendQueryParams(handle, Self.releaseSQL, 0, nil, nil, nil, nil, 0) == 1
        }
        sent = sent && PQpipelineSync(handle) == 1
        guard sent else {
            isBroken = true
            throw StrataError.connectionLost(PostgresConnector.tidy(String(cString: PQerrorMessage(handle))))
        }

        isReadingResults = true
        defer { isReadingResults = false }
        // Read every result, even after a failure or a throwing onRow, so the connection stays in step.
        var failure: (Stage, PostgresFailure)?
        var rowError: (any Error)?
        var changed = 0
        for stage in stages {
            while let result = try awaitResult(by: deadline) {
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                    switch stage {
                    case .prepare: cache[key] = name
                    case .prepareSavepoint: savepointPrepared = true
                    case .prepareRelease: releasePrepared = true
                    default: break
                    }
                    guard stage == .execute else { continue }
                    changed = Self.changedRows(result)
                    let rows = PQntuples(result)
                    guard rows > 0, rowError == nil else { continue }
                    let reader = PostgresRow(result)
                    do {
                        for r in 0..<rows {
                            reader.row = r
                            try onRow(reader)
                        }
                    } catch {
                        rowError = error
                    }
                case PGRES_PIPELINE_ABORTED:
                    continue
                default:
                    if failure == nil { failure = (stage, PostgresFailure(result: result, connection: handle)) }
                }
            }
            if PQstatus(handle) != CONNECTION_OK { break }
        }
        isReadingResults = false  // control statements may follow (a throw above is covered by the defer)
        if PQstatus(handle) == CONNECTION_OK, let sync = try awaitResult(by: deadline) {
            PQclear(sync)  // PGRES_PIPELINE_SYNC
        }
        if PQstatus(handle) != CONNECTION_OK || PQexitPipelineMode(handle) != 1 {
            throw fail(failure?.1 ?? PostgresFailure(result: nil, connection: handle), table: traits.table)
        }
        if let (stage, f) = failure {
            if stage != .savepoint {
                try control("ROLLBACK TO SAVEPOINT strata_stmt; RELEASE SAVEPOINT strata_stmt", table: traits.table)
            }
            if f.isStalePlan {
                forgetPrepared(key)
                throw StalePlan(error: PostgresErrors.map(f, table: traits.table))
            }
            throw fail(f, table: traits.table)
        }
        if let rowError { throw rowError }
        return changed
    }
}
