// Model+Persistence: save (insert or update of changed columns), delete, find and reload.
import Foundation

extension Model {
    /// Inserts the model when it has no id, else updates the columns assigned since it was fetched or
    /// last saved (every column when that is unknown: a model built with an explicit id, or a
    /// hand-written model that does not track its state).
    ///
    /// Runs the model's validations first and writes nothing when one fails.
    ///
    /// A model that was fetched or saved is never inserted again behind the caller's back: when its row was
    /// deleted meanwhile (by another connection, or a bulk delete), saving it throws
    /// ``StrataError/recordNotFound(model:id:)`` and writes nothing, unless `insertIfMissing` asks to insert
    /// it again with its id. A model built with an explicit id and never fetched is updated when its row
    /// exists and inserted otherwise.
    ///
    /// A model with lifecycle callbacks (see ``Model/hasLifecycleCallbacks``) runs them around the write, all inside one
    /// savepoint: `willValidate`, validation, `didValidate`, `willSave`, `willCreate` or `willUpdate`, the write,
    /// `didCreate` or `didUpdate`, `didSave`. A callback that throws undoes everything the save and its
    /// callbacks wrote.
    ///
    /// A save that throws leaves the model exactly as it was (id, version, timestamps, change marks, whatever a
    /// callback changed) and the database too, so fixing the model and saving again writes it.
    ///
    /// Inside a transaction, a save is only as durable as the transaction: when the transaction, or a savepoint
    /// around the save, rolls back, the model's next `save` knows. A model whose insert was undone is new again:
    /// an id the database assigned is dropped (the next save inserts a new row, never updating one that another
    /// writer may now own under that id), and `delete` or `reload` throw ``StrataError/notPersisted(model:)``.
    /// A model whose update was undone gets back the version it carried, and its next save writes every column.
    /// A model read inside a transaction or savepoint that rolled back (or that carried its database id into a write
    /// that was undone) may name a row that is gone, whose id SQLite and memory give to the next insert: its save,
    /// `delete` and `reload` throw ``StrataError/staleRecord(model:id:version:)`` with version -1; read it again.
    ///
    /// - Throws: ``StrataError/validationFailed(_:)``, ``StrataError/recordNotFound(model:id:)``,
    ///   ``StrataError/staleRecord(model:id:version:)``, ``StrataError/insertIgnored(table:)``,
    ///   ``StrataError/uniqueViolation(table:columns:)``, ``StrataError/notNullViolation(table:column:)``,
    ///   ``StrataError/typeMismatch(table:column:detail:)``, …, and what a callback throws.
    @inlinable
    public mutating func save(_ tx: Transaction, insertIfMissing: Bool = false) throws {
        if !Self.hasLifecycleCallbacks && Self.schema.storage.saveChangesKeyAndStateOnly {
            // Nothing but the key and the persistence state changes here (no callbacks, no roles to fill in, no
            // column read back), so those two are kept and put back on a throw: a copy of the whole model, and the
            // destruction of the one it replaced, cost about 300 instructions a save.
            let (key, state) = (id, _persistence)
            do {
                let undo = try beginSave(tx)
                try validate(tx)
                try write(tx, insertIfMissing: insertIfMissing)
                if let undo { record(undo) }
            } catch {
                (id, _persistence) = (key, state)
                throw error
            }
            return
        }
        var copy = self
        let undo = try copy.beginSave(tx)
        if Self.hasLifecycleCallbacks {
            try tx.atomic { tx in try copy.saveRunningCallbacks(tx, insertIfMissing: insertIfMissing) }
        } else {
            try copy.validate(tx)
            if copy.readsBackAfterWrite(insertIfMissing: insertIfMissing) {
                // The write and the read-back of what the database computed are one: a read-back that fails (a
                // lost connection, a value the property's type cannot hold) undoes the row too. Inside a caller's
                // transaction, a read-back that cannot fail on its values takes no savepoint: a statement of it that
                // fails after the write aborts the transaction instead (see ``ReadBackTotality``).
                try tx.atomic(readingBack: Self.schema.storage.readBackTotality) { tx in
                    try copy.write(tx, insertIfMissing: insertIfMissing)
                }
            } else {
                try copy.write(tx, insertIfMissing: insertIfMissing)
            }
        }
        if let undo { copy.record(undo) }
        self = copy
    }

