// SetOperation: UNION, UNION ALL, INTERSECT and EXCEPT of SELECTs of one shape, as the rows a Select reads.

/// How two SELECTs of the same columns combine. Every kind but ``unionAll`` returns each distinct row once, NULL
/// equal to NULL (as SQL's set operations do on every backend).
public enum SetOperator: String, Sendable, Hashable, CaseIterable {
    /// The rows of either side, each distinct row once (`UNION`).
    case union = "UNION"
    /// The rows of both sides, duplicates kept (`UNION ALL`).
    case unionAll = "UNION ALL"
    /// The distinct rows found on both sides (`INTERSECT`).
    case intersect = "INTERSECT"
    /// The distinct rows of the left side not found on the right (`EXCEPT`).
    case except = "EXCEPT"
}

/// One step of a ``Compound``: an operator and the SELECT on its right.
public struct SetOperation: Sendable, Hashable {
    /// How the rows so far combine with ``select``'s.
    public var kind: SetOperator
    /// The right side: a SELECT of the same columns as the compound's first, without ORDER BY, LIMIT or OFFSET.
    public var select: Select

    /// `kind` with `select` on the right.
    ///
    /// - Parameters:
    ///   - kind: the set operator.
    ///   - select: the right side's SELECT.
    public init(_ kind: SetOperator, _ select: Select) {
        self.kind = kind
        self.select = select
    }
}

/// SELECTs of the same columns combined left to right, the source a ``Select`` reads instead of its table (see
/// ``Select/compound``).
///
/// Operators apply strictly from left to right on every backend: `a UNION b INTERSECT c` is `(a UNION b) INTERSECT
/// c` (PostgreSQL would bind INTERSECT first; the renderer nests the left side there). Branches take no ORDER BY,
/// LIMIT or OFFSET: order and page the combined rows instead (SQLite refuses them in a branch).
public struct Compound: Sendable, Hashable {
    /// Holds the first SELECT: an array, because a Select holds its compound.
    private var head: [Select]
    /// The operations after the first SELECT, applied in order.
    public var rest: [SetOperation]

    /// The leftmost SELECT, whose columns name the combined rows' columns.
    public var first: Select {
        get { head[0] }
        set { head[0] = newValue }
    }

    /// `first`, then each operation of `rest` in turn.
    ///
    /// - Parameters:
    ///   - first: the leftmost SELECT.
    ///   - rest: the operations that follow, at least one.
    public init(_ first: Select, _ rest: [SetOperation]) {
        self.head = [first]
        self.rest = rest
    }

    /// Every SELECT of the compound, left to right.
    public var branches: [Select] { [first] + rest.map(\.select) }

    /// The columns of the combined rows: the first SELECT's, or nil when it does not list columns.
    public var columns: [String]? {
        guard case .columns(let c) = first.selection else { return nil }
        return c
    }
}
