// WindowDefinition: the partition and order a window function reads, built from a model's key paths.

/// The rows a window function reads for each row: those of the same partition, in an order.
///
/// ```swift
/// let ranked = try await Post.query(on: db).select(
///     .column(\.id),
///     .rank(over: .partition(by: \.userID).order(\.views, .descending).order(\.id)))   // [(Int64?, Int)]
/// ```
///
/// Text orders by code point and NULLs come first ascending and last descending, as in a query's `order(_:_:)`.
public struct WindowDefinition<M: Model>: Sendable {
    var partition: [ColumnRef] = []
    var order: [Ordering] = []
    /// The first key path that named no column, reported when the query runs.
    var error: StrataError?

    init() {}

    /// The whole result as one partition, in no order (every row is a peer of every other).
    public static var all: Self { Self() }

    /// One partition per distinct combination of these columns' values (NULL equal to NULL).
    public static func partition(by keyPaths: PartialKeyPath<M>...) -> Self { Self().partitioned(by: keyPaths) }

    /// Adds columns to the partition.
    public func partition(by keyPaths: PartialKeyPath<M>...) -> Self { partitioned(by: keyPaths) }

    /// The whole result as one partition, in this order.
    public static func order<V>(_ kp: KeyPath<M, V>, _ direction: Ordering.Direction = .ascending) -> Self {
        Self().order(kp, direction)
    }

    /// Adds an order term after the earlier ones (end with a key for a deterministic ``Projection/rowNumber(over:)``).
    public func order<V>(_ kp: KeyPath<M, V>, _ direction: Ordering.Direction = .ascending) -> Self {
        var copy = self
        guard let name = M.columnName(for: kp) else {
            copy.error = copy.error ?? .unknownColumn(model: M.modelName, column: "\(kp)")
            return copy
        }
        var ordering = Ordering(name, direction)
        ordering.isText = M.schema.isText(name)
        ordering.isNeverNull = M.schema.isNeverNull(name)
        copy.order.append(ordering)
        return copy
    }

    private func partitioned(by keyPaths: [PartialKeyPath<M>]) -> Self {
        var copy = self
        for kp in keyPaths {
            guard let name = M.columnName(for: kp) else {
                copy.error = copy.error ?? .unknownColumn(model: M.modelName, column: "\(kp)")
                continue
            }
            copy.partition.append(ColumnRef(name))
        }
        return copy
    }

    /// The window function `function` over this definition, or the error of a key path that named no column.
    func resolve(_ function: WindowFunction.Function) -> Result<SelectItem, StrataError> {
        if let error { return .failure(error) }
        return .success(.window(WindowFunction(function, partition: partition, order: order)))
    }

    /// `LAG` or `LEAD` of the column `kp` names over this definition.
    func resolve<V>(
        _ function: WindowFunction.Function, _ kp: KeyPath<M, V>, offset: Int, default value: DatabaseValue
    ) -> Result<SelectItem, StrataError> {
        if let error { return .failure(error) }
        guard let name = M.columnName(for: kp) else {
            return .failure(.unknownColumn(model: M.modelName, column: "\(kp)"))
        }
        return .success(
            .window(
                WindowFunction(
                    function, ColumnRef(name), offset: offset, default: value, partition: partition, order: order)))
    }

    /// The running aggregate `function` of the column `kp` names (or `COUNT(*)` without one) over this definition,
    /// or the typed error of a column it cannot aggregate alike on every backend.
    func resolveAggregate(_ function: WindowFunction.Function, _ kp: PartialKeyPath<M>?)
        -> Result<SelectItem, StrataError>
    {
        if let error { return .failure(error) }
        var column: ColumnRef?
        var type: ColumnType?
        if let kp {
            guard let name = M.columnName(for: kp) else {
                return .failure(.unknownColumn(model: M.modelName, column: "\(kp)"))
            }
            column = ColumnRef(name)
            type = M.schema.columnType(of: name)
        }
        let w = WindowFunction(function, column, type: type, partition: partition, order: order)
        if let reason = w.aggregate?.typeProblem {
            return .failure(.invalidAggregate(model: M.modelName, column: column?.name ?? "*", reason: reason))
        }
        return .success(.window(w))
    }
}

extension Projection {
    /// `ROW_NUMBER() OVER (…)`: 1, 2, 3… in the window's order within each partition. Rows equal on every order
    /// term are numbered in an order no backend promises: end the order with a key to pin it.
    ///
    /// ```swift
    /// .select(.column(\.id), .rowNumber(over: .partition(by: \.userID).order(\.views, .descending).order(\.id)))
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", ROW_NUMBER() OVER (PARTITION BY "user_id" ORDER BY "views" DESC, "id" ASC) FROM "post"
    /// -- PostgreSQL
    /// SELECT "id", ROW_NUMBER() OVER (PARTITION BY "user_id" ORDER BY "views" DESC, "id" ASC) FROM "post"
    /// ```
    ///
    /// - Parameter window: the partition and order.
    /// - Returns: the row's number, an `Int` on every driver.
    public static func rowNumber(over window: WindowDefinition<M>) -> Projection<M, Int> {
        let item = window.resolve(.rowNumber)
        return Projection<M, Int>(key: "row_number") { _ in item }
    }