    /// Before a save: forgets what a rolled-back transaction undid of the model's earlier writes (see
    /// ``save(_:insertIfMissing:)``), and inside a caller's transaction returns what the save must remember.
    ///
    /// Inlined, so that it is specialized for the model: generic, its checks of `id` cost more than the rest.
    @inlinable
    mutating func beginSave(_ tx: Transaction) throws -> PendingSave? {
        if _persistence != nil { try forgetUndoneWrites() }  // a model never saved nor read has nothing undone
        guard let scope = tx.undoScope else { return nil }
        let keyWasNil = id == nil
        let creating = keyWasNil || !_persistence.isStored
        // Only an update is undone back to a version (an undone insert makes the model new again).
        return PendingSave(
            scope: scope, creating: creating, keyWasNil: keyWasNil, versionBefore: creating ? 0 : try storedVersion())
    }

    /// The model's `@Version`, or 0 without one.
    @usableFromInline
    func storedVersion() throws -> Int64 {
        try Self.schema.column(withRole: .version).map { try versionValue(column: $0.name) } ?? 0
    }

    /// After a save inside a caller's transaction: records the transaction or savepoint the write belongs to.
    ///
    /// Inlined, so that it is specialized for the model and changes the state in place (generic, it read the state
    /// through the protocol, a copy of four references, and wrote it back).
    @inlinable
    mutating func record(_ save: PendingSave) {
        if save.creating {
            _persistence.recordInsert(save.scope, assignedKey: save.keyWasNil)
        } else {
            _persistence.recordUpdate(save.scope, versionBefore: save.versionBefore)
        }
    }

    /// Puts the model back as the database holds it after a rollback undid its last insert or update.
    @usableFromInline
    mutating func forgetUndoneWrites() throws {
        guard let state = _persistence, let undone = state.undoneWrite else { return }
        switch undone {
        case .insert(let assignedKey):
            // A database-assigned id the model carried in (built or decoded) may name another row now, as after a
            // read in a rolled-back scope; an id the write assigned is dropped; an app-assigned key stays its own.
            if !assignedKey && ID.isAssignedByDatabase { throw Self.readUndone(id) }
            if assignedKey { id = nil }
            _persistence = PersistenceState()
        case .read:
            throw Self.readUndone(id)
        case .update(let versionBefore):
            var fresh = state
            fresh.updateScope = nil
            fresh.markEveryColumnChanged(except: Self.schema.primaryKeyIndexes)
            _persistence = fresh
            if let version = Self.schema.column(withRole: .version) {
                try setVersion(versionBefore, column: version.name)
            }
        }
    }

    /// Before an upsert: a model whose insert a rollback undid is new again, as before a save (an id that insert
    /// assigned is dropped). A model read in a rolled-back scope is left to the upsert's own rules: a
    /// database-assigned id is refused as not new, and a key the app gives is the model's own.
    mutating func forgetUndoneInsert() {
        guard case .insert(let assignedKey) = _persistence?.undoneWrite else { return }
        if assignedKey { id = nil }
        _persistence = PersistenceState()
    }

    /// Refuses a model whose insert a rollback undid (its id names no row of its own), or that was read in a
    /// transaction or savepoint that rolled back.
    func checkKeyStillNamesItsRow() throws {
        switch _persistence?.undoneWrite {
        case .insert: throw StrataError.notPersisted(model: Self.modelName)
        case .read: throw Self.readUndone(id)
        default: return
        }
    }

    /// A model read inside a transaction or savepoint that rolled back: the row it was read from may have been
    /// written there, and its id taken since by another row (SQLite and memory reuse a rolled-back id), so the
    /// model is not saved, deleted or reloaded by that id. Read it again with a query.
    static func readUndone(_ id: ID?) -> StrataError {
        .staleRecord(model: modelName, id: id.map { "\($0)" } ?? "nil", version: -1)
    }

    /// The save pipeline of a model with callbacks; the caller holds a savepoint around it.
    @usableFromInline
    mutating func saveRunningCallbacks(_ tx: Transaction, insertIfMissing: Bool) throws {
        try willValidate(tx)
        try validate(tx)
        try didValidate(tx)
        try willSave(tx)
        let creating = id == nil || _persistence?.isStored != true
        if creating { try willCreate(tx) } else { try willUpdate(tx) }
        try write(tx, insertIfMissing: insertIfMissing)
        if creating { try didCreate(tx) } else { try didUpdate(tx) }
        try didSave(tx)
    }

    /// Inserts or updates the row (see ``save(_:insertIfMissing:)``), after validation, and reads back the columns
    /// the database computed: generated ones (``GeneratedColumn``) after any write, those with a database default
    /// (``DatabaseDefault``) only when the write may have inserted (an update never fills a default).
    ///
    /// The caller runs it in one atomic scope when it reads back (``readsBackAfterWrite(insertIfMissing:)``), so a
    /// read-back that throws leaves no row behind: a savepoint, or where the read-back cannot fail on its values
    /// (``ReadBackTotality``) the caller's transaction, which a failed statement after the write aborts.
    @inlinable
    mutating func write(_ tx: Transaction, insertIfMissing: Bool) throws {
        let readsBack = readsBackAfterWrite(insertIfMissing: insertIfMissing)
        try writeRow(tx, insertIfMissing: insertIfMissing)
        if readsBack { try readBackComputedColumns(tx) }
    }

