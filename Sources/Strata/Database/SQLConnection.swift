// SQLConnection: a connection that speaks SQL; statements are rendered by the dialect for it.

/// A SQL backend's connection: it runs SQL text with bound values; the core renders for it.
public protocol SQLConnection: DatabaseConnection {
    /// The dialect statements are rendered with.
    var dialect: any Dialect { get }
    /// Runs one SQL statement with `?`-free, dialect-rendered placeholders and its binds.
    ///
    /// - Returns: the number of rows changed.
    func run(_ sql: RenderedSQL, statement: Statement?, onRow: (any RowReader) throws -> Void) throws -> Int
}

extension SQLConnection {
    public var maxBindParameters: Int { dialect.maxBindParameters }

    public func execute(_ statement: Statement, onRow: (any RowReader) throws -> Void) throws -> Int {
        let rendered = try SQLRenderer.render(statement, dialect: dialect)
        return try run(rendered, statement: statement, onRow: onRow)
    }

    public func executeRaw(_ sql: String, _ binds: [DatabaseValue], onRow: (any RowReader) throws -> Void) throws -> Int
    {
        let rendered = try SQLRenderer.renderRaw(sql, binds, dialect: dialect)
        return try run(rendered, statement: nil, onRow: onRow)
    }
}
