// Model+Upsert: insert-or-update (or insert-or-keep) of new models on a declared unique index, handing back ids.
import Foundation

/// What an upsert does with a stored row whose unique key a new model repeats.
///
/// ```swift
/// try await user.upsert(on: db, onConflict: \.email)                          // update every column
/// try await user.upsert(on: db, onConflict: \.email, do: .update(\.name))     // update `name` only
/// try await User.upsertAll(&users, on: db, onConflict: [\.email], do: .nothing) // keep the stored row
/// ```
public struct UpsertAction<M: Model>: Sendable {
    enum Kind: Sendable, Hashable {
        case updateAll
        case update([String])
        case nothing
    }

    let kind: Result<Kind, StrataError>

    /// Every column the INSERT writes takes the new model's value, but the target's, a `@CreatedAt` (the row keeps
    /// its creation time) and a `@Version` (incremented). The default.
    public static var updateAll: Self { Self(kind: .success(.updateAll)) }

    /// The listed columns take the new model's values; a `@UpdatedAt` is stamped and a `@Version` incremented too.
    public static func update(_ keyPaths: PartialKeyPath<M>...) -> Self {
        var names: [String] = []
        for kp in keyPaths {
            guard let name = M.columnName(for: kp) else {
                return Self(kind: .failure(.unknownColumn(model: M.modelName, column: "\(kp)")))
            }
            names.append(name)
        }
        return Self(kind: .success(.update(names)))
    }

    /// The stored row is kept as it is (`DO NOTHING`); the model still gets its id.
    public static var nothing: Self { Self(kind: .success(.nothing)) }
}

extension Model {
    /// Inserts the model, or, when a stored row has the same values in the `onConflict` columns (which must be
    /// the columns of a unique index in ``Model/indexes``), updates that row or keeps it, as `action` says.
    /// Either way the model's `id` becomes the id of the row written or kept.
    ///
    /// ```swift
    /// var user = User(name: "Alex", email: "alex@example.com")
    /// try user.upsert(tx, onConflict: \.email)   // updates every column of the stored row
    /// ```
    ///
    /// Rules, the same on every driver:
    /// - the target must be a declared unique index, or the call throws ``StrataError/invalidQuery(_:)`` naming
    ///   the model and the columns before any SQL is sent;
    /// - a key the database assigns (`Int64`): the model must be new (its id nil); the INSERT leaves the key out;
    /// - a key the app gives (`String`, `UUID`): the INSERT writes it (a nil `UUID` is generated, a nil `String` is
    ///   ``StrataError/invalidValue(table:column:reason:)``), and the key itself may be the target
    ///   (`onConflict: \.id`, as Rails' and GRDB's `upsert` do); an update never rewrites a stored row's key, so on
    ///   another target the model takes the stored row's key;
    /// - validations run, but for those that read the database (uniqueness: the conflict is how the upsert
    ///   handles it); lifecycle callbacks do not run (the database, not the model, decides between insert and
    ///   update), as for ``insertAll(_:_:)``;
    /// - `@CreatedAt` and `@UpdatedAt` are stamped on the model; an updated row keeps its `@CreatedAt` and gets
    ///   the new `@UpdatedAt`; a `@Version` is written as the model holds it on insert and incremented on update;
    ///   a kept row is not touched at all;
    /// - a target column that is NULL never conflicts (unique indexes let NULLs repeat): the model is inserted;
    /// - afterwards the model holds its id but is not marked as read from the database (the stored row may hold
    ///   other values): a later `save` writes every column; ``reload(_:)`` it to read the row;
    /// - a model whose insert (or upsert) a rollback undid is new again, as for `save`: an id that write assigned
    ///   (database-assigned or generated) is dropped, so the upsert inserts under a new one; a key the app gave
    ///   stays.
    ///
    /// ```swift
    /// var account = Account(email: "ann@example.com", name: "Ann")
    /// try account.upsert(tx, onConflict: \.email, do: .update(\.name))
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// INSERT INTO "account" ("email", "name") VALUES (?, ?) ON CONFLICT ("email") DO UPDATE SET "name" = excluded."name" RETURNING "id"
    /// -- PostgreSQL
    /// INSERT INTO "account" ("email", "name") VALUES ($1, $2) ON CONFLICT ("email") DO UPDATE SET "name" = excluded."name" RETURNING "id"
    /// ```
    ///
    /// A key the app gives as the target (the update sets every other column, never the key):
    ///
    /// ```swift
    /// var label = Label(id: "greeting", text: "Hello")
    /// try label.upsert(tx, onConflict: \.id)
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// INSERT INTO "label" ("id", "text") VALUES (?, ?) ON CONFLICT ("id") DO UPDATE SET "text" = excluded."text" RETURNING "id"
    /// -- PostgreSQL
    /// INSERT INTO "label" ("id", "text") VALUES ($1, $2) ON CONFLICT ("id") DO UPDATE SET "text" = excluded."text" RETURNING "id"
    /// ```
    ///
    /// - Parameters:
    ///   - tx: the transaction to write in.
    ///   - target: the columns of a declared unique index whose values decide the conflict.
    ///   - action: what to do with a conflicting stored row: ``UpsertAction/updateAll`` (the default),
    ///     `.update(…)` of some columns, or ``UpsertAction/nothing``.
    /// - Throws: ``StrataError/invalidQuery(_:)``, ``StrataError/unknownColumn(model:column:)``,
    ///   ``StrataError/validationFailed(_:)``, and the constraint errors of the write (a conflict on another
    ///   unique index is a ``StrataError/uniqueViolation(table:columns:)``).
    public mutating func upsert(
        _ tx: Transaction, onConflict target: PartialKeyPath<Self>..., do action: UpsertAction<Self> = .updateAll
    ) throws {
        var one = [self]
        try Self.upsertAll(&one, tx, onConflict: target, do: action)
        self = one[0]
    }

