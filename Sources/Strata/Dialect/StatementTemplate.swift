// StatementTemplate: names a statement shape whose SQL a connection may render once and reuse.

/// A statement shape that is the same SQL every time for one model: a connection may prepare it
/// once and then only bind new values (in the order ``SQLRenderer/binds(of:dialect:)`` collects them).
public struct StatementTemplate: Hashable, Sendable {
    /// Which statement shape the template stands for.
    ///
    /// Indirect, so that a template is copied with a retain of its payload's box at most: every statement of a loop of
    /// saves or finds hands its template through a few calls (about 130 instructions a statement went to copying and
    /// comparing a kind that carried an ``OnConflict`` inline, about 500 a one-shot lookup).
    public indirect enum Kind: Hashable, Sendable {
        /// `INSERT` of every column but the primary key, `RETURNING` the key.
        case insertReturningKey
        /// `SELECT` every column `WHERE key = ?`.
        case findByKey
        /// `SELECT` the columns the database computes (generated ones, those with a database default) `WHERE key
        /// = ?`: what an insert or update reads back into the model.
        case readBackByKey
        /// A multi-row `INSERT` of this many rows, `RETURNING` the key.
        case insertRowsReturningKey(Int)
        /// A multi-row upsert (`INSERT … ON CONFLICT …`) of this many rows, `RETURNING` the key.
        case upsertRowsReturningKey(Int, OnConflict)
    }

    /// The model type the statement is for (two models on one table have different templates).
    public let model: ObjectIdentifier
    /// The statement's shape.
    public let kind: Kind
    /// The table the statement reads or writes (observers of a database are told which tables changed).
    public let table: String
    /// Whether the statement only reads (``Kind/findByKey``, ``Kind/readBackByKey``): set once, so the hot path
    /// tests a flag, not an enum.
    @usableFromInline let isRead: Bool
    /// The kind as a number when it carries no payload (1: ``Kind/insertReturningKey``, 2: ``Kind/findByKey``, 3:
    /// ``Kind/readBackByKey``), else 0: ``isSame(as:)`` compares two templates without reaching into the kind's box (the derived `==` of an indirect
    /// enum, with a retain and a release of each side's box, cost about 60 instructions a statement).
    @usableFromInline let plainKind: UInt8

    /// A template for one model and statement shape.
    ///
    /// - Parameters:
    ///   - model: the model type.
    ///   - kind: the statement's shape.
    ///   - table: the table the statement reads or writes.
    @inlinable
    public init(_ model: Any.Type, _ kind: Kind, table: String) {
        self.model = ObjectIdentifier(model)
        self.kind = kind
        self.table = table
        switch kind {
        case .findByKey: (isRead, plainKind) = (true, 2)
        case .insertReturningKey: (isRead, plainKind) = (false, 1)
        case .readBackByKey: (isRead, plainKind) = (true, 3)
        default: (isRead, plainKind) = (false, 0)
        }
    }

    /// Whether `other` is the same template (as `==` answers), comparing the kind only when it carries a payload.
    ///
    /// - Parameter other: the template to compare with.
    /// - Returns: true when both name the same model, kind and table.
    @inlinable
    public func isSame(as other: StatementTemplate) -> Bool {
        model == other.model && plainKind == other.plainKind && table == other.table
            && (plainKind != 0 || kind == other.kind)
    }

    /// Whether the statement reads at most one row: a find or a read-back by the table's primary key
    /// (``Kind/findByKey``, ``Kind/readBackByKey``), whose values no two rows share. A driver may stop reading after
    /// the first row.
    @inlinable public var readsAtMostOneRow: Bool { plainKind == 2 || plainKind == 3 }
}
