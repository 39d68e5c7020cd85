// Database+Versioned: applying, reverting and reporting versioned migration steps, one transaction each.

/// Where one known step stands on a database.
public struct MigrationStatus: Sendable, Hashable {
    /// The step's name.
    public var name: String
    /// Whether it is recorded as applied.
    public var isApplied: Bool
    /// Whether it was applied with a different checksum (edited since).
    public var isChanged: Bool
}

extension Database {
    /// Applies the pending steps, in order, each in its own transaction that also records it: a failing step
    /// leaves nothing of itself applied or recorded (the steps before it stay applied). Steps already applied
    /// are skipped; two processes migrating at once apply each step once (the second waits for the first).
    ///
    /// - Returns: the names of the steps applied now.
    /// - Throws: ``StrataError/migrationChecksumMismatch(step:applied:current:)`` before anything runs when an
    ///   applied step changed; ``StrataError/invalidQuery(_:)`` for two steps of one name; what a step throws.
    @discardableResult
    nonisolated(nonsending)
        public func migrate(_ migrations: [Migration]) async throws -> [String]
    {
        try await withConnection { tx in try tx.migrate(migrations) }
    }

    /// Reverts the last `count` applied steps of `migrations`, newest first, each in its own transaction.
    ///
    /// - Returns: the names of the steps reverted.
    /// - Throws: ``StrataError/irreversibleMigration(step:)`` before anything runs when one has no `down`.
    @discardableResult
    nonisolated(nonsending)
        public func revert(_ migrations: [Migration], count: Int = 1) async throws -> [String]
    {
        try await withConnection { tx in try tx.revert(migrations, count: count) }
    }

    /// Which of `migrations` are applied.
    nonisolated(nonsending)
        public func migrationStatus(_ migrations: [Migration]) async throws -> [MigrationStatus]
    {
        try await withConnection { tx in
            let applied = try MigrationLog.applied(tx)
            return migrations.map { m in
                MigrationStatus(
                    name: m.name, isApplied: applied[m.name] != nil,
                    isChanged: applied[m.name].map { $0.checksum != m.checksum } ?? false)
            }
        }
    }

    /// Everything `strata_migrations` records, oldest first (versioned steps and automatic migrations).
    nonisolated(nonsending)
        public func migrationHistory() async throws -> [MigrationRecord]
    {
        try await withConnection { tx in try MigrationLog.read(tx) }
    }
}

extension Transaction {
    /// Applies pending steps (see ``Database/migrate(_:)-([Migration])``). Call it outside a transaction.
    @discardableResult
    public func migrate(_ migrations: [Migration]) throws -> [String] {
        guard depth == 0 else { throw StrataError.transactionMisuse("versioned migrations run outside a transaction") }
        var names = Set<String>()
        for m in migrations where !names.insert(m.name).inserted {
            throw StrataError.invalidQuery("two migration steps are named \(m.name)")
        }
        try checkChecksums(migrations, try MigrationLog.applied(self))
        var done: [String] = []
        for m in migrations {
            let ran = try inMigrationStep(m.name) { tx, done in
                guard let current = try MigrationLog.applied(tx)[m.name] else {
                    for op in m.up {
                        try op.run(tx)
                        done.append(op)
                    }
                    try tx.schemaEditor().checkMigrationStep()
                    try MigrationLog.record(
                        tx,
                        [
                            MigrationLog.Entry(
                                kind: "versioned", name: m.name, checksum: m.checksum,
                                summary: m.up.map(\.description).joined(separator: "\n"))
                        ])
                    return true
                }
                try checkChecksums([m], [m.name: current])
                return false
            }
            if ran { done.append(m.name) }
        }
        return done
    }