    /// Whether a write reads back columns the database computed: generated ones after any write, those with a
    /// database default when the write may insert.
    @inlinable
    func readsBackAfterWrite(insertIfMissing: Bool) -> Bool {
        let schema = Self.schema
        if !schema.generatedColumnIndexes.isEmpty { return true }
        return !schema.databaseDefaults.isEmpty && (insertIfMissing || _persistence?.isStored != true)
    }

    /// Sets the generated columns' properties, and those with a database default, to what the database computed for
    /// the model's row.
    ///
    /// One SELECT of those columns by the key, a statement template each connection prepares once
    /// (``StatementTemplate/Kind/readBackByKey``), whose key is bound from the array the transaction keeps for finds;
    /// each value is set by the column's setter (``TableColumn/readBack(_:)``, which `@Model` writes), or through its
    /// key path for a column without one; the whole row through a query when a column needs more than its type to
    /// decode (a date format, encryption) or the key does not bind as ``find(_:_:)``'s does.
    ///
    /// Inlined, so that it is specialized for the model: generic, it reached the model's key, persistence state and
    /// schema through the protocol's witnesses (about 1,300 instructions a read-back).
    @inlinable
    mutating func readBackComputedColumns(_ tx: Transaction) throws {
        guard let id else { return }
        let storage = Self.schema.storage
        guard storage.readsBackByTemplate else { return try readBackWholeRow(tx, id) }
        var binds = tx.takeKeyBinds()
        guard Self.appendFindBinds(id, to: &binds) else { return try readBackWholeRow(tx, id) }
        // The assignments below mark the columns assigned: their marks are put back as they were.
        let marks = _persistence.readChangeMarks()
        defer { _persistence.restoreChangeMarks(marks) }
        let context = RowContext(model: Self.self, layout: storage.readBackLayout)
        let setters = storage.readBackSetters
        let bySetters = setters.first?.model == ObjectIdentifier(Self.self)
        _ = try tx.execute(
            template: StatementTemplate(Self.self, .readBackByKey, table: storage.name), binds: binds,
            statement: { Self.readBackStatement(id) },
            onRow: { reader in
                let row = Row(reader: reader, context: context)
                guard bySetters else { return try self.assignReadBack(from: row) }
                let columns = storage.readBackColumns
                for n in columns.indices {
                    // Every setter is for this model (checked above), so the cast is a plain conversion.
                    try unsafeDowncast(setters[n], to: ColumnSetter<Self>.self).set(&self, row, columns[n])
                }
            })
        tx.putBackKeyBinds(&binds)
    }

    /// The SELECT ``readBackComputedColumns(_:)`` runs: the computed columns of the row with this key (a soft-deleted
    /// row included).
    @usableFromInline
    package static func readBackStatement(_ id: ID) -> Statement {
        let schema = Self.schema
        return .select(
            Select(table: schema.name, selection: .columns(schema.storage.readBackColumnNames), filter: keyEquality(id))
        )
    }

    /// Sets each read-back column's property through its key path (a column without a setter).
    @usableFromInline
    mutating func assignReadBack(from row: Row) throws {
        let columns = Self.schema.columns
        for i in Self.schema.storage.readBackColumns {
            let property = columns[i].property
            guard let keyPath = property.keyPath, let type = property.valueType else { continue }
            try assign(type, at: keyPath, column: i, from: row)
        }
    }

    /// ``readBackComputedColumns(_:)`` through the model's whole row, read by a query.
    @usableFromInline
    mutating func readBackWholeRow(_ tx: Transaction, _ id: ID) throws {
        guard let fresh = try Self.query(on: tx).withDeleted().filter(id: id).first() else { return }
        let columns = Self.schema.columns
        let state = _persistence  // the copies below mark the columns assigned
        defer { _persistence = state }
        for i in Self.schema.storage.readBackColumns {
            guard let keyPath = columns[i].property.keyPath, let type = columns[i].property.valueType else { continue }
            copy(type, at: keyPath, from: fresh)
        }
    }

    /// Sets the property at `keyPath` to model column `column`'s value in `row`.
    private mutating func assign<V: DatabaseValueConvertible>(
        _: V.Type, at keyPath: AnyKeyPath, column: Int, from row: Row
    ) throws {
        guard let writable = keyPath as? WritableKeyPath<Self, V> else { return }
        self[keyPath: writable] = try row.decode(column)
    }

