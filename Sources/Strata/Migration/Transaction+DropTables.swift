// Transaction+DropTables: `Database.dropTables`: the named tables dropped together, children first, or none.

extension Transaction {
    /// Drops the tables named that exist, as one migration step does (in one transaction, holding the migration
    /// lock, with SQLite's foreign keys off): each table after the listed tables that reference it, and the foreign
    /// keys of a cycle of listed tables first. Refuses, before dropping any, a table that a table not listed references:
    /// SQLite would delete its rows first (cascading into the other table, or failing on it) where PostgreSQL
    /// refuses the drop, so every backend refuses it.
    ///
    /// ```swift
    /// try await db.withConnection { tx in try tx.dropTables(["comment", "post"]) }
    /// ```
    ///
    /// - Parameter names: the tables; a name no table has is skipped.
    /// - Throws: ``StrataError/tableReferenced(_:by:)`` naming the table and the one that references it;
    ///   ``StrataError/transactionMisuse(_:)`` inside a transaction. Nothing is dropped then, on every backend.
    public func dropTables(_ names: [String]) throws {
        guard depth == 0 else { throw StrataError.transactionMisuse("dropTables runs outside a transaction") }
        guard let editor = connection as? any SchemaEditing else {
            // A driver without schema changes: each table dropped as it is listed.
            for name in names { _ = try execute(.dropTable(name)) }
            return
        }
        try editor.willBeginMigrationStep()
        defer { editor.didEndMigrationStep() }
        try savepoint { tx in
            try editor.lockForMigration()
            let live = try editor.introspect()
            var listed: [String] = []
            for name in names where live[table: name] != nil && !listed.contains(name) { listed.append(name) }
            for name in listed {
                if let other = live.references(to: name).first(where: { !listed.contains($0.table) }) {
                    throw StrataError.tableReferenced(name, by: other.table)
                }
            }
            let (order, cycleKeys) = Self.dropOrder(listed, live: live)
            for (table, key) in cycleKeys { try tx.apply(.dropForeignKey(table: table, column: key.column)) }
            for name in order { try tx.apply(.dropTable(name)) }
        }
    }

    /// The listed tables in an order that drops a table only after every other listed table that references it,
    /// and the foreign keys to drop first where listed tables reference each other in a cycle (the tables of a
    /// cycle then follow in the order listed).
    static func dropOrder(
        _ listed: [String], live: DatabaseSchema
    ) -> (order: [String], cycleKeys: [(table: String, key: ForeignKey)]) {
        var remaining = listed
        var order: [String] = []
        while !remaining.isEmpty {
            let free = remaining.filter { name in
                !live.references(to: name).contains { $0.table != name && remaining.contains($0.table) }
            }
            guard free.isEmpty else {
                order += free
                remaining.removeAll { free.contains($0) }
                continue
            }
            var keys: [(table: String, key: ForeignKey)] = []
            for name in remaining {
                for key in live[table: name]?.foreignKeys ?? []
                where key.referencedTable != name && remaining.contains(key.referencedTable) {
                    keys.append((name, key))
                }
            }
            return (order + remaining, keys)
        }
        return (order, [])
    }
}
