// Join: one JOIN of a SELECT, and the column references that name a joined table.

/// `kind JOIN table AS alias ON condition`.
public struct Join: Sendable, Hashable {
    /// Which rows survive the join. RIGHT and FULL need SQLite 3.39 or later.
    public enum Kind: String, Sendable, Hashable {
        /// `INNER JOIN`: only rows with a match on both sides.
        case inner = "INNER"
        /// `LEFT JOIN`: every row of the main table, with NULLs where the joined table has no match.
        case left = "LEFT"
        /// `RIGHT JOIN`: every row of the joined table, with NULLs where the main table has no match.
        case right = "RIGHT"
        /// `FULL JOIN`: every row of both sides, with NULLs where the other side has no match.
        case full = "FULL"
    }

    /// Which rows survive: inner, left, right or full.
    public var kind: Kind
    /// The table joined to the main one.
    public var table: String
    /// The name the joined table goes by in the query (distinct from the main table, so a table can
    /// join itself).
    public var alias: String
    /// The join condition; its columns are qualified (``SQLExpression/column(_:table:)``).
    public var on: SQLExpression

    /// `kind JOIN table AS alias ON on`.
    ///
    /// - Parameters:
    ///   - kind: inner, left, right or full.
    ///   - table: the joined table's name.
    ///   - alias: the name it goes by in the query.
    ///   - on: the join condition, its columns qualified with the table or alias they belong to.
    public init(_ kind: Kind, table: String, alias: String, on: SQLExpression) {
        self.kind = kind
        self.table = table
        self.alias = alias
        self.on = on
    }
}

/// A column of the main table (table nil) or of a joined table (its alias).
public struct ColumnRef: Sendable, Hashable {
    /// The alias of the joined table the column belongs to, or nil for the main table.
    public var table: String?
    /// The column's name.
    public var name: String

    /// A column of the main table, or of the joined table with this alias.
    ///
    /// - Parameters:
    ///   - name: the column's name.
    ///   - table: the joined table's alias, or nil for the main table.
    public init(_ name: String, table: String? = nil) {
        self.table = table
        self.name = name
    }
}
