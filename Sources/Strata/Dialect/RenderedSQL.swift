// RenderedSQL: SQL text plus the values it binds, the renderer's only output.

/// SQL text with its placeholders and the values bound to them, in order.
public struct RenderedSQL: Sendable, Hashable {
    /// The SQL text, with the dialect's placeholders (`?` on SQLite, `$1` … on PostgreSQL).
    public var sql: String
    /// The values bound to the placeholders, in placeholder order.
    public var binds: [DatabaseValue]

    /// SQL text and its bound values.
    ///
    /// - Parameters:
    ///   - sql: the SQL text with placeholders.
    ///   - binds: one value per placeholder, in order.
    public init(sql: String, binds: [DatabaseValue]) {
        self.sql = sql
        self.binds = binds
    }
}
