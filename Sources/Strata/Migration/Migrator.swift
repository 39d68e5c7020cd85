// Migrator: creates missing tables and indexes and adds missing columns, never touching data.
import Synchronization

extension Transaction {
    /// Brings the schema up to the models: creates missing tables and indexes, adds missing columns
    /// (filled with the property's default, or NULL for optionals). Nothing is dropped or rewritten.
    ///
    /// The models' associations are followed: `migrate(User.self)` also migrates the models its
    /// associations need (a `belongsTo` target, `hasMany` children, a through model), and tables are
    /// created referenced-first, so the order of `models` does not matter.
    ///
    /// With ``MigrationPolicy/disabled`` it changes nothing and only checks, before any query runs, that every
    /// model maps onto the live schema: tables, columns, types the stored values read and compare as, and
    /// nullability; every mismatch is reported in one error.
    ///
    /// - Throws: ``StrataError/missingReferencedTable(table:column:references:)`` before any change when a
    ///   foreign key references a table that neither exists nor is being migrated;
    ///   ``StrataError/schemaMismatch(table:missing:)`` when migration is disabled and the schema lacks a
    ///   table or column.
    public func migrate(_ models: [any Model.Type], policy: MigrationPolicy? = nil) throws {
        let derived = try Self.derivedSchemas(models)
        let schemas = derived.schemas
        try checkReferencedTables(schemas)
        let policy = policy ?? database.configuration.migration
        if policy == .disabled { try checkMapping(schemas) } else { try checkKeyTypes(schemas) }
        var created: Set<String> = []
        // What `strata_migrations` records: in one statement after the last table where DDL is transactional; where
        // each DDL statement commits, one record a statement, written where it commits with the change.
        var records = AutomaticRecords(ddlCommit: (connection as? any SQLConnection)?.dialect.ddlCommit ?? .none)
        do {
            for (schema, summary) in zip(schemas, derived.createSummaries) {
                let existing = try columns(of: schema.name)
                if policy == .automatic, existing == nil { created.insert(schema.name) }
                try migrate(schema, policy: policy, createSummary: summary, existing: existing, records: &records)
            }
        } catch {
            // The tables changed before the failure are recorded all the same (a caller that catches the error
            // keeps them); in a transaction that rolls back (`Database.migrate`) the records go with them. The
            // failure is what is thrown, even when the records cannot be written after it.
            try? records.write(self)
            throw error
        }
        try records.write(self)
        if policy == .automatic {
            try installChangeNotifications(derived.models.filter { $0.notifiesOtherProcesses })
            try installSearchIndexes(derived.models, created: created)
        }
        try trackHistory(derived.models.filter { $0.tracksHistory }, policy: policy)
    }

    /// Refuses a foreign key to a table that neither exists nor is among `schemas`.
    ///
    /// - Throws: ``StrataError/missingReferencedTable(table:column:references:)``.
    private func checkReferencedTables(_ schemas: [TableSchema]) throws {
        let names = Set(schemas.map(\.name))
        for schema in schemas {
            for fk in schema.foreignKeys where !names.contains(fk.referencedTable) {
                if try columns(of: fk.referencedTable) == nil {
                    throw StrataError.missingReferencedTable(
                        table: schema.name, column: fk.column, references: fk.referencedTable)
                }
            }
        }
    }

    /// Refuses, before any change, a foreign key of a table it creates whose columns and the columns they
    /// reference have two types (a `String` property referencing an `Int64` key): SQLite would keep rows whose key
    /// matches no parent and PostgreSQL cannot build the key, as for a migration step's `createTable`.
    ///
    /// - Throws: ``StrataError/typeMismatch(table:column:detail:)`` naming the referencing column.
    private func checkKeyTypes(_ schemas: [TableSchema]) throws {
        guard schemas.contains(where: { !$0.foreignKeys.isEmpty }), let editor = connection as? any SchemaEditing else {
            return
        }
        var live: DatabaseSchema?
        for schema in schemas where !schema.foreignKeys.isEmpty {
            for key in schema.foreignKeys {
                var parent = schemas.first { $0.name == key.referencedTable }
                if parent == nil {
                    if live == nil { live = try editor.introspect() }
                    parent = live?[table: key.referencedTable]
                }
                guard let parent else { continue }
                do {
                    try Self.checkKeyTypes(
                        key, of: schema.name, columns: schema.columns, parent: parent, editor: editor)
                } catch {
                    // Only tables this migration creates: an existing table's keys are the database's (another
                    // tool's). Looked up only here, so that a migration whose keys match pays nothing for it.
                    if try columns(of: schema.name) == nil { throw error }
                }
            }
        }
    }

