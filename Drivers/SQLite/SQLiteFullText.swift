// SQLiteFullText: whether this libsqlite3 has FTS5, and which search documents of a database have an FTS5 index.
import CSQLite
import Strata

/// FTS5 on SQLite: available when libsqlite3 was compiled with `SQLITE_ENABLE_FTS5` (checked once, at run time);
/// without it the dialect keeps the `instr` scan and automatic migration creates no index.
enum SQLiteFullText {
    /// Whether the linked libsqlite3 has FTS5 (`sqlite3_compileoption_used("ENABLE_FTS5")`).
    static let isAvailable: Bool = sqlite3_compileoption_used("ENABLE_FTS5") != 0
}

/// The FTS5 index tables of one connection's database, read from `pragma_table_list` and `sqlite_schema` and
/// read again whenever `PRAGMA schema_version` moves, so an index another connection created is seen and a match
/// never names a table that is gone. An index counts only while its three triggers exist: dropping its table
/// drops them, and an index nothing keeps is never read. Asked only while a statement with a match is rendered.
final class SQLiteFullTextCatalog: @unchecked Sendable {
    // @unchecked: the catalog is read and written only by the SQLiteConnection that owns it, while it renders a
    // statement, and a connection is used by one task at a time (the pool sees to it).
    /// The connection's database handle, nil once ``close()`` ran (the connection's deinit, before it closes the
    /// handle). Not a weak reference to the connection: a weak reference gives the connection a side table, and every
    /// retain and release of it then takes the runtime's slow path (about 50 instructions each, two of each per
    /// one-shot call, whose ``Transaction`` and lease hold the connection).
    private var handle: OpaquePointer?
    private var version: Int64 = -1
    private var names: Set<String> = []
    /// `PRAGMA schema_version`, prepared once; finalized by ``close()`` before the connection closes.
    private var versionStatement: OpaquePointer?

    init(handle: OpaquePointer) { self.handle = handle }

    /// Whether the main database holds a virtual table of this name (an FTS5 index Strata names).
    func contains(_ name: String) -> Bool {
        guard let handle else { return false }
        let current = schemaVersion(handle) ?? -2
        if current != version {
            names = Self.names(handle)
            version = current
        }
        // The trigger names depend on the dialect's identifier length alone, not on which indexes it knows.
        let triggers = SQLRenderer.fullTextTriggerNames(index: name, dialect: SQLiteDialect())
        return names.contains(name) && triggers.allSatisfy(names.contains)
    }

    /// Finalizes the prepared statement; the connection calls it before it closes its handle.
    func close() {
        sqlite3_finalize(versionStatement)
        versionStatement = nil
        handle = nil
    }

    /// The database's schema version (it moves with every schema change, by any connection), or nil.
    private func schemaVersion(_ db: OpaquePointer) -> Int64? {
        if versionStatement == nil {
            var stmt: OpaquePointer?
            guard sqlite3_prepare_v2(db, "PRAGMA schema_version", -1, &stmt, nil) == SQLITE_OK else { return nil }
            versionStatement = stmt
        }
        guard let stmt = versionStatement else { return nil }
        defer { sqlite3_reset(stmt) }
        return sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : nil
    }

    /// The names of the main database's virtual tables and triggers.
    private static func names(_ db: OpaquePointer) -> Set<String> {
        var stmt: OpaquePointer?
        let sql =
            "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'virtual' "
            + "UNION ALL SELECT name FROM sqlite_schema WHERE type = 'trigger'"
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else { return [] }
        defer { sqlite3_finalize(stmt) }
        var out: Set<String> = []
        while sqlite3_step(stmt) == SQLITE_ROW {
            if let text = sqlite3_column_text(stmt, 0) { out.insert(String(cString: text)) }
        }
        return out
    }
}
