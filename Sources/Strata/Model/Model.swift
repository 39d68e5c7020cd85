// Model: the protocol every persisted struct conforms to, by the @Model macro or by hand.

/// A value stored as one row of a table.
///
/// `@Model` writes the conformance; a hand-written one needs ``schema`` (with columns made from key paths, so
/// ``columnName(for:)`` finds them), ``init(row:)``, ``databaseValues`` and `var id: Int64?` (or `UUID?`, `String?`:
/// see ``PrimaryKey``).
public protocol Model: Sendable {
    /// The primary key's type: `Int64` (assigned by the database, the default), `UUID` or `String`.
    associatedtype ID: PrimaryKey = Int64
    /// The table, with columns in the order ``init(row:)`` reads and ``databaseValues`` writes them.
    static var schema: TableSchema { get }
    /// The column a key path maps to, or nil for a property that is not stored; by default, read from ``schema``.
    static func columnName(for keyPath: PartialKeyPath<Self>) -> String?
    /// Decodes a row; column `n` of ``schema`` is read with `row.decode(n)`.
    init(row: Row) throws
    /// The values to store, one per column of ``schema``, in the same order.
    var databaseValues: [DatabaseValue] { get }
    /// Appends ``databaseValues`` to `values`, in the same order: what an insert binds, written into an array its
    /// transaction keeps from one insert to the next. `@Model` writes it; by default it appends ``databaseValues``.
    func appendDatabaseValues(to values: inout [DatabaseValue])
    /// The primary key: nil until the first save (a `String` key is set by the app before it).
    var id: ID? { get set }
    /// What the database last saw of the model; lets `save` update only the assigned columns.
    /// `@Model` stores it; a hand-written model may leave the default, and then updates write every column.
    var _persistence: PersistenceState? { get set }
    /// Declares the model's validations; the default has none.
    static func validations(_ v: inout Validations<Self>)
    /// The stored property a column maps to, or nil; by default, read from ``schema`` (used to set foreign keys).
    static func keyPath(forColumn column: String) -> PartialKeyPath<Self>?
    /// The model's associations, so deleting it can apply their delete rules (`@Model` lists the
    /// `static let` declared with `hasMany`, `hasOne` or `belongsTo`).
    static var associations: [any ModelAssociation<Self>] { get }
    /// Indexes the migration creates besides the table; none by default.
    static var indexes: [Index] { get }
    /// Foreign keys the migration declares when it creates the table; none by default.
    static var foreignKeys: [ForeignKey] { get }
    /// The expressions of the model's `@Generated` columns (see ``GeneratedColumn``), which migration writes into
    /// the table; none by default.
    static var generatedColumns: [GeneratedColumn<Self>] { get }
    /// The columns `match` searches and the column that stores their search document (see
    /// ``SearchableColumns``); nil, no full-text search, by default.
    static var searchable: SearchableColumns<Self>? { get }

    /// Lifecycle callbacks: declare any of them in a `@Model` struct's body and `save`/`delete` run them inside
    /// the same savepoint as the write, so a callback that throws leaves nothing written.
    ///
    /// ```swift
    /// @Model struct Post {
    ///     var id: Int64?
    ///     var title: String
    ///     var slug = ""
    ///     mutating func willSave(_ tx: Transaction) throws { slug = title.lowercased() }
    ///     func didCreate(_ tx: Transaction) throws {
    ///         var entry = AuditEntry(event: "created post \(id ?? 0)")
    ///         try entry.save(tx)                       // same transaction as the post
    ///     }
    /// }
    /// ```
    ///
    /// Order on save: `willValidate`, validation, `didValidate`, `willSave`, `willCreate` (a model never fetched
    /// or saved) or `willUpdate`, the write, `didCreate` or `didUpdate`, `didSave`. On delete: `willDelete`, the
    /// association delete rules (a `destroy` deletes each child with its own callbacks), the delete, `didDelete`.
    /// Bulk `query.update(…)`, `query.delete()` and `insertAll` run no callbacks.
    ///
    /// `@Model` sees callbacks declared in the struct's body and sets this to true; a model
    /// that declares them in an extension, or a hand-written model, sets `static let hasLifecycleCallbacks = true`
    /// itself, or its callbacks are not called.
    static var hasLifecycleCallbacks: Bool { get }
    /// Runs before the validations of a save; may change the model.
    mutating func willValidate(_ tx: Transaction) throws
    /// Runs after the validations of a save passed.
    func didValidate(_ tx: Transaction) throws
    /// Runs before every save's write; may change the model (a slug, a normalised field).
    mutating func willSave(_ tx: Transaction) throws
    /// Runs before the write of a model never fetched or saved; may change the model.
    mutating func willCreate(_ tx: Transaction) throws
    /// Runs before the write of a fetched or saved model; may change the model.
    mutating func willUpdate(_ tx: Transaction) throws
    /// Runs after a create's write; the id is set. May write other models on `tx`.
    func didCreate(_ tx: Transaction) throws
    /// Runs after an update's write. May write other models on `tx`.
    func didUpdate(_ tx: Transaction) throws
    /// Runs after every save's write, after `didCreate`/`didUpdate`.
    func didSave(_ tx: Transaction) throws
    /// Runs before a delete and its association rules.
    func willDelete(_ tx: Transaction) throws
    /// Runs after the row was deleted.
    func didDelete(_ tx: Transaction) throws
    /// Whether commits to the model's table by other processes reach this process's observers
    /// (``QueryBuilder/observe()``). On PostgreSQL, automatic migration installs a statement trigger that
    /// sends `NOTIFY strata_changes` with the table's name. SQLite with `observe_interval` hears other processes'
    /// commits to any table without it (`PRAGMA data_version`); the memory driver sees only its own process's. Default false.
    static var notifiesOtherProcesses: Bool { get }
    /// Whether every insert, update and delete of the model's rows is recorded in the database's change history
    /// (``Database/changes(since:limit:)``), in the same transaction as the write. Migration creates the history
    /// tables and turns recording on for the model's table, in this process, on every database. Default false.
    static var tracksHistory: Bool { get }
}