    private mutating func copy<V: DatabaseValueConvertible>(_: V.Type, at keyPath: AnyKeyPath, from fresh: Self) {
        guard let writable = keyPath as? WritableKeyPath<Self, V> else { return }
        self[keyPath: writable] = fresh[keyPath: writable]
    }

    /// The refusal of a save that would write the generated column at `index`.
    @usableFromInline
    static func generatedWrite(_ index: Int) -> StrataError {
        .generatedColumn(
            model: modelName, column: schema.columns[index].name, reason: "cannot be written: the database computes it")
    }

    /// Whether an update of a stored model writes column `index`: an assigned column, or one whose assignments are
    /// not tracked; a generated column never, and an assigned one is refused.
    @usableFromInline
    static func updates(_ index: Int, _ state: PersistenceState, _ schema: TableSchema) throws -> Bool {
        let column = schema.columns[index]
        if column.type == .text, let search = try searchColumns(), index == search.document {
            // The search document follows its columns: rewritten whenever one of them is.
            return search.sources.contains { state.isChanged($0) || !schema.columns[$0].tracksChanges }
        }
        guard column.isGenerated else { return state.isChanged(index) || !column.tracksChanges }
        if state.isChanged(index) { throw generatedWrite(index) }
        return false
    }

    /// Inserts or updates the row (see ``save(_:insertIfMissing:)``).
    @inlinable
    mutating func writeRow(_ tx: Transaction, insertIfMissing: Bool) throws {
        let schema = Self.schema
        guard let pk = schema.primaryKeyIndex else {
            if schema.hasCompositeKey { return try writeCompositeRow(tx, insertIfMissing: insertIfMissing) }
            throw StrataError.invalidQuery("\(Self.modelName) has no primary key")
        }
        try Self.checkKeyring(tx)
        if schema.hasColumnRoles, try writeFillingRoles(tx, pk: pk) { return }
        if id == nil, !ID.isAssignedByDatabase {
            try insertWithNewKey(tx, pk: pk)
            return
        }
        if let id {
            let values = try storedValues(tx)
            if let state = _persistence, state.isStored, !state.isChanged(pk) {
                var changes: [Assignment] = []
                for i in values.indices where i != pk {
                    if try Self.updates(i, state, schema) {
                        changes.append(Assignment(schema.columns[i].name, values[i]))
                    }
                }
                if changes.isEmpty { return }
                if try update(changes, id: id, tx) > 0 {
                    _persistence.markStored()
                    return
                }
                guard insertIfMissing else { throw StrataError.recordNotFound(model: Self.modelName, id: "\(id)") }
            } else if !_persistence.isStored {
                let all = values.indices.filter { $0 != pk && !schema.columns[$0].isGenerated }.map {
                    Assignment(schema.columns[$0].name, values[$0])
                }
                if !all.isEmpty, try update(all, id: id, tx) > 0 {
                    _persistence.markStored()
                    return
                }
            }
            // No such row (or the id was reassigned): insert the row with its explicit id.
            try insertWithExplicitKey(tx, pk: pk, values: values)
        } else {
            // The row's values go into the array the transaction keeps from one insert to the next.
            var row = tx.takeRowBinds()
            try appendStoredValues(to: &row, tx)
            schema.removeUnwritten(from: &row, includingKey: false)
            var newID: ID?
            _ = try tx.execute(
                template: StatementTemplate(Self.self, .insertReturningKey, table: schema.name), binds: row,
                statement: {
                    .insert(
                        Insert(
                            table: schema.name, columns: schema.insertColumnNames, rows: [row],
                            returning: schema.columns[pk].name, defaults: schema.databaseDefaults))
                }
            ) { r in
                newID = try? ID(databaseValue: r.value(at: 0))
            }
            tx.putBackRowBinds(&row)
            guard let newID else { throw StrataError.insertIgnored(table: schema.name) }
            id = newID
        }
        _persistence.markStored()
    }

    /// Inserts a new model whose key the database does not assign: a generated `UUID`, or a `String` key the app
    /// must have set (``StrataError/invalidValue(table:column:reason:)`` otherwise, nothing written).
    @usableFromInline
    mutating func insertWithNewKey(_ tx: Transaction, pk: Int) throws {
        let schema = Self.schema
        guard let key = ID.generated() else {
            throw StrataError.invalidValue(
                table: schema.name, column: schema.columns[pk].name,
                reason: "\(Self.modelName)'s \(ID.self) key is nil: set it before the first save")
        }
        id = key
        let inserted: Int
        do {
            let values = schema.writtenValues(try storedValues(tx), includingKey: true)
            inserted = try tx.execute(
                .insert(
                    Insert(
                        table: schema.name, columns: schema.writtenColumnNames(includingKey: true), rows: [values],
                        defaults: schema.databaseDefaults)))
        } catch {
            id = nil
            throw error
        }
        guard inserted > 0 else {
            id = nil
            throw StrataError.insertIgnored(table: schema.name)
        }
        _persistence.markStored()
    }