    /// Upserts the model in its own connection lease (see ``upsert(_:onConflict:do:)``).
    nonisolated(nonsending)
        public mutating func upsert(
            on db: Database, onConflict target: PartialKeyPath<Self>..., do action: UpsertAction<Self> = .updateAll
        ) async throws
    {
        var one = [self]
        try await db.withConnection { tx in try Self.upsertAll(&one, tx, onConflict: target, do: action) }
        self = one[0]
    }

    /// Upserts many new models with multi-row `INSERT … ON CONFLICT` statements, chunked under the bind limit, and
    /// sets each model's id to its row's (see ``upsert(_:onConflict:do:)`` for the rules).
    ///
    /// Two models with the same non-NULL target values are refused with ``StrataError/invalidQuery(_:)`` when the
    /// action updates (PostgreSQL cannot update one row twice in a statement); with ``UpsertAction/nothing`` the
    /// second one gets the first one's id.
    public static func upsertAll(
        _ models: inout [Self], _ tx: Transaction, onConflict target: [PartialKeyPath<Self>],
        do action: UpsertAction<Self> = .updateAll
    ) throws {
        guard !models.isEmpty else { return }
        try checkKeyring(tx)
        let plan = try UpsertPlan<Self>(target: target, action: action)
        var validations = Validations<Self>()
        Self.validations(&validations)
        if !validations.rules.isEmpty {
            for m in models {
                let failures = try validations.failures(m, nil)
                if !failures.isEmpty { throw StrataError.validationFailed(failures) }
            }
        }
        var copy = models
        for i in copy.indices where copy[i]._persistence != nil { copy[i].forgetUndoneInsert() }
        // One pass over the ids (each read of a generic model's optional id costs about 1,400 instructions here).
        let keyWasNil = idsAreNil(copy)
        if ID.isAssignedByDatabase {
            if keyWasNil.contains(false) {
                throw StrataError.invalidQuery(
                    "upsert of \(modelName) takes new models only; save models that have an id")
            }
        } else {
            try plan.assignKeys(&copy)
        }
        try plan.stampRoles(&copy)
        if case .update = plan.onConflict.action { try plan.refuseRepeatedKeys(copy) }
        let width = plan.columns.count
        let perStatement = Swift.max(1, tx.connection.maxBindParameters / Swift.max(1, width))
        // The models passed in, not captured: a closure kept in a constant captured `copy` in a box, whose every
        // access below was checked for exclusivity at run time (three a model).
        func writeAll(_ copy: inout [Self], _ tx: Transaction) throws {
            var start = 0
            while start < copy.count {
                let end = Swift.min(start + perStatement, copy.count)
                try plan.write(&copy, start..<end, tx)
                start = end
            }
        }
        // All or nothing: several statements (or a kept row read back, or the read-back of what the database
        // computed: one that fails undoes the rows) run in one savepoint.
        let readsBack = !schema.storage.readBackColumns.isEmpty
        if readsBack || copy.count > perStatement || plan.onConflict.action == .nothing {
            try tx.atomic { tx in
                try writeAll(&copy, tx)
                if readsBack { for i in copy.indices { try copy[i].readBackComputedColumns(tx) } }
            }
        } else {
            try writeAll(&copy, tx)
        }
        if let scope = tx.undoScope {
            // Remembered even though the model is not marked stored: after a rollback, an id the upsert assigned
            // may be another row's (SQLite and memory reuse it), and a save by that id would update that row.
            for i in copy.indices {
                if copy[i]._persistence == nil { copy[i]._persistence = PersistenceState() }
                copy[i]._persistence.recordInsert(scope, assignedKey: keyWasNil[i])
            }
        }
        models = copy
    }