extension Model {
    /// Nil, and assignments are ignored: a hand-written model without the state makes `save` write every column.
    public var _persistence: PersistenceState? {
        get { nil }
        set {}  // swiftlint:disable:this unused_setter_value
    }

    /// Appends ``databaseValues``.
    ///
    /// - Parameter values: the array to append the model's values to.
    @inlinable
    public func appendDatabaseValues(to values: inout [DatabaseValue]) {
        values.append(contentsOf: databaseValues)
    }

    /// ``databaseValues`` made by ``appendDatabaseValues(to:)``: what `@Model` writes for ``databaseValues``, one
    /// line per model instead of a second list of every property, which each model's build compiled again.
    ///
    /// - Returns: the values ``appendDatabaseValues(to:)`` appends, in the schema's column order.
    @inlinable
    public func _databaseValuesAppended() -> [DatabaseValue] {
        var values: [DatabaseValue] = []
        values.reserveCapacity(Self.schema.columns.count)
        appendDatabaseValues(to: &values)
        return values
    }

    /// No validations.
    ///
    /// - Parameter v: the list to fill, left empty.
    public static func validations(_ v: inout Validations<Self>) {}

    /// The name of the ``schema`` column made from `keyPath` (``TableColumn/init(_:_:primaryKey:tracked:role:)``
    /// and its siblings keep it), or nil.
    ///
    /// - Parameter keyPath: a property of the model.
    /// - Returns: the column's name, or nil for a property that is not stored.
    public static func columnName(for keyPath: PartialKeyPath<Self>) -> String? {
        let schema = self.schema
        return schema.index(of: keyPath).map { schema.columns[$0].name }
    }

    /// The key path of the ``schema`` column named `column`, when the column was made from one; else nil.
    ///
    /// - Parameter column: a column name.
    /// - Returns: the property, or nil.
    public static func keyPath(forColumn column: String) -> PartialKeyPath<Self>? {
        let schema = self.schema
        return schema.index(of: column).flatMap { schema.columns[$0].keyPath as? PartialKeyPath<Self> }
    }

    /// No associations.
    public static var associations: [any ModelAssociation<Self>] { [] }

    /// False: only this process's commits reach the model's observers.
    public static var notifiesOtherProcesses: Bool { false }

    /// False: the model's writes are not recorded in the change history.
    public static var tracksHistory: Bool { false }

    /// The model's name for messages.
    public static var modelName: String { String(describing: Self.self) }

    /// The column a key path maps to.
    ///
    /// - Throws: ``StrataError/unknownColumn(model:column:)`` for a property that is not stored.
    public static func column(_ keyPath: PartialKeyPath<Self>) throws(StrataError) -> String {
        guard let name = columnName(for: keyPath) else {
            throw .unknownColumn(model: modelName, column: "\(keyPath)")
        }
        return name
    }
}