    /// Fills the columns with a ``ColumnRole`` before a write: `@CreatedAt` on a create, `@UpdatedAt` on any
    /// save that writes something. A stored model with a `@Version` is updated here, `WHERE id = ? AND
    /// version = ?`, and the version incremented; returns true when it did so, false to let `write` go on.
    @usableFromInline
    mutating func writeFillingRoles(_ tx: Transaction, pk: Int) throws -> Bool {
        let schema = Self.schema
        let stored = id != nil && _persistence.isStored && _persistence?.isChanged(pk) == false
        if stored && !hasChanges { return false }  // nothing to write, so nothing to stamp
        let now = DatabaseValue.roundedToMicroseconds(Date())
        if let updated = schema.column(withRole: .updatedAt) { try setDate(now, column: updated.name) }
        if !_persistence.isStored, let id { return try writeDetached(tx, pk: pk, id: id, now: now) }
        if !stored, let created = schema.column(withRole: .createdAt) { try setDate(now, column: created.name) }
        guard stored, let id, let state = _persistence, let version = schema.column(withRole: .version) else {
            return false
        }
        let read = try versionValue(column: version.name)
        try setVersion(read &+ 1, column: version.name)
        let values = try storedValues(tx)
        var changes: [Assignment] = []
        for i in values.indices where i != pk {
            if try i == version.index || Self.updates(i, state, schema) {
                changes.append(Assignment(schema.columns[i].name, values[i]))
            }
        }
        let matched = try tx.execute(
            .update(
                Update(
                    table: schema.name, assignments: changes,
                    filter: .and([
                        .compare(.equal, .column(schema.columns[pk].name), .value(id.databaseValue)),
                        .compare(.equal, .column(version.name), .value(.integer(read))),
                    ]))))
        guard matched > 0 else {
            try setVersion(read, column: version.name)
            throw StrataError.staleRecord(model: Self.modelName, id: "\(id)", version: read)
        }
        _persistence.markStored()
        return true
    }

    /// Writes a model that has an id but was not read from the database (built with an explicit id, or decoded
    /// from a request body), for a model with column roles. Its row is updated when it exists: every column
    /// but `@CreatedAt` (a creation time is never rewritten; the model keeps the value it carried), and with a
    /// `@Version` only at the version the model carries (`WHERE id = ? AND version = ?`), which it then
    /// increments; a row at another version is ``StrataError/staleRecord(model:id:version:)``, nothing written.
    /// When no row has the id, the model is inserted with it, `@CreatedAt` stamped `now`.
    mutating func writeDetached(_ tx: Transaction, pk: Int, id: ID, now: Date) throws -> Bool {
        let schema = Self.schema
        let created = schema.column(withRole: .createdAt)
        let version = schema.column(withRole: .version)
        let carried = try version.map { try versionValue(column: $0.name) }
        if let version, let carried { try setVersion(carried &+ 1, column: version.name) }
        let values = try storedValues(tx)
        var changes: [Assignment] = []
        for i in values.indices where i != pk && i != created?.index && !schema.columns[i].isGenerated {
            changes.append(Assignment(schema.columns[i].name, values[i]))
        }
        var filter = SQLExpression.compare(.equal, .column(schema.columns[pk].name), .value(id.databaseValue))
        if let version, let carried {
            filter = .and([filter, .compare(.equal, .column(version.name), .value(.integer(carried)))])
        }
        if !changes.isEmpty,
            try tx.execute(.update(Update(table: schema.name, assignments: changes, filter: filter))) > 0
        {
            _persistence.markStored()
            return true
        }
        if let version, let carried { try setVersion(carried, column: version.name) }
        if try Self.query(on: tx).withDeleted().filter(id: id).exists() {
            if let carried { throw StrataError.staleRecord(model: Self.modelName, id: "\(id)", version: carried) }
            _persistence.markStored()  // only the key and the creation time: nothing else to write
            return true
        }
        if let created { try setDate(now, column: created.name) }
        try insertWithExplicitKey(tx, pk: pk, values: try storedValues(tx))
        _persistence.markStored()
        return true
    }