    /// What `migrate(_:policy:)` of models derives from the model types alone: the models their associations
    /// need and their tables, referenced first, with checked names.
    struct DerivedSchemas: Sendable {
        /// The models and every model their associations need (``followingAssociations(_:)``).
        let models: [any Model.Type]
        /// Their tables as migrated (``migrationSchema(_:)``), referenced first.
        let schemas: [TableSchema]
        /// What `strata_migrations` records when each of ``schemas`` is created (its `createTable` change's
        /// description), in the same order.
        let createSummaries: [String]
    }

    /// The derived schemas of each list of model types migrated so far. A model's schema, indexes, foreign keys
    /// and associations are static declarations, so they are derived once per list; what a fresh test database
    /// pays for `migrate` is then the statements alone. A list that fails its checks is not kept (it fails again).
    private static let derived = Mutex<[[ObjectIdentifier]: DerivedSchemas]>([:])

    /// The lists kept at most; past it the cache starts again (a program migrates a few lists).
    private static let derivedLimit = 256

    /// ``DerivedSchemas`` for `models`, derived on the first call for this list and kept.
    ///
    /// - Throws: what ``migrationSchema(_:)`` and ``checkIdentifiers(_:)`` throw.
    static func derivedSchemas(_ models: [any Model.Type]) throws -> DerivedSchemas {
        let key = models.map { ObjectIdentifier($0) }
        if let kept = derived.withLock({ $0[key] }) { return kept }
        let followed = followingAssociations(models)
        let schemas = referencedFirst(try followed.map(migrationSchema))
        try checkIdentifiers(schemas)
        let out = DerivedSchemas(
            models: followed, schemas: schemas,
            createSummaries: schemas.map { SchemaChange.createTable($0).description })
        derived.withLock {
            if $0.count >= derivedLimit { $0.removeAll() }
            $0[key] = out
        }
        return out
    }

    /// Indexes the search document of each searchable model where the dialect can (a GIN index on PostgreSQL, an
    /// FTS5 table kept by triggers on SQLite, filled from the rows already there when it or the table is new: see
    /// ``SQLRenderer/searchIndexSQL(table:column:dialect:)``).
    private func installSearchIndexes(_ models: [any Model.Type], created: Set<String>) throws {
        guard let dialect = (connection as? any SQLConnection)?.dialect else { return }
        func document<M: Model>(_ m: M.Type) throws(StrataError) -> String? {
            try M.searchColumns().map { M.schema.columns[$0.document].name }
        }
        for model in models {
            guard let column = try document(model) else { continue }
            let table = model.schema.name
            // An index a match cannot read yet (new, or missing a trigger, which may have let writes past it) is
            // filled from the rows the table holds; one that outlived a dropped table of the same name is emptied
            // when the table is created again.
            let fill =
                dialect.fullTextIndex != nil
                && (created.contains(table) || dialect.fullTextIndexTable(table: table, column: column) == nil)
            for sql in try SQLRenderer.searchIndexSQL(table: table, column: column, dialect: dialect) {
                try unsafeRawExecute(sql)
            }
            if fill, let sql = try SQLRenderer.fullTextIndexFillSQL(table: table, column: column, dialect: dialect) {
                try unsafeRawExecute(sql)
            }
        }
    }