/// What the database last saw of a model, kept inside the model value: whether its row is known to be
/// stored, which columns were assigned since it was fetched or saved, and associations loaded by
/// `including(…)`.
///
/// `@Model` stores it (nil until the model is fetched or saved) and marks a column from each stored
/// property's `didSet`, so fetching a row costs no snapshot and `save` updates only the assigned
/// columns. A hand-written model may leave the default, nil: then `save` writes every column.
///
/// Always equal and hashing to nothing, so it never changes a model's `==` or `hash`; a synthesized
/// `Codable` writes it as `null` and reads a model without it (the property is optional).
public struct PersistenceState: Sendable, Hashable, Codable {
    /// Bits 0–61: columns 0–61 assigned; bit 62: some column from 62 on assigned; bit 63: stored.
    @usableFromInline var bits: UInt64 = 0
    /// Associations loaded by `including(…)`, by association key (nil until one is, so a fetched row
    /// initializes no dictionary).
    var loaded: [String: any Sendable]? = nil
    /// The transaction or savepoint the model was inserted (or upserted) in, while its row is only as durable as
    /// that scope (see ``UndoScope``); nil once saved outside a caller's transaction.
    var insertScope: UndoScope? = nil
    /// The transaction or savepoint of the model's last update inside a caller's transaction, and the version the
    /// model carried before it.
    var updateScope: UndoScope? = nil
    var versionBeforeUpdate: Int64 = 0
    /// The transaction or savepoint the model was read in (nil when read in autocommit).
    @usableFromInline var readScope: UndoScope? = nil
    /// Whether the insert of ``insertScope`` gave the model its id (a nil id the database or Strata filled in).
    var insertAssignedKey = false

    @usableFromInline static var storedBit: UInt64 { 1 << 63 }
    @usableFromInline static var overflowBit: UInt64 { 1 << 62 }

    /// The state of a model never fetched nor saved.
    @inlinable public init() {}

    /// Records that column `column` (in schema order) was assigned; `@Model`'s `didSet` calls it.
    @inlinable
    public mutating func markChanged(_ column: Int) {
        bits |= column < 62 ? 1 << UInt64(column) : Self.overflowBit
    }

    /// Whether the model's row is known to be in the database as the model holds it, but for the
    /// columns marked changed.
    @inlinable public var isStored: Bool { bits & Self.storedBit != 0 }

    /// Whether column `column` was assigned since the model was fetched or saved.
    @inlinable
    public func isChanged(_ column: Int) -> Bool {
        bits & (column < 62 ? 1 << UInt64(column) : Self.overflowBit) != 0
    }

    /// Whether any column was assigned since the model was fetched or saved.
    @inlinable public var hasChangedColumns: Bool { bits & ~Self.storedBit != 0 }

    /// Records that the database now holds the model as it is (after a fetch or a save).
    @inlinable
    public mutating func markStored() { bits = Self.storedBit }

    /// Marks every column but the primary key's (at `keys`) assigned, so the next update writes them all.
    mutating func markEveryColumnChanged(except keys: [Int]) {
        bits = Self.storedBit | (Self.storedBit - 1)
        for key in keys where key < 62 { bits &= ~(1 << UInt64(key)) }
    }

    /// What a rolled-back transaction or savepoint undid of the model's last writes: nil when nothing.
    var undoneWrite: UndoneWrite? {
        if let insertScope, insertScope.isUndone { return .insert(assignedKey: insertAssignedKey) }
        if let readScope, readScope.isUndone { return .read }
        if let updateScope, updateScope.isUndone { return .update(versionBefore: versionBeforeUpdate) }
        return nil
    }

    /// Always true, so the state never makes two models unequal.
    ///
    /// - Parameters:
    ///   - lhs: a state.
    ///   - rhs: another state.
    /// - Returns: true.
    public static func == (lhs: PersistenceState, rhs: PersistenceState) -> Bool { true }
    /// Hashes nothing, so the state never changes a model's hash.
    ///
    /// - Parameter hasher: left as it is.
    public func hash(into hasher: inout Hasher) {}
    /// Encodes `null`: the state is not part of a model's `Codable` form.
    ///
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encodeNil()
    }
    /// The state of a model never fetched nor saved, whatever was encoded.
    ///
    /// - Parameter decoder: ignored.
    public init(from decoder: any Decoder) throws {}
}

/// What a save inside a caller's transaction remembers of the model before its write.
@usableFromInline
struct PendingSave {
    @usableFromInline let scope: UndoScope
    @usableFromInline let creating: Bool
    @usableFromInline let keyWasNil: Bool
    @usableFromInline let versionBefore: Int64

    @usableFromInline
    init(scope: UndoScope, creating: Bool, keyWasNil: Bool, versionBefore: Int64) {
        self.scope = scope
        self.creating = creating
        self.keyWasNil = keyWasNil
        self.versionBefore = versionBefore
    }
}

/// A write of a model that its transaction or savepoint rolled back.
enum UndoneWrite {
    /// The model's insert (or upsert): its row is not stored; `assignedKey` when that write set its id.
    case insert(assignedKey: Bool)
    /// The read the model came from: the row may have been written in that scope, and its id taken since by
    /// another row (SQLite and memory reuse a rolled-back id).
    case read
    /// The model's last update: the row holds what it held before, at `versionBefore`.
    case update(versionBefore: Int64)
}