    /// Inserts the model's row (`values`, its ``databaseValues``) with the id it holds; a row the database skipped
    /// is ``StrataError/insertIgnored(table:)``.
    @usableFromInline
    func insertWithExplicitKey(_ tx: Transaction, pk: Int, values: [DatabaseValue]) throws {
        let schema = Self.schema
        let inserted = try tx.execute(
            .insert(
                Insert(
                    table: schema.name, columns: schema.writtenColumnNames(includingKey: true),
                    rows: [schema.writtenValues(values, includingKey: true)], explicitKey: schema.columns[pk].name,
                    defaults: schema.databaseDefaults)))
        guard inserted > 0 else { throw StrataError.insertIgnored(table: schema.name) }
    }

    mutating func setDate(_ date: Date, column: String) throws {
        switch Self.keyPath(forColumn: column) {
        case let kp as WritableKeyPath<Self, Date>: self[keyPath: kp] = date
        case let kp as WritableKeyPath<Self, Date?>: self[keyPath: kp] = date
        default: throw StrataError.invalidQuery("\(Self.modelName).\(column) is a timestamp but not a 'var' Date")
        }
    }

    func versionValue(column: String) throws -> Int64 {
        switch Self.keyPath(forColumn: column) {
        case let kp as KeyPath<Self, Int64>: return self[keyPath: kp]
        case let kp as KeyPath<Self, Int>: return Int64(self[keyPath: kp])
        default: throw StrataError.invalidQuery("\(Self.modelName).\(column) is a version but not an integer")
        }
    }

    mutating func setVersion(_ value: Int64, column: String) throws {
        switch Self.keyPath(forColumn: column) {
        case let kp as WritableKeyPath<Self, Int64>: self[keyPath: kp] = value
        case let kp as WritableKeyPath<Self, Int>:
            guard let v = Int(exactly: value) else { throw StrataError.invalidQuery("version overflow") }
            self[keyPath: kp] = v
        default: throw StrataError.invalidQuery("\(Self.modelName).\(column) is a version but not a 'var' integer")
        }
    }

    @usableFromInline
    func update(_ changes: [Assignment], id: ID, _ tx: Transaction) throws -> Int {
        let pkName = Self.primaryKeyColumn
        return try tx.execute(
            .update(
                Update(
                    table: Self.schema.name, assignments: changes,
                    filter: .compare(.equal, .column(pkName), .value(id.databaseValue)))))
    }

    /// Saves the model in its own connection lease (see ``save(_:insertIfMissing:)``).
    ///
    /// Inlined, so that the save it runs is specialized for the model, as a save in a transaction is: generic, each
    /// one-shot save looked up the metadata of `Self?`, of its validations and of their arrays at run time (about
    /// 20,000 instructions a save in the bench's `fresh-db`).
    @inlinable
    nonisolated(nonsending)
        public mutating func save(on db: Database, insertIfMissing: Bool = false) async throws
    {
        var copy = self
        try await db.withConnection { tx in try copy.save(tx, insertIfMissing: insertIfMissing) }
        self = copy
    }

    /// Whether a column was assigned since the model was fetched or last saved (assigning a property
    /// its current value counts: `@Model` tracks assignments, not comparisons).
    /// True for a model never saved, and for a hand-written model that does not track its state.
    public var hasChanges: Bool {
        guard id != nil, let state = _persistence, state.isStored else { return true }
        return state.hasChangedColumns || Self.schema.columns.contains { !$0.tracksChanges }
    }

    /// Runs the model's validations.
    ///
    /// - Throws: ``StrataError/validationFailed(_:)`` listing every failure.
    @inlinable
    public func validate(_ tx: Transaction) throws {
        var v = Validations<Self>()
        Self.validations(&v)
        try v.run(self, tx)
    }

    /// Deletes the model's row after applying the delete rules of its associations (nullify, destroy
    /// through several levels, restrict), all inside one savepoint: a refused delete changes nothing.
    /// `willDelete` runs first and `didDelete` last, in the same savepoint; `destroy` deletes each child
    /// through this method, so the children's callbacks run too. Bulk `query.delete()` runs none.
    ///
    /// A soft-deleted model (one with `@DeletedAt`) keeps its row: `delete` sets the column (the model value
    /// you hold is not changed; ``reload(_:)`` it, or use ``forceDelete(_:)`` to delete the row), and its
    /// association rules apply in kind (see ``ModelAssociation/beforeSoftDeleting(ownerID:_:)``).
    ///
    /// - Returns: whether a row was deleted (or soft-deleted).
    /// - Throws: ``StrataError/notPersisted(model:)`` when the model has no id,
    ///   ``StrataError/deleteRestricted(model:association:)``, ``StrataError/foreignKeyViolation(table:)``.
    @discardableResult
    public func delete(_ tx: Transaction) throws -> Bool {
        guard Self.schema.column(withRole: .deletedAt) != nil else { return try forceDelete(tx) }
        guard let id else { throw StrataError.notPersisted(model: Self.modelName) }
        try checkKeyStillNamesItsRow()
        return try tx.atomic { tx in
            try willDelete(tx)
            for association in Self.associations { try association.beforeSoftDeleting(ownerID: id, tx) }
            let marked = try Self.query(on: tx).filter(id: id).delete() > 0  // soft: sets the column if not set
            try didDelete(tx)
            return marked
        }
    }