    /// Creates the change history's tables (unless migration is disabled, when they must exist) and records the
    /// writes of these models' tables from now on.
    private func trackHistory(_ models: [any Model.Type], policy: MigrationPolicy) throws {
        guard !models.isEmpty else { return }
        if policy == .disabled {
            for table in [HistoryLog.table, HistoryLog.clock] where try columns(of: table) == nil {
                throw StrataError.schemaMismatch(table: table, missing: [])
            }
        } else if (connection as? any SQLConnection)?.dialect.transactionalDDL == false {
            // Each DDL statement commits the open transaction (MariaDB), and with it any savepoint: none is taken.
            try HistoryLog.ensureTables(self)
        } else {
            try savepoint { try HistoryLog.ensureTables($0) }
        }
        for model in models {
            guard let pk = model.schema.primaryKeyIndex else {
                throw StrataError.invalidArgument(
                    model.modelName, reason: "a model that tracks history needs a primary key")
            }
            database.history.track(model.schema.name, key: model.schema.columns[pk].name)
        }
    }

    /// Makes commits to these models' tables notify other processes, where the dialect can
    /// (``Dialect/changeNotificationSQL(table:)``).
    private func installChangeNotifications(_ models: [any Model.Type]) throws {
        guard !models.isEmpty, let dialect = (connection as? any SQLConnection)?.dialect else { return }
        for model in models {
            for sql in try dialect.changeNotificationSQL(table: model.schema.name) { try unsafeRawExecute(sql) }
        }
    }

    /// The longest table, column or index name any driver accepts: PostgreSQL's 63 bytes (it would silently
    /// truncate longer names), enforced on every driver so a schema that works on one works on all.
    static let maxIdentifierBytes = 63

    /// Refuses, before any DDL, names PostgreSQL would truncate and names SQLite would confuse: tables of one
    /// migration, or columns of one table, that differ only in letter case (SQLite ignores case even when
    /// quoted; PostgreSQL and the memory driver do not).
    static func checkIdentifiers(_ schemas: [TableSchema]) throws {
        func checkLength(_ name: String) throws {
            if name.utf8.count > maxIdentifierBytes {
                throw StrataError.invalidIdentifier(
                    name, reason: "longer than \(maxIdentifierBytes) bytes (PostgreSQL's limit, kept on every driver)")
            }
        }
        func checkCase(_ names: [String], _ what: String) throws {
            var seen: [String: String] = [:]
            for name in names {
                let folded = name.lowercased()
                if let other = seen[folded], other != name {
                    throw StrataError.invalidIdentifier(
                        name,
                        reason: "differs from \(what) '\(other)' only in letter case, which SQLite treats as one name")
                }
                seen[folded] = name
            }
        }
        try checkCase(schemas.map(\.name), "table")
        for schema in schemas {
            try checkLength(schema.name)
            try checkCase(schema.columnNames, "column")
            for column in schema.columnNames { try checkLength(column) }
        }
    }

    /// The models and, transitively, every model their associations need; each table once, first seen first.
    static func followingAssociations(_ models: [any Model.Type]) -> [any Model.Type] {
        var seen = Set<String>()
        var out: [any Model.Type] = []
        var queue = models[...]
        while let model = queue.popFirst() {
            guard seen.insert(model.schema.name).inserted else { continue }
            out.append(model)
            queue += model.associations.flatMap { $0.relatedModels }
        }
        return out
    }

    /// The model's table with its declared indexes, the foreign keys of its own and its associations, and its
    /// generated columns' expressions.
    ///
    /// - Throws: ``StrataError/generatedColumn(model:column:reason:)`` for a wrong generated column;
    ///   ``StrataError/invalidValue(table:column:reason:)`` for a database default on a column it cannot fill.
    static func migrationSchema(_ model: any Model.Type) throws(StrataError) -> TableSchema {
        func generating<M: Model>(_ m: M.Type) throws(StrataError) -> TableSchema {
            let schema = try declaredSchema(m).generating(m)
            try schema.checkDatabaseDefaults(model: M.modelName)
            return schema
        }
        return try generating(model)
    }

    /// ``migrationSchema(_:)`` where nothing can throw (a plan, a step's `createTable(for:)`): a wrong generated
    /// column keeps no expression, and rendering its DDL throws ``StrataError/generatedColumn(model:column:reason:)``.
    static func plannedSchema(_ model: any Model.Type) -> TableSchema {
        (try? migrationSchema(model)) ?? declaredSchema(model)
    }