    /// Upserts many new models in one transaction (see ``upsertAll(_:_:onConflict:do:)``).
    nonisolated(nonsending)
        public static func upsertAll(
            _ models: inout [Self], on db: Database, onConflict target: [PartialKeyPath<Self>],
            do action: UpsertAction<Self> = .updateAll
        ) async throws
    {
        var copy = models
        try await db.transaction { tx in try upsertAll(&copy, tx, onConflict: target, do: action) }
        models = copy
    }
}

/// An upsert worked out for a model: its conflict clause, checked against the declared indexes.
struct UpsertPlan<M: Model> {
    let onConflict: OnConflict
    /// The positions of the target columns in the model's schema.
    let targetPositions: [Int]
    let pk: Int
    /// The key's columns: one, or those of a composite key (see ``CompositeKey``), whose models keep their own key.
    let keyColumns: [String]
    /// The columns the INSERT writes: all but the key when the database assigns it, else all (the key included).
    let columns: [String]

    /// - Throws: ``StrataError/unknownColumn(model:column:)``, ``StrataError/invalidQuery(_:)`` for a target that
    ///   is not exactly the columns of a unique index the model declares (or, for a key the app gives, the key).
    init(target keyPaths: [PartialKeyPath<M>], action: UpsertAction<M>) throws(StrataError) {
        let schema = M.schema
        guard let pk = schema.primaryKeyIndex ?? (schema.hasCompositeKey ? schema.primaryKeyIndexes[0] : nil) else {
            throw .invalidQuery("\(M.modelName) has no primary key")
        }
        self.pk = pk
        keyColumns = schema.primaryKeyColumnNames
        // A UUID, String or composite key is the model's own: the INSERT writes it, and it may be the conflict target.
        let ownKey = !M.ID.isAssignedByDatabase
        columns = schema.writtenColumnNames(includingKey: ownKey)
        var target: [String] = []
        for kp in keyPaths { target.append(try M.column(kp)) }
        // A composite key is the default target: `upsert(tx)` inserts the model or updates the row with its key.
        if target.isEmpty && schema.hasCompositeKey { target = keyColumns }
        let described = "\(M.modelName)(\(target.joined(separator: ", ")))"
        guard !target.isEmpty, Set(target).count == target.count else {
            throw .invalidQuery("upsert on \(described): name each conflict column once")
        }
        let onKey = Set(target) == Set(keyColumns) && target.count == keyColumns.count
        guard
            (ownKey && onKey)
                || M.indexes.contains(where: {
                    $0.isUnique && Set($0.columns) == Set(target) && $0.columns.count == target.count
                })
        else {
            throw .invalidQuery(
                "upsert on \(described): the conflict target must be a unique index declared in \(M.modelName).indexes"
                    + (ownKey ? " or the primary key" : ""))
        }
        targetPositions = target.compactMap { schema.index(of: $0) }
        let kind: UpsertAction<M>.Kind
        switch action.kind {
        case .success(let k): kind = k
        case .failure(let error): throw error
        }
        let created = schema.column(withRole: .createdAt)?.name
        let updated = schema.column(withRole: .updatedAt)?.name
        let version = schema.column(withRole: .version)?.name
        var set: [String]
        switch kind {
        case .nothing:
            onConflict = OnConflict(target: target, action: .nothing)
            return
        case .updateAll:
            set = schema.insertColumnNames.filter { $0 != created && $0 != version }
        case .update(let names):
            set = names.filter { $0 != version }
            if let generated = set.first(where: { schema.column(named: $0)?.isGenerated == true }) {
                throw .generatedColumn(
                    model: M.modelName, column: generated,
                    reason: "cannot be an upsert's set column: the database computes it")
            }
            if let updated, !set.contains(updated) { set.append(updated) }
            if let search = try M.searchColumns(),
                search.sources.contains(where: { set.contains(schema.columns[$0].name) })
            {
                // The document is made from the model's values: the row gets them all, or the document would name
                // words the row does not hold.
                if let missing = search.sources.first(where: { !set.contains(schema.columns[$0].name) }) {
                    throw .invalidSearch(
                        model: M.modelName, part: schema.columns[missing].name,
                        reason: "is searched with a column this upsert updates: update all searched columns or none")
                }
                let document = schema.columns[search.document].name
                if !set.contains(document) { set.append(document) }
            }
        }
        let keys = keyColumns
        set.removeAll { target.contains($0) || keys.contains($0) }
        let increment = version.map { [$0] } ?? []
        onConflict = OnConflict(
            target: target,
            action: set.isEmpty && increment.isEmpty ? .nothing : .update(set: set, increment: increment))
    }