    /// Deletes the model's row for good, soft-deleted model or not, applying the delete rules and callbacks
    /// as ``delete(_:)`` does for a model without `@DeletedAt`.
    @discardableResult
    public func forceDelete(_ tx: Transaction) throws -> Bool {
        guard let id else { throw StrataError.notPersisted(model: Self.modelName) }
        try checkKeyStillNamesItsRow()
        let associations = Self.associations
        if associations.isEmpty && !Self.hasLifecycleCallbacks {
            return try Self.query(on: tx).withDeleted().filter(id: id).forceDelete() > 0
        }
        return try tx.atomic { tx in
            try willDelete(tx)
            for association in associations { try association.beforeDeleting(ownerID: id, tx) }
            let deleted = try Self.query(on: tx).withDeleted().filter(id: id).forceDelete() > 0
            try didDelete(tx)
            return deleted
        }
    }

    /// Brings a soft-deleted model's row back (clears its `@DeletedAt`, here and in the row). Children that
    /// a `destroy` rule soft-deleted with it stay deleted: restore them with `onlyDeleted().restore()`.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` for a model without `@DeletedAt`,
    ///   ``StrataError/notPersisted(model:)``.
    public mutating func restore(_ tx: Transaction) throws {
        guard let deleted = Self.schema.column(withRole: .deletedAt) else {
            throw StrataError.invalidQuery("\(Self.modelName) has no @DeletedAt column to restore")
        }
        guard let id else { throw StrataError.notPersisted(model: Self.modelName) }
        try Self.query(on: tx).withDeleted().filter(id: id).restore()
        if let kp = Self.keyPath(forColumn: deleted.name) as? WritableKeyPath<Self, Date?> {
            self[keyPath: kp] = nil
            _persistence.markStored()
        }
    }

    /// Brings a soft-deleted model's row back in its own connection lease (see ``restore(_:)``).
    nonisolated(nonsending)
        public mutating func restore(on db: Database) async throws
    {
        var copy = self
        try await db.withConnection { tx in try copy.restore(tx) }
        self = copy
    }

    /// Deletes the model's row for good in its own connection lease (see ``forceDelete(_:)``).
    @discardableResult
    nonisolated(nonsending)
        public func forceDelete(on db: Database) async throws -> Bool
    {
        try await db.withConnection { tx in try self.forceDelete(tx) }
    }

    /// Deletes the model's row (and applies its delete rules) in its own connection lease.
    @discardableResult
    nonisolated(nonsending)
        public func delete(on db: Database) async throws -> Bool
    {
        try await db.withConnection { tx in try self.delete(tx) }
    }

    /// `id = ?`, and `deleted_at IS NULL` for a soft-deleted model.
    @usableFromInline
    static func keyFilter(_ id: ID) -> SQLExpression {
        let key = keyEquality(id)
        guard let deleted = schema.column(withRole: .deletedAt) else { return key }
        return .and([key, .isNull(.column(deleted.name))])
    }

    /// Fetches the model with this id, or nil (also when the row is soft-deleted).
    ///
    /// A find by a key of one column or of several (``CompositeKey``) runs as a statement template: the connection
    /// renders its SELECT once and then binds each key's values.
    ///
    /// The key's values are bound from an array the transaction keeps from one find to the next (see
    /// ``PrimaryKey/appendKeyValues(to:)``), so a find allocates none for them.
    @inlinable
    public static func find(_ id: ID, _ tx: Transaction) throws -> Self? {
        // The model's properties read its table's columns alike on every backend (a loop of finds asks once).
        _ = try tx.hasNoNumbersStoredAsText(Self.self)
        var binds = tx.takeKeyBinds()
        guard appendFindBinds(id, to: &binds) else { return try query(on: tx).filter(id: id).first() }
        var found: Self?
        _ = try tx.execute(
            template: findTemplate, binds: binds, statement: { findStatement(id) },
            onRow: { found = try decodeFound($0, in: tx.undoScope, tx.database.keyring) })
        tx.putBackKeyBinds(&binds)
        return found
    }