    /// The model's table with its declared indexes and the foreign keys of its own and its associations.
    static func declaredSchema(_ model: any Model.Type) -> TableSchema {
        var schema = model.schema
        schema.indexes += model.indexes
        for fk in model.foreignKeys + model.associations.flatMap(\.foreignKeys)
        where !schema.foreignKeys.contains(where: { $0.column == fk.column }) {
            schema.foreignKeys.append(fk)
        }
        return schema
    }

    /// The schemas ordered so a table comes after the tables it references (stable; a cycle keeps the given
    /// order for its members, and a self-reference is no constraint).
    static func referencedFirst(_ schemas: [TableSchema]) -> [TableSchema] {
        let names = Set(schemas.map(\.name))
        var placed = Set<String>()
        var remaining = schemas
        var out: [TableSchema] = []
        while !remaining.isEmpty {
            let ready = remaining.firstIndex { s in
                s.foreignKeys.allSatisfy {
                    $0.referencedTable == s.name || !names.contains($0.referencedTable)
                        || placed.contains($0.referencedTable)
                }
            }
            let next = remaining.remove(at: ready ?? 0)
            placed.insert(next.name)
            out.append(next)
        }
        return out
    }

    /// The column names of a table, or nil when it does not exist.
    public func columns(of table: String) throws -> [String]? {
        try checkOpen()
        return try connection.columns(of: table)
    }

    /// Migrates one table schema (see ``migrate(_:policy:)``).
    public func migrate(_ schema: TableSchema, policy: MigrationPolicy) throws {
        try checkReferencedTables([schema])
        if policy != .disabled { try checkKeyTypes([schema]) }
        var records = AutomaticRecords(
            ddlCommit: (connection as? any SQLConnection)?.dialect.ddlCommit ?? .none, oneTable: true)
        try migrate(
            schema, policy: policy, createSummary: nil, existing: try columns(of: schema.name), records: &records)
    }

    /// `migrate(_:policy:)` of one table whose live columns are `existing` (nil: no such table), with the log's
    /// line for the table's creation when it was derived before (``DerivedSchemas/createSummaries``). What it
    /// changed goes to `records`.
    func migrate(
        _ schema: TableSchema, policy: MigrationPolicy, createSummary: String?, existing: [String]?,
        records: inout AutomaticRecords
    ) throws {
        if policy == .disabled {
            guard let existing else { throw StrataError.schemaMismatch(table: schema.name, missing: ["the table"]) }
            let missing = schema.columnNames.filter { !existing.contains($0) }
            if !missing.isEmpty {
                throw StrataError.schemaMismatch(table: schema.name, missing: missing.map { "column \($0)" })
            }
            return
        }
        if let existing {
            let added = schema.columns.filter { !existing.contains($0.name) }
            // Checked before any DDL, so a refused migration changes nothing.
            if let column = added.first(where: {
                !$0.isNullable && $0.backfill == nil && !$0.isGenerated && $0.databaseDefault == nil
            }) {
                throw StrataError.schemaMismatch(
                    table: schema.name,
                    missing: [
                        "column \(column.name) (non-optional without a default: give the property a default "
                            + "value or make it optional, so existing rows can be filled)"
                    ])
            }
            var summary: [String] = []
            for column in added {
                let change = SchemaChange.addColumn(table: schema.name, column).description
                try records.statement(schema.name, change, in: self) {
                    // A generated column, or one whose default is an expression, goes through `apply`: SQLite
                    // rebuilds the table for it (in a migration step, with foreign keys off; elsewhere that is
                    // `unsupported`).
                    if column.isGenerated || column.databaseDefault != nil {
                        try apply(.addColumn(table: schema.name, column))
                    } else {
                        _ = try execute(.addColumn(table: schema.name, column))
                    }
                }
                summary.append(change)
            }
            if !added.isEmpty { try records.add(schema.name, summary: summary.joined(separator: "\n"), in: self) }
        } else {
            let change = createSummary ?? SchemaChange.createTable(schema).description
            try records.statement(schema.name, change, in: self) { _ = try execute(.createTable(schema)) }
            try records.add(schema.name, summary: change, in: self)
        }
        for index in schema.indexes {
            _ = try execute(.createIndex(table: schema.name, index))
        }
    }
}