    /// Gives each model whose key the app assigns and that has none a generated one (a `UUID`); a `String` key
    /// must be set.
    ///
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` for a nil key that cannot be generated.
    func assignKeys(_ models: inout [M]) throws(StrataError) {
        for i in models.indices where models[i].id == nil {
            guard let key = M.ID.generated() else {
                throw .invalidValue(
                    table: M.schema.name, column: M.schema.columns[pk].name,
                    reason: "\(M.modelName)'s \(M.ID.self) key is nil: set it before upsert")
            }
            models[i].id = key
        }
    }

    /// Stamps `@CreatedAt` and `@UpdatedAt` on every model with one instant.
    func stampRoles(_ models: inout [M]) throws {
        let schema = M.schema
        guard schema.hasColumnRoles else { return }
        let now = DatabaseValue.roundedToMicroseconds(Date())
        for role in [ColumnRole.createdAt, .updatedAt] {
            guard let column = schema.column(withRole: role)?.name else { continue }
            switch M.keyPath(forColumn: column) {
            case let kp as WritableKeyPath<M, Date>: for i in models.indices { models[i][keyPath: kp] = now }
            case let kp as WritableKeyPath<M, Date?>: for i in models.indices { models[i][keyPath: kp] = now }
            default: throw StrataError.invalidQuery("\(M.modelName).\(column) is a timestamp but not a 'var' Date")
            }
        }
    }

    /// The target values of a model as the unique index compares them (text by its bytes, dates to the
    /// microsecond), or nil when one is NULL (NULLs never conflict).
    func key(_ values: [DatabaseValue]) -> [DatabaseValue]? {
        var out: [DatabaseValue] = []
        for p in targetPositions {
            switch values[p] {
            case .null: return nil
            case .text(let s): out.append(.blob(Data(s.utf8)))
            case .date(let d): out.append(.date(DatabaseValue.roundedToMicroseconds(d)))
            case let v: out.append(v)
            }
        }
        return out
    }

    /// - Throws: ``StrataError/invalidQuery(_:)`` when two models repeat one key.
    ///
    /// A one-column target (the usual case) is checked through a set of its values compared as the index compares
    /// them (``ConflictKeyPart``), with no array or `Data` made per model; a composite one through ``key(_:)``.
    func refuseRepeatedKeys(_ models: [M]) throws(StrataError) {
        if targetPositions.count == 1 {
            let p = targetPositions[0]
            var seen = Set<ConflictKeyPart>(minimumCapacity: models.count)
            for m in models {
                guard let part = ConflictKeyPart(m.databaseValues[p]) else { continue }
                if !seen.insert(part).inserted { throw repeatedKey() }
            }
            return
        }
        var seen = Set<[DatabaseValue]>()
        for m in models {
            guard let key = key(m.databaseValues) else { continue }
            if !seen.insert(key).inserted { throw repeatedKey() }
        }
    }

    private func repeatedKey() -> StrataError {
        .invalidQuery(
            "upsert of \(M.modelName): two models have the same \(onConflict.target.joined(separator: ", ")); "
                + "one statement cannot update a row twice")
    }

    /// Writes one chunk and sets its models' ids.
    ///
    /// A chunk of a database-assigned key runs as a template of its row count, whatever that count (the last chunk
    /// of a call is usually short, and a call of fewer rows than a chunk is all short chunk): a connection renders
    /// its SQL (tens of thousands of placeholders) once per row count, and the values are bound in one flat array.
    func write(_ models: inout [M], _ range: Range<Int>, _ tx: Transaction) throws {
        let schema = M.schema
        let ownKey = !M.ID.isAssignedByDatabase
        if schema.hasCompositeKey {
            var rows: [[DatabaseValue]] = []
            rows.reserveCapacity(range.count)
            for i in range {
                rows.append(schema.writtenValues(try models[i].storedValues(tx), includingKey: ownKey))
            }
            // Each model holds its own key, which the INSERT writes: nothing to read back.
            _ = try tx.execute(
                .insert(
                    Insert(
                        table: schema.name, columns: columns, rows: rows, onConflict: onConflict,
                        defaults: schema.databaseDefaults)))
            return
        }
        // The returned keys are collected as values and read as the model's key type after the statement, in one
        // loop: a generic array or optional touched in a closure called per row looked up its metadata at run time
        // on every call (two lookups a row, about 650 instructions).
        var returned: [DatabaseValue] = []
        returned.reserveCapacity(range.count)
        let columns = self.columns
        let onConflict = self.onConflict
        let returning = schema.columns[pk].name
        func insert(_ rows: [[DatabaseValue]]) -> Statement {
            .insert(
                Insert(
                    table: schema.name, columns: columns, rows: rows, returning: returning, onConflict: onConflict,
                    defaults: schema.databaseDefaults))
        }
        if ownKey {
            var rows: [[DatabaseValue]] = []
            rows.reserveCapacity(range.count)
            for i in range {
                rows.append(schema.writtenValues(try models[i].storedValues(tx), includingKey: true))
            }
            _ = try tx.execute(insert(rows)) { r in returned.append(r.value(at: 0)) }
        } else {
            // The template's columns leave the key out; its rows are only built when the connection renders.
            let width = columns.count
            var binds: [DatabaseValue] = []
            binds.reserveCapacity(range.count * width)
            // Through the buffer, in one call: `models[i]` on a generic array looked up the array's metadata at run
            // time for each model.
            try models.withUnsafeBufferPointer { models throws(StrataError) in
                for i in range {
                    binds.append(contentsOf: schema.writtenValues(try models[i].storedValues(tx), includingKey: false))
                }
            }
            _ = try tx.execute(
                template: StatementTemplate(
                    M.self, .upsertRowsReturningKey(range.count, onConflict), table: schema.name),
                binds: binds,
                statement: {
                    guard width > 0 else { return insert(Array(repeating: [], count: range.count)) }
                    return insert(stride(from: 0, to: binds.count, by: width).map { Array(binds[$0..<$0 + width]) })
                }, onRow: { r in returned.append(r.value(at: 0)) })
        }
        let ids = M.keys(from: returned)
        if ids.count == range.count {
            models.withUnsafeMutableBufferPointer { models in
                for (offset, i) in range.enumerated() { models[i].id = ids[offset] }
            }
            return
        }
        guard case .nothing = onConflict.action, ids.count < range.count else {
            throw StrataError.database(code: 0, message: "upsert returned \(ids.count) ids for \(range.count) rows")
        }
        try resolveKept(&models, range, returned: ids, tx)
    }

    /// `DO NOTHING … RETURNING` returns no row for a kept one: reads the ids of the chunk's keys back, and hands the
    /// returned ids no key claims to the models whose key has a NULL (always inserted), in order.
    private func resolveKept(_ models: inout [M], _ range: Range<Int>, returned: [M.ID], _ tx: Transaction) throws {
        let schema = M.schema
        var keyed: [(index: Int, key: [DatabaseValue])] = []
        var keyValues: [[DatabaseValue]] = []
        var unkeyed: [Int] = []
        for i in range {
            let values = models[i].databaseValues
            guard let key = key(values) else {
                unkeyed.append(i)
                continue
            }
            keyed.append((i, key))
            keyValues.append(targetPositions.map { values[$0] })
        }
        var idByKey: [[DatabaseValue]: M.ID] = [:]
        // One IN list (bound as one array where the dialect can) for a one-column key; groups of OR'ed ANDs, kept
        // short for SQLite's expression depth, for a composite one.
        var filters: [SQLExpression] = []
        if targetPositions.count == 1, !keyValues.isEmpty {
            filters.append(.inList(.column(schema.columns[targetPositions[0]].name), keyValues.map { $0[0] }))
        } else {
            var start = 0
            while start < keyValues.count {
                let group = keyValues[start..<Swift.min(start + 100, keyValues.count)]
                filters.append(
                    .or(
                        group.map { values in
                            .and(
                                zip(targetPositions, values).map { p, v in
                                    .compare(.equal, .column(schema.columns[p].name), .value(v))
                                })
                        }))
                start += 100
            }
        }
        for filter in filters {
            for m in try M.query(on: tx).withDeleted().where(Condition(filter)).all() {
                if let id = m.id, let key = key(m.databaseValues) { idByKey[key] = id }
            }
        }
        var claimed = Set<M.ID>()
        for (i, key) in keyed {
            guard let id = idByKey[key] else {
                throw StrataError.database(code: 0, message: "upsert of \(M.modelName) found no row for a kept model")
            }
            models[i].id = id
            claimed.insert(id)
        }
        let rest = returned.filter { !claimed.contains($0) }
        guard rest.count == unkeyed.count else {
            throw StrataError.database(code: 0, message: "upsert of \(M.modelName) returned ids it cannot place")
        }
        for (n, i) in unkeyed.enumerated() { models[i].id = rest[n] }
    }
}