    /// Fetches the model with this id, or nil.
    ///
    /// While other calls hold connections of the pool, a PostgreSQL database sends it from its statement loop
    /// (see ``Database/read(_:)``), which many concurrent lookups share.
    ///
    /// Inlined, so that it is specialized for the model: generic, each call looked up the metadata of `Self?` and
    /// decoded through the protocol (about 1,500 instructions a lookup on SQLite). Where reads take no other way than
    /// a connection of the pool (SQLite, memory: see `Database.readOnConnection(_:)`), it is ``find(_:_:)`` on that
    /// connection.
    @inlinable
    nonisolated(nonsending)
        public static func find(_ id: ID, on db: Database) async throws -> Self?
    {
        var found: Self?
        if try await db.readOnConnection({ tx in found = try find(id, tx) }) { return found }
        guard let binds = findBinds(id) else { return try await query(on: db).filter(id: id).first() }
        // The model reads its table's columns alike on every backend (checked here, with no transaction).
        try db.checkModelReads(schema)
        _ = try await db.readOne(
            template: findTemplate, binds: binds, statement: { findStatement(id) },
            onRow: { found = try decodeFound($0, in: nil, db.keyring) })
        return found
    }

    /// What ``find(_:_:)``'s SELECT binds, in its order: the key's value, or each key column's for a key of several
    /// (``PrimaryKey/keyValues``); nil for a model with no key, or whose table's key of several columns has an `ID`
    /// that is no ``CompositeKey`` (its find takes the query path, which refuses it). Inlined into each find, so a
    /// key of one column pays nothing for it.
    @inlinable
    static func findBinds(_ id: ID) -> [DatabaseValue]? {
        if schema.primaryKeyIndex != nil { return [id.databaseValue] }
        guard schema.hasCompositeKey else { return nil }
        let values = id.keyValues
        return values.count == schema.primaryKeyIndexes.count ? values : nil
    }

    /// ``findBinds(_:)`` appended to `binds` (empty on entry), without an array of their own; false where
    /// `findBinds` is nil (and `binds` then holds what to drop).
    @inlinable
    static func appendFindBinds(_ id: ID, to binds: inout [DatabaseValue]) -> Bool {
        let schema = Self.schema
        if schema.primaryKeyIndex != nil {
            binds.append(id.databaseValue)
            return true
        }
        guard schema.hasCompositeKey else { return false }
        id.appendKeyValues(to: &binds)
        return binds.count == schema.primaryKeyIndexes.count
    }

    /// The shape of ``find(_:_:)``'s SELECT.
    @usableFromInline
    static var findTemplate: StatementTemplate { StatementTemplate(Self.self, .findByKey, table: schema.name) }

    /// ``find(_:_:)``'s SELECT.
    @usableFromInline
    static func findStatement(_ id: ID) -> Statement {
        let schema = Self.schema
        return .select(Select(table: schema.name, selection: .columns(schema.columnNames), filter: keyFilter(id)))
    }

    /// The model ``find(_:_:)`` read from a row. Inlined into each find, so that it is specialized for the model:
    /// generic, it reached the model's schema, initializer and persistence state through the protocol's witnesses
    /// (the state through a coroutine).
    @inlinable
    static func decodeFound(
        _ reader: any RowReader, in scope: UndoScope?, _ keyring: Keyring?
    ) throws -> Self {
        let context = RowContext(wholeRowOf: Self.self, schema: schema, keyring: keyring)
        var model = try Self(row: Row(reader: reader, context: context))
        model._persistence.markRead(in: scope)
        return model
    }

    /// Reads the model's row again: every stored property takes the database's value and assignments not yet
    /// saved are forgotten (`@Transient` properties take their defaults).
    ///
    /// - Throws: ``StrataError/notPersisted(model:)`` when the model has no id,
    ///   ``StrataError/recordNotFound(model:id:)`` when its row is gone.
    public mutating func reload(_ tx: Transaction) throws {
        guard let id else { throw StrataError.notPersisted(model: Self.modelName) }
        try checkKeyStillNamesItsRow()
        guard let fresh = try Self.find(id, tx) else {
            throw StrataError.recordNotFound(model: Self.modelName, id: "\(id)")
        }
        self = fresh
    }

    /// Reads the model's row again in its own connection lease (see ``reload(_:)``).
    nonisolated(nonsending)
        public mutating func reload(on db: Database) async throws
    {
        var copy = self
        try await db.withConnection { tx in try copy.reload(tx) }
        self = copy
    }

    /// Deletes every row of the model's table.
    @discardableResult
    public static func deleteAll(_ tx: Transaction) throws -> Int { try query(on: tx).delete() }
}

extension DatabaseValue {
    /// Exact identity as stored: text and JSON compare by UTF-8 bytes (not Unicode equivalence),
    /// doubles by bit pattern, so a change between equivalent spellings is still a change.
    public func isIdentical(to other: DatabaseValue) -> Bool {
        switch (self, other) {
        case (.text(let a), .text(let b)), (.json(let a), .json(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        default: return self == other
        }
    }
}
