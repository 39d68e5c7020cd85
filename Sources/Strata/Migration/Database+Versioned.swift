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
            let ran = try inMigrationStep { tx in
                guard let current = try MigrationLog.applied(tx)[m.name] else {
                    for op in m.up { try op.run(tx) }
                    try tx.schemaEditor().checkMigrationStep()
                    try MigrationLog.record(
                        tx, kind: "versioned", name: m.name, checksum: m.checksum,
                        summary: m.up.map(\.description).joined(separator: "\n"))
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
            let ran = try inMigrationStep { tx in
                guard try MigrationLog.applied(tx)[m.name] != nil else { return false }
                for op in m.down ?? [] { try op.run(tx) }
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

    /// Runs one step's body in its own transaction, holding the migration lock.
    private func inMigrationStep(_ body: (Transaction) throws -> Bool) throws -> Bool {
        let editor = try schemaEditor()
        try editor.willBeginMigrationStep()
        defer { editor.didEndMigrationStep() }
        return try savepoint { tx in
            try editor.lockForMigration()
            try MigrationLog.ensureTable(tx)
            return try body(tx)
        }
    }
}
