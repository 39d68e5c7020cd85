// WindowFunction: a ranking, offset or running aggregate function over a window of rows (`… OVER (…)`), a value.

/// One window function in a SELECT's items: `ROW_NUMBER()`, `RANK()`, `DENSE_RANK()`, `LAG(c, n, d)`,
/// `LEAD(c, n, d)`, or a running `SUM`, `AVG`, `COUNT`, `MIN` or `MAX` over the rows of the same ``partition``,
/// taken in ``order``.
///
/// Every driver gives the same answer: the rows are split by the partition's values (NULL equal to NULL), sorted
/// by the order terms with NULLs first ascending and last descending (as ORDER BY, text by code point), and
/// numbered from 1. Rows equal on every order term are peers: `RANK` gives peers the same number and skips as many
/// after them (1, 1, 3), `DENSE_RANK` skips none (1, 1, 2), and `ROW_NUMBER` numbers peers in an order no backend
/// promises, so a query that needs it deterministic ends its order with a key (the memory driver numbers peers in
/// scan order). `LAG` and `LEAD` read their ``argument`` in the row ``offset`` rows before or after the row in
/// that order, or ``defaultValue`` past the partition's ends. A running aggregate reads the rows of its frame, which
/// Strata always writes out: with an order, the partition's rows from its first up to the row itself
/// (`ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`, so peers are added one by one, in an order no backend
/// promises: end the order with a key); without one, the whole partition. Its types and overflow follow
/// ``Aggregate``'s: an integer sum past Int64 is ``StrataError/arithmeticError(expression:reason:)`` on every
/// driver, `AVG` is a double, a decimal sum is exact. A window is computed after WHERE and before the outer
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
        /// `SUM(c)` over the frame: integers to an integer (past Int64 an error), doubles, decimals exactly.
        case sum
        /// `AVG(c)` over the frame, a double.
        case avg
        /// `COUNT(c)` (or `COUNT(*)` without an argument) over the frame.
        case count
        /// `MIN(c)` over the frame.
        case min
        /// `MAX(c)` over the frame.
        case max

        /// The aggregate function a running aggregate calls, or nil for a ranking or offset function.
        public var aggregate: Aggregate.Function? {
            switch self {
            case .sum: .sum
            case .avg: .avg
            case .count: .count
            case .min: .min
            case .max: .max
            case .rowNumber, .rank, .denseRank, .lag, .lead: nil
            }
        }
    }

    /// The function called.
    public var function: Function
    /// The columns whose values split the rows into partitions (`PARTITION BY`); empty for one partition.
    public var partition: [ColumnRef]
    /// The order of the rows within each partition (`ORDER BY`), most significant first; NULLs first ascending.
    public var order: [Ordering]
    /// The column `LAG`, `LEAD` and the running aggregates read; nil for the ranking functions and `COUNT(*)`.
    public var argument: ColumnRef?
    /// The argument column's type, which picks a running aggregate's spelling and its result's type.
    public var argumentType: ColumnType?
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

    /// A running aggregate of a column (or `COUNT(*)` without one).
    ///
    /// - Parameters:
    ///   - function: ``Function/sum``, ``Function/avg``, ``Function/count``, ``Function/min`` or ``Function/max``.
    ///   - argument: the column to aggregate, or nil for `COUNT(*)`.
    ///   - type: the column's type.
    ///   - partition: the columns splitting the rows, or none for one partition.
    ///   - order: the order within each partition; none for the whole partition as the frame.
    public init(
        _ function: Function, _ argument: ColumnRef?, type: ColumnType?, partition: [ColumnRef] = [],
        order: [Ordering] = []
    ) {
        self.init(function, partition: partition, order: order)
        self.argument = argument
        self.argumentType = type
    }

    /// The plain aggregate a running aggregate computes over its frame (whose rules it follows), or nil.
    public var aggregate: Aggregate? {
        function.aggregate.map { Aggregate($0, argument, type: argumentType) }
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
        if function.aggregate != nil {
            call += argument.map(name) ?? "*"
        } else if let argument {
            call += name(argument) + ", \(offset)" + (defaultValue.isNull ? "" : ", default")
        }
        return call + ") over (" + parts.joined(separator: " ") + ")"
    }
}