    /// `RANK() OVER (…)`: 1 plus the number of rows of the partition before the row's peers (1, 1, 3).
    ///
    /// - Parameter window: the partition and order; rows equal on every order term rank alike.
    /// - Returns: the row's rank, an `Int` on every driver.
    public static func rank(over window: WindowDefinition<M>) -> Projection<M, Int> {
        let item = window.resolve(.rank)
        return Projection<M, Int>(key: "rank") { _ in item }
    }

    /// `DENSE_RANK() OVER (…)`: 1 plus the number of distinct order values before the row's (1, 1, 2).
    ///
    /// - Parameter window: the partition and order; rows equal on every order term rank alike.
    /// - Returns: the row's dense rank, an `Int` on every driver.
    public static func denseRank(over window: WindowDefinition<M>) -> Projection<M, Int> {
        let item = window.resolve(.denseRank)
        return Projection<M, Int>(key: "dense_rank") { _ in item }
    }

    /// `LAG(c, offset, default) OVER (…)`: the column's value `offset` rows before the row in the window's order,
    /// or `default` (nil: NULL) when the partition has no such row. End the order with a key: peers come in an
    /// order no backend promises.
    ///
    /// ```swift
    /// .select(.column(\.id), .lag(\.views, over: .partition(by: \.userID).order(\.id)))   // [(Int64?, Int?)]
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", LAG("views", 1) OVER (PARTITION BY "user_id" ORDER BY "id" ASC) FROM "post"
    /// -- PostgreSQL
    /// SELECT "id", LAG("views", 1) OVER (PARTITION BY "user_id" ORDER BY "id" ASC) FROM "post"
    /// ```
    ///
    /// - Parameters:
    ///   - kp: the column to read.
    ///   - offset: how many rows before; 0 or more (a negative one is refused with `invalidQuery` when the query
    ///     runs, on every driver).
    ///   - value: what to give past the partition's start, bound as a parameter.
    ///   - window: the partition and order.
    /// - Returns: the value, optional: NULL past the start without a default, or where the column is NULL.
    public static func lag<V: DatabaseValueConvertible>(
        _ kp: KeyPath<M, V>, offset: Int = 1, default value: V? = nil, over window: WindowDefinition<M>
    ) -> Projection<M, V?> {
        let item = window.resolve(.lag, kp, offset: offset, default: value?.databaseValue ?? .null)
        return Projection<M, V?>(key: "lag_" + (M.columnName(for: kp) ?? "\(kp)")) { _ in item }
    }

    /// `LAG` of an optional column: its value `offset` rows before, or `default` (nil: NULL).
    public static func lag<V: DatabaseValueConvertible>(
        _ kp: KeyPath<M, V?>, offset: Int = 1, default value: V? = nil, over window: WindowDefinition<M>
    ) -> Projection<M, V?> {
        let item = window.resolve(.lag, kp, offset: offset, default: value?.databaseValue ?? .null)
        return Projection<M, V?>(key: "lag_" + (M.columnName(for: kp) ?? "\(kp)")) { _ in item }
    }

    /// `LEAD(c, offset, default) OVER (…)`: the column's value `offset` rows after the row in the window's order,
    /// or `default` (nil: NULL) when the partition has no such row.
    ///
    /// - Parameters:
    ///   - kp: the column to read.
    ///   - offset: how many rows after; 0 or more.
    ///   - value: what to give past the partition's end, bound as a parameter.
    ///   - window: the partition and order.
    /// - Returns: the value, optional.
    public static func lead<V: DatabaseValueConvertible>(
        _ kp: KeyPath<M, V>, offset: Int = 1, default value: V? = nil, over window: WindowDefinition<M>
    ) -> Projection<M, V?> {
        let item = window.resolve(.lead, kp, offset: offset, default: value?.databaseValue ?? .null)
        return Projection<M, V?>(key: "lead_" + (M.columnName(for: kp) ?? "\(kp)")) { _ in item }
    }

    /// `LEAD` of an optional column.
    public static func lead<V: DatabaseValueConvertible>(
        _ kp: KeyPath<M, V?>, offset: Int = 1, default value: V? = nil, over window: WindowDefinition<M>
    ) -> Projection<M, V?> {
        let item = window.resolve(.lead, kp, offset: offset, default: value?.databaseValue ?? .null)
        return Projection<M, V?>(key: "lead_" + (M.columnName(for: kp) ?? "\(kp)")) { _ in item }
    }
}
