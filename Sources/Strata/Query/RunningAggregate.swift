// RunningAggregate: running `sum`, `avg`, `count`, `min` and `max` over a window, as typed select items.

extension Projection {
    /// `SUM(c) OVER (…)`: the running total of a column, from the partition's first row up to the row (the whole
    /// partition without an order). Integers give an `Int64?` (a total past Int64 is
    /// ``StrataError/arithmeticError(expression:reason:)`` on every driver), doubles a `Double?`, decimals an exact
    /// `Decimal?`; nil until a non-NULL value. Peers are added one by one: end the order with a key.
    ///
    /// ```swift
    /// .select(.column(\.id), .sum(\.amount, over: .partition(by: \.customerID).order(\.id)))   // [(Int64?, Int64?)]
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", strata_int_value(strata_int_sum("amount") OVER (PARTITION BY "customer_id" ORDER BY "id" ASC
    ///   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)) FROM "order"
    /// -- PostgreSQL
    /// SELECT "id", CAST(SUM("amount") OVER (PARTITION BY "customer_id" ORDER BY "id" ASC
    ///   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS BIGINT) FROM "order"
    /// ```
    ///
    /// - Parameters:
    ///   - kp: a numeric column (another type is refused with `invalidAggregate` naming it).
    ///   - window: the partition and order.
    /// - Returns: the running total, optional.
    public static func sum<V: SummableColumn>(_ kp: KeyPath<M, V>, over window: WindowDefinition<M>)
        -> Projection<M, V.Sum?>
    {
        running(.sum, kp, window)
    }

    /// `AVG(c) OVER (…)`: the running mean, a `Double?` on every driver (the exact running sum read as the nearest
    /// double, over the running count).
    ///
    /// - Parameters:
    ///   - kp: a numeric column.
    ///   - window: the partition and order.
    /// - Returns: the running mean, nil until a non-NULL value.
    public static func avg<V: SummableColumn>(_ kp: KeyPath<M, V>, over window: WindowDefinition<M>)
        -> Projection<M, Double?>
    {
        running(.avg, kp, window)
    }

    /// `COUNT(*) OVER (…)`: the rows of the frame, an `Int`.
    ///
    /// - Parameter window: the partition and order.
    /// - Returns: the running count.
    public static func count(over window: WindowDefinition<M>) -> Projection<M, Int> {
        running(.count, nil, window)
    }

    /// `COUNT(c) OVER (…)`: the non-NULL values of the frame, an `Int`.
    ///
    /// - Parameters:
    ///   - kp: the column.
    ///   - window: the partition and order.
    /// - Returns: the running count.
    public static func count<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>, over window: WindowDefinition<M>)
        -> Projection<M, Int>
    {
        running(.count, kp, window)
    }

    /// `MIN(c) OVER (…)`: the least value of the frame so far, of a column that orders alike everywhere.
    ///
    /// - Parameters:
    ///   - kp: the column (booleans, UUIDs, JSON and blobs are refused with `invalidAggregate`).
    ///   - window: the partition and order.
    /// - Returns: the running minimum, nil until a non-NULL value.
    public static func min<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>, over window: WindowDefinition<M>)
        -> Projection<M, V?>
    {
        running(.min, kp, window)
    }

    /// `MIN(c) OVER (…)` of an optional column.
    public static func min<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>, over window: WindowDefinition<M>)
        -> Projection<M, V?>
    {
        running(.min, kp, window)
    }

    /// `MAX(c) OVER (…)`: the greatest value of the frame so far.
    ///
    /// - Parameters:
    ///   - kp: the column.
    ///   - window: the partition and order.
    /// - Returns: the running maximum, nil until a non-NULL value.
    public static func max<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>, over window: WindowDefinition<M>)
        -> Projection<M, V?>
    {
        running(.max, kp, window)
    }

    /// `MAX(c) OVER (…)` of an optional column.
    public static func max<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>, over window: WindowDefinition<M>)
        -> Projection<M, V?>
    {
        running(.max, kp, window)
    }

    private static func running<R>(
        _ function: WindowFunction.Function, _ kp: PartialKeyPath<M>?, _ window: WindowDefinition<M>
    ) -> Projection<M, R> {
        let item = window.resolveAggregate(function, kp)
        let column = kp.map { M.columnName(for: $0) ?? "\($0)" }
        return Projection<M, R>(key: function.rawValue + (column.map { "_" + $0 } ?? "")) { _ in item }
    }
}