/// The storage `@Model` gives a model's `_persistence`: the state, kept out of the model's `==`, `hash` and `Codable`
/// form, so a model built in code equals (and hashes like) its fetched twin, and a model decoded from a request body
/// needs no `_persistence` key (and is encoded without one).
@propertyWrapper
public struct PersistenceStorage: Sendable, Hashable, Codable {
    /// The model's state: nil until it is fetched or saved.
    public var wrappedValue: PersistenceState?

    /// Storage holding `wrappedValue`.
    ///
    /// - Parameter wrappedValue: the state, nil for a model never fetched nor saved.
    @inlinable public init(wrappedValue: PersistenceState?) { self.wrappedValue = wrappedValue }

    /// Always true, so the state never makes two models unequal.
    ///
    /// - Parameters:
    ///   - lhs: a storage.
    ///   - rhs: another storage.
    /// - Returns: true.
    public static func == (lhs: PersistenceStorage, rhs: PersistenceStorage) -> Bool { true }
    /// Hashes nothing, so the state never changes a model's hash.
    ///
    /// - Parameter hasher: left as it is.
    public func hash(into hasher: inout Hasher) {}
    /// Encodes `null` (a model's keyed container writes no key at all).
    ///
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encodeNil()
    }
    /// The state of a model never fetched nor saved, whatever was encoded.
    ///
    /// - Parameter decoder: ignored.
    public init(from decoder: any Decoder) throws { wrappedValue = nil }
}

extension KeyedDecodingContainer {
    /// A model's persistence state is never read from its `Codable` form: a missing key is fine.
    ///
    /// - Parameters:
    ///   - type: ``PersistenceStorage``.
    ///   - key: the property's key, not read.
    /// - Returns: the state of a model never fetched nor saved.
    public func decode(_ type: PersistenceStorage.Type, forKey key: Key) throws -> PersistenceStorage {
        PersistenceStorage(wrappedValue: nil)
    }
}

extension KeyedEncodingContainer {
    /// A model's persistence state is not part of its `Codable` form: nothing is written.
    ///
    /// - Parameters:
    ///   - value: the state, not written.
    ///   - key: the property's key, not written.
    public mutating func encode(_ value: PersistenceStorage, forKey key: Key) throws {}
}

extension Optional where Wrapped == PersistenceState {
    /// Records that the database now holds the model as it is (after a fetch or a save), keeping any
    /// loaded associations.
    @inlinable
    public mutating func markStored() {
        var state = self ?? PersistenceState()
        state.markStored()
        self = state
    }

    /// Whether the model's row is known to be stored (see ``PersistenceState/isStored``).
    @inlinable public var isStored: Bool { self?.isStored ?? false }

    /// The change marks (see ``PersistenceState/isChanged(_:)``), nil without a state. Mutating, so that a model's
    /// state is read in place (its getter copied the state, a retain and a release of each of its references).
    @inlinable
    mutating func readChangeMarks() -> UInt64? { self?.bits }

    /// Puts back marks ``readChangeMarks()`` read.
    @inlinable
    mutating func restoreChangeMarks(_ marks: UInt64?) {
        if let marks { self?.bits = marks }
    }

    /// Records that the database holds the model as it was just read, inside `scope` (nil in autocommit).
    @inlinable
    mutating func markRead(in scope: UndoScope?) {
        guard let scope else { return markStored() }
        var state = self ?? PersistenceState()
        state.markStored()
        state.readScope = scope
        self = state
    }

    /// Records that the model was inserted (or upserted) inside the transaction or savepoint `scope`, so its
    /// next save knows when a rollback undid that (see ``UndoScope``); `assignedKey` when the write set its id.
    ///
    /// Moved out and back (`consume`): a copy of the state retained and released each of its references.
    @usableFromInline
    mutating func recordInsert(_ scope: UndoScope, assignedKey: Bool) {
        guard var state = consume self else {
            self = nil
            return
        }
        state.insertScope = scope
        state.insertAssignedKey = assignedKey
        self = state
    }

    /// Records that the model was updated inside `scope`, carrying `versionBefore` into it: the version its next
    /// save puts back when a rollback undoes the scope (the first update in a scope keeps the version it had before).
    @usableFromInline
    mutating func recordUpdate(_ scope: UndoScope, versionBefore: Int64) {
        guard var state = consume self else {
            self = nil
            return
        }
        if state.updateScope !== scope {
            state.updateScope = scope
            state.versionBeforeUpdate = versionBefore
        }
        self = state
    }
}