    /// Reverts applied steps (see ``Database/revert(_:count:)``).
    @discardableResult
    public func revert(_ migrations: [Migration], count: Int = 1) throws -> [String] {
        guard depth == 0 else { throw StrataError.transactionMisuse("versioned migrations run outside a transaction") }
        let applied = try MigrationLog.applied(self)
        try checkChecksums(migrations, applied)
        let targets = migrations.filter { applied[$0.name] != nil }.suffix(max(0, count)).reversed()
        for m in targets where m.down == nil { throw StrataError.irreversibleMigration(step: m.name) }
        var done: [String] = []
        for m in targets {
            let ran = try inMigrationStep(m.name) { tx, done in
                guard try MigrationLog.applied(tx)[m.name] != nil else { return false }
                for op in m.down ?? [] {
                    try op.run(tx)
                    done.append(op)
                }
                try tx.schemaEditor().checkMigrationStep()
                try MigrationLog.forget(tx, name: m.name)
                return true
            }
            if ran { done.append(m.name) }
        }
        return done
    }

    private func checkChecksums(_ migrations: [Migration], _ applied: [String: MigrationRecord]) throws {
        for m in migrations {
            if let r = applied[m.name], r.checksum != m.checksum {
                throw StrataError.migrationChecksumMismatch(step: m.name, applied: r.checksum, current: m.checksum)
            }
        }
    }

    /// Runs one step's body in its own transaction, holding the migration lock. The body appends each operation it
    /// has run to its second argument: where DDL is not transactional, a failure undoes those (see
    /// ``undo(_:step:after:)``).
    private func inMigrationStep(
        _ name: String, _ body: (Transaction, inout [MigrationOperation]) throws -> Bool
    ) throws -> Bool {
        let editor = try schemaEditor()
        try editor.willBeginMigrationStep()
        defer { editor.didEndMigrationStep() }
        var done: [MigrationOperation] = []
        do {
            return try savepoint { tx in
                try editor.lockForMigration()
                try MigrationLog.ensureTable(tx)
                return try body(tx, &done)
            }
        } catch {
            guard let dialect = (connection as? any SQLConnection)?.dialect, !dialect.transactionalDDL,
                done.contains(where: { if case .schema = $0 { true } else { false } })
            else { throw error }
            try undo(done, step: name, after: error, dialect: dialect)
            throw error
        }
    }

    /// Undoes, newest first, the schema changes of a failed step on a backend whose DDL is not transactional (the
    /// rollback has undone its writes since the last DDL statement). Returns when the database is as it was;
    /// otherwise throws ``StrataError/migrationStepIncomplete(step:remaining:reason:)`` naming what stays: a change
    /// with no inverse (a dropped column's values are gone), an inverse that failed, and a transform followed by a
    /// DDL statement, which committed it.
    private func undo(_ done: [MigrationOperation], step: String, after error: Error, dialect: any Dialect) throws {
        var remaining: [String] = []
        let lastSchema = done.lastIndex { if case .schema = $0 { true } else { false } } ?? -1
        for (n, op) in done.enumerated().reversed() {
            switch op {
            case .transform:
                if n < lastSchema { remaining.append(op.description) }
            case .schema(let change):
                guard let inverse = Self.inverse(of: change, dialect: dialect) else {
                    remaining.append(op.description)
                    continue
                }
                do {
                    try apply(inverse)
                } catch {
                    remaining.append(op.description)
                }
            }
        }
        guard remaining.isEmpty else {
            throw StrataError.migrationStepIncomplete(
                step: step, remaining: remaining.reversed(), reason: "\(error)")
        }
    }

    /// The change that undoes `change` with no loss, or nil (a drop, a type or default change).
    private static func inverse(of change: SchemaChange, dialect: any Dialect) -> SchemaChange? {
        switch change {
        case .createTable(let t): return .dropTable(t.name)
        case .renameTable(let t, let to): return .renameTable(to, to: t)
        case .addColumn(let t, let c): return .dropColumn(table: t, column: c.name)
        case .renameColumn(let t, let c, let to): return .renameColumn(table: t, column: to, to: c)
        case .addIndex(let t, let index):
            return .dropIndex(table: t, name: dialect.shortened(index.resolvedName(table: t)))
        case .addForeignKey(let t, let key): return .dropForeignKey(table: t, column: key.column)
        case .dropTable, .dropColumn, .alterColumn, .dropIndex, .dropForeignKey, .setDefault, .setDatabaseDefault:
            return nil
        }
    }
}
