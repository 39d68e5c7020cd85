// Join: one JOIN of a SELECT, and the column references that name a joined table.

/// `kind JOIN table AS alias ON condition`.
public struct Join: Sendable, Hashable {
    /// Which rows survive the join. RIGHT and FULL need SQLite 3.39 or later.
    public enum Kind: String, Sendable, Hashable {
        case inner = "INNER"
        case left = "LEFT"
        case right = "RIGHT"
        case full = "FULL"
    }

    public var kind: Kind
    public var table: String
    /// The name the joined table goes by in the query (distinct from the main table, so a table can
    /// join itself).
    public var alias: String
    /// The join condition; its columns are qualified (``SQLExpression/column(_:table:)``).
    public var on: SQLExpression

    public init(_ kind: Kind, table: String, alias: String, on: SQLExpression) {
        self.kind = kind
        self.table = table
        self.alias = alias
        self.on = on
    }
}

/// A column of the main table (table nil) or of a joined table (its alias).
public struct ColumnRef: Sendable, Hashable {
    public var table: String?
    public var name: String

    public init(_ name: String, table: String? = nil) {
        self.table = table
        self.name = name
    }
}
