// Model: the protocol every persisted struct conforms to, by the @Model macro or by hand.

/// A value stored as one row of a table.
///
/// `@Model` writes the conformance; a hand-written one needs ``schema``, ``columnName(for:)``,
/// ``init(row:)``, ``databaseValues`` and `var id: Int64?` (see the README's example).
public protocol Model: Sendable {
    /// The table, with columns in the order ``init(row:)`` reads and ``databaseValues`` writes them.
    static var schema: TableSchema { get }
    /// The column a key path maps to, or nil for a property that is not stored.
    static func columnName(for keyPath: PartialKeyPath<Self>) -> String?
    /// Decodes a row; column `n` of ``schema`` is read with `row.decode(n)`.
    init(row: Row) throws
    /// The values to store, one per column of ``schema``, in the same order.
    var databaseValues: [DatabaseValue] { get }
    /// The primary key: nil until the first save.
    var id: Int64? { get set }
    /// What was last read from or written to the database; lets `save` update only changed columns.
    /// `@Model` stores it; a hand-written model may leave the default, and then updates write every column.
    var _persistence: PersistenceState<Self>? { get set }
    /// Declares the model's validations; the default has none.
    static func validations(_ v: inout Validations<Self>)
    /// The stored property a column maps to, or nil (`@Model` writes it; used to set foreign keys).
    static func keyPath(forColumn column: String) -> PartialKeyPath<Self>?
    /// The model's associations, so deleting it can apply their delete rules (`@Model` lists the
    /// `static let` declared with `hasMany`, `hasOne` or `belongsTo`).
    static var associations: [any ModelAssociation<Self>] { get }
    /// Indexes the migration creates besides the table; none by default.
    static var indexes: [Index] { get }
    /// Foreign keys the migration declares when it creates the table; none by default.
    static var foreignKeys: [ForeignKey] { get }
}

extension Model {
    public var _persistence: PersistenceState<Self>? {
        get { nil }
        set {}  // swiftlint:disable:this unused_setter_value
    }

    public static func validations(_ v: inout Validations<Self>) {}

    public static func keyPath(forColumn column: String) -> PartialKeyPath<Self>? { nil }

    public static var associations: [any ModelAssociation<Self>] { [] }

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

/// The state a model was last seen in by the database, kept inside the model value.
///
/// Always equal and hashing to nothing, so it never changes a model's `==` or `hash`; it encodes
/// as nothing useful to `Codable` (a `null`), and decodes as absent.
public final class PersistenceState<M: Model>: Sendable, Hashable, Codable {
    /// The model as last read or written; nil only for a state decoded from `Codable`.
    public let original: M?
    /// Associations loaded by `including(…)`, by association key.
    let loaded: [String: any Sendable]

    public init(original: M) {
        var copy = original
        copy._persistence = nil
        self.original = copy
        self.loaded = [:]
    }

    init(original: M?, loaded: [String: any Sendable]) {
        self.original = original
        self.loaded = loaded
    }

    public static func == (lhs: PersistenceState, rhs: PersistenceState) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encodeNil()
    }
    public init(from decoder: any Decoder) throws {
        original = nil
        loaded = [:]
    }
}