/// The `strata_migrations` rows of one automatic migration, written where they commit exactly when the changes they
/// describe do (see ``DDLCommit``):
///
/// - DDL in the transaction: one row a table changed (its creation, or its added columns), written in one statement
///   by ``write(_:)`` after the last table (or at once for a single table's migration).
/// - A commit before and after each DDL statement (MariaDB): one row a statement, written right after it, so the
///   next statement's commit takes it along even when that statement fails.
/// - A commit after each DDL statement that succeeded (CockroachDB): one row a statement, written right before it,
///   so it commits with the statement or not at all.
struct AutomaticRecords {
    /// Where the backend commits around DDL.
    let ddlCommit: DDLCommit
    /// Whether the rows are written as each table's are added (a single table's migration).
    let oneTable: Bool
    /// The rows not written yet, in the order the tables changed.
    private var pending: [MigrationLog.Entry] = []

    init(ddlCommit: DDLCommit, oneTable: Bool = false) {
        self.ddlCommit = ddlCommit
        self.oneTable = oneTable
    }

    /// Runs one DDL statement of `table` that makes the change `summary` describes; where each statement commits,
    /// its row is written on the side of the statement that commits with it.
    func statement(_ table: String, _ summary: String, in tx: Transaction, _ run: () throws -> Void) throws {
        let entry = MigrationLog.Entry(kind: "automatic", name: table, checksum: "", summary: summary)
        switch ddlCommit {
        case .none: try run()
        case .beforeAndAfter:
            try run()
            try MigrationLog.record(tx, [entry])
        case .after:
            try MigrationLog.record(tx, [entry])
            try run()
        }
    }

    /// Records that `table` changed as `summary` describes (one line a change), where DDL is transactional (a
    /// statement's own row was written by ``statement(_:_:in:_:)`` otherwise).
    mutating func add(_ table: String, summary: String, in tx: Transaction) throws {
        guard ddlCommit == .none else { return }
        pending.append(MigrationLog.Entry(kind: "automatic", name: table, checksum: "", summary: summary))
        if oneTable { try write(tx) }
    }

    /// Writes the pending rows (creating the table first if needed), oldest first.
    mutating func write(_ tx: Transaction) throws {
        guard !pending.isEmpty else { return }
        try MigrationLog.record(tx, pending)
        pending.removeAll()
    }
}

extension Database {
    /// Migrates the models' tables in one transaction (see ``Transaction/migrate(_:policy:)-([Model.],_)``).
    nonisolated(nonsending)
        public func migrate(_ models: any Model.Type...) async throws
    {
        try await transaction { tx in try tx.migrate(models) }
    }

    /// Drops the models' tables that exist, together (for tests and tools; it destroys data).
    ///
    /// The tables are dropped in one step, in any order they are listed: a table after the listed tables that
    /// reference it. A table that a table not listed references is refused on every backend, before any table is
    /// dropped (SQLite would first delete its rows, cascading into the other table's, where PostgreSQL refuses).
    ///
    /// ```swift
    /// try await db.dropTables(Post.self, Comment.self)  // comments first: they reference posts
    /// ```
    ///
    /// - Throws: ``StrataError/tableReferenced(_:by:)`` (an `invalidQuery`) naming the table and a table not listed
    ///   that references it; the database's errors. After a failure every table and row is as it was (MariaDB, whose
    ///   DDL commits each statement, keeps the tables dropped before an error of the database itself).
    nonisolated(nonsending)
        public func dropTables(_ models: any Model.Type...) async throws
    {
        try await withConnection { tx in try tx.dropTables(models.map { $0.schema.name }) }
    }
}

extension Model {
    /// No indexes besides the table's.
    ///
    /// ```swift
    /// static var indexes: [Index] { [.on(\User.email, unique: true)] }
    /// ```
    public static var indexes: [Index] { [] }

    /// No foreign keys.
    public static var foreignKeys: [ForeignKey] { [] }
}

extension Index {
    /// An index on model columns named by key paths.
    public static func on<M: Model>(_ keyPaths: PartialKeyPath<M>..., unique: Bool = false) -> Index {
        Index(columns: keyPaths.map { M.columnName(for: $0) ?? "\($0)" }, unique: unique)
    }
}
