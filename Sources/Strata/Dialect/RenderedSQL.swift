// RenderedSQL: SQL text plus the values it binds, the renderer's only output.

/// SQL text with its placeholders and the values bound to them, in order.
public struct RenderedSQL: Sendable, Hashable {
    public var sql: String
    public var binds: [DatabaseValue]

    public init(sql: String, binds: [DatabaseValue]) {
        self.sql = sql
        self.binds = binds
    }
}
