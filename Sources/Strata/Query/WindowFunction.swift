// WindowFunction: a ranking or offset function over a window of rows (`ROW_NUMBER() OVER (…)`), as a plain value.

/// One window function in a SELECT's items: `ROW_NUMBER()`, `RANK()`, `DENSE_RANK()`, `LAG(c, n, d)` or
/// `LEAD(c, n, d)` over the rows of the same ``partition``, taken in ``order``.
///
/// Every driver gives the same answer: the rows are split by the partition's values (NULL equal to NULL), sorted
/// by the order terms with NULLs first ascending and last descending (as ORDER BY, text by code point), and
/// numbered from 1. Rows equal on every order term are peers: `RANK` gives peers the same number and skips as many
/// after them (1, 1, 3), `DENSE_RANK` skips none (1, 1, 2), and `ROW_NUMBER` numbers peers in an order no backend
/// promises, so a query that needs it deterministic ends its order with a key (the memory driver numbers peers in
/// scan order). `LAG` and `LEAD` read their ``argument`` in the row ``offset`` rows before or after the row in
/// that order, or ``defaultValue`` past the partition's ends. A window is computed after WHERE and before the outer
/// ORDER BY, LIMIT and OFFSET; it never appears in a grouped SELECT, a HAVING or a WHERE (read its value through a
/// WITH query to filter by it: see ``CommonTable/windowColumn``).
public struct WindowFunction: Sendable, Hashable {
    /// The function computed for each row.
    public enum Function: String, Sendable, Hashable, CaseIterable {
        /// `ROW_NUMBER()`: 1, 2, 3… within the partition, peers numbered in an unpromised order.
        case rowNumber = "row_number"
        /// `RANK()`: 1 plus the number of rows before the row's peers (gaps after ties).
        case rank
        /// `DENSE_RANK()`: 1 plus the number of distinct order values before the row's (no gaps).
        case denseRank = "dense_rank"
        /// `LAG(c, n, d)`: the argument `n` rows before, or the default.
        case lag
        /// `LEAD(c, n, d)`: the argument `n` rows after, or the default.
        case lead
    }

    /// The function called.
    public var function: Function
    /// The columns whose values split the rows into partitions (`PARTITION BY`); empty for one partition.
    public var partition: [ColumnRef]
    /// The order of the rows within each partition (`ORDER BY`), most significant first; NULLs first ascending.
    public var order: [Ordering]
    /// The column `LAG` and `LEAD` read; nil for the ranking functions.
    public var argument: ColumnRef?
    /// How many rows before (`LAG`) or after (`LEAD`) the row to read: 0 or more (1 unless told).
    public var offset = 1
    /// What `LAG` and `LEAD` give past the partition's ends (bound as a parameter; NULL unless told).
    public var defaultValue: DatabaseValue = .null

    /// A window function.
    ///
    /// - Parameters:
    ///   - function: the function to call.
    ///   - partition: the columns splitting the rows, or none for one partition.
    ///   - order: the order within each partition (give at least one term).
    public init(_ function: Function, partition: [ColumnRef] = [], order: [Ordering] = []) {
        self.function = function
        self.partition = partition
        self.order = order
    }

    /// `LAG` or `LEAD` of a column.
    ///
    /// - Parameters:
    ///   - function: ``Function/lag`` or ``Function/lead``.
    ///   - argument: the column to read.
    ///   - offset: how many rows before or after; 0 or more.
    ///   - defaultValue: the value past the partition's ends.
    ///   - partition: the columns splitting the rows, or none for one partition.
    ///   - order: the order within each partition.
    public init(
        _ function: Function, _ argument: ColumnRef, offset: Int = 1, default defaultValue: DatabaseValue = .null,
        partition: [ColumnRef] = [], order: [Ordering] = []
    ) {
        self.init(function, partition: partition, order: order)
        self.argument = argument
        self.offset = offset
        self.defaultValue = defaultValue
    }

    /// How the call reads in messages: `row_number() over (partition by user_id order by views desc, id)`.
    public var summary: String {
        func name(_ c: ColumnRef) -> String { c.table.map { $0 + "." + c.name } ?? c.name }
        var parts: [String] = []
        if !partition.isEmpty { parts.append("partition by " + partition.map(name).joined(separator: ", ")) }
        if !order.isEmpty {
            let terms = order.map { o in
                name(ColumnRef(o.column, table: o.table)) + (o.direction == .descending ? " desc" : "")
            }
            parts.append("order by " + terms.joined(separator: ", "))
        }
        var call = function.rawValue + "("
        if let argument {
            call += name(argument) + ", \(offset)" + (defaultValue.isNull ? "" : ", default")
        }
        return call + ") over (" + parts.joined(separator: " ") + ")"
    }
}
