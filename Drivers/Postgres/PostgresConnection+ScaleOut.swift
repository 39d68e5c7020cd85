// PostgresConnection+ScaleOut: what a connection does differently on a scale-out engine (see PostgresEngine): the
// migration lease without advisory locks, one DDL per transaction, the distribution column of a Citus upsert.
import CPostgres
import Foundation
import Strata

extension PostgresConnection {
    /// On an engine without advisory locks (CockroachDB), takes the migration lease before the step's transaction
    /// begins: the one row of `strata_migration_lock`, created if missing, whose `holder` this connection sets
    /// when it is free (or its holder has not renewed it for 5 minutes: a process that died), polling every 20 ms
    /// for at most the lock timeout. A lease, not a row lock, because each DDL statement there commits the step's
    /// transaction (``PostgresEngine/commitsEachDDL``), which would release a row lock; it is renewed at each such
    /// commit and freed by ``didEndMigrationStep()``. Nothing on PostgreSQL (``lockForMigration()`` takes
    /// `pg_advisory_xact_lock`).
    ///
    /// - Throws: ``StrataError/busy`` when another process holds the lease past the lock timeout.
    public func willBeginMigrationStep() throws {
        guard !engine.hasAdvisoryLocks else { return }
        do {
            _ = try rows(
                "CREATE TABLE IF NOT EXISTS strata_migration_lock "
                    + "(id INTEGER PRIMARY KEY, holder TEXT, renewed_at TIMESTAMPTZ)")
        } catch {
            // IF NOT EXISTS is no guard against another migrator creating it at the same moment (PostgreSQL then
            // fails on its catalog's unique index): the table is there all the same.
            guard try columns(of: "strata_migration_lock") != nil else { throw error }
        }
        _ = try rows("INSERT INTO strata_migration_lock (id) VALUES (1) ON CONFLICT (id) DO NOTHING")
        let token = "\(PQbackendPID(handle))-\(UInt64.random(in: 0 ... .max))"
        let clock = ContinuousClock()
        let deadline = clock.now + migrationLockWait
        repeat {
            let got = try rows(
                "UPDATE strata_migration_lock SET holder = $1, renewed_at = now() WHERE id = 1 "
                    + "AND (holder IS NULL OR renewed_at < now() - interval '5 minutes') RETURNING id",
                [.text(token)])
            if !got.isEmpty {
                migrationLease = token
                return
            }
            Thread.sleep(forTimeInterval: 0.02)
        } while clock.now < deadline
        throw StrataError.busy
    }

    /// Frees the migration lease this connection holds, if any (see ``willBeginMigrationStep()``).
    public func didEndMigrationStep() {
        guard let token = migrationLease else { return }
        migrationLease = nil
        _ = try? rows(
            "UPDATE strata_migration_lock SET holder = NULL, renewed_at = NULL WHERE id = 1 AND holder = $1",
            [.text(token)])
    }

    /// Whether `sql` changes the schema (its first word is CREATE, ALTER, DROP or COMMENT).
    static func isDDL(_ sql: String) -> Bool {
        ["CREATE", "ALTER", "DROP", "COMMENT"].contains(StatementSavepoints.firstKeyword(of: sql))
    }

    /// After a DDL statement inside a transaction on an engine that takes one per transaction (CockroachDB):
    /// commits it and begins the next, renewing the migration lease in between. What ran before the DDL
    /// statement in the same transaction commits with it.
    func commitAfterDDL() throws {
        try control("COMMIT", nil)
        if let token = migrationLease {
            _ = try rows(
                "UPDATE strata_migration_lock SET renewed_at = now() WHERE id = 1 AND holder = $1", [.text(token)])
        }
        try control("BEGIN", nil)
    }

    /// On Citus, refuses an upsert whose conflict target lacks the table's distribution column (a distributed
    /// table's unique indexes all include it, so the statement could only fail there), before it is sent. The
    /// column is read from `citus_tables` once per table and connection; a table not listed is local, and so is
    /// every table when there is no `citus_tables` (an engine pinned by the URL that is not Citus after all).
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the table, the target and the distribution column.
    func checkDistributionColumn(_ statement: Statement?) throws {
        guard case .insert(let insert)? = statement, let conflict = insert.onConflict else { return }
        let column: String?
        if let known = distributionColumns[insert.table] {
            column = known
        } else {
            if citusCatalog == nil {  // looked up first: a statement naming a missing view would abort a transaction
                citusCatalog = try rows("SELECT to_regclass('citus_tables') IS NOT NULL").first?.first == .bool(true)
            }
            var found: [[DatabaseValue]] = []
            if citusCatalog == true {
                found = try rows(
                    "SELECT distribution_column::text FROM citus_tables WHERE table_name = $1::text::regclass",
                    [.text(try dialect.quote(insert.table))])
            }
            if case .text(let name)? = found.first?.first, name != "<none>" { column = name } else { column = nil }
            distributionColumns[insert.table] = column
        }
        guard let column, !conflict.target.contains(column) else { return }
        throw StrataError.invalidQuery(
            "upsert into \(insert.table): the conflict target (\(conflict.target.joined(separator: ", "))) lacks "
                + "\(column), the table's distribution column on Citus, which every unique index there includes")
    }
}
