// StatementTemplate: names a statement shape whose SQL a connection may render once and reuse.

/// A statement shape that is the same SQL every time for one model: a connection may render it
/// once and then only bind new values (``SQLRenderer/binds(of:)`` collects them in render order).
public struct StatementTemplate: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// `INSERT` of every column but the primary key, `RETURNING` the key.
        case insertReturningKey
        /// `SELECT` every column `WHERE key = ? LIMIT ?`.
        case findByKey
        /// A multi-row `INSERT` of this many rows, `RETURNING` the key.
        case insertRowsReturningKey(Int)
    }

    public let model: ObjectIdentifier
    public let kind: Kind

    public init(_ model: Any.Type, _ kind: Kind) {
        self.model = ObjectIdentifier(model)
        self.kind = kind
    }
}

/// A connection's rendered templates. A class so a connection can hold it by reference; used by one
/// task at a time, like its connection.
public final class TemplateCache {
    public var sql: [StatementTemplate: String] = [:]
    public init() {}
}
