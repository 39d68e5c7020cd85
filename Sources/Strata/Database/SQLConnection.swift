// SQLConnection: a connection that speaks SQL; statements are rendered by the dialect for it.

/// A SQL backend's connection: it runs SQL text with bound values; the core renders for it.
public protocol SQLConnection: DatabaseConnection {
    /// The dialect statements are rendered with.
    var dialect: any Dialect { get }
    /// Runs one SQL statement with `?`-free, dialect-rendered placeholders and its binds.
    ///
    /// - Returns: the number of rows changed.
    func run(_ sql: RenderedSQL, statement: Statement?, onRow: (any RowReader) throws -> Void) throws -> Int

    /// The connection's rendered templates, or nil to render every statement (the default).
    var templates: TemplateCache? { get }

    /// Runs a rendering of a template; a driver may key its prepared-statement cache by `template`
    /// instead of the SQL text. The default calls ``run(_:statement:onRow:)``.
    func run(
        _ sql: RenderedSQL, statement: Statement?, template: StatementTemplate,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int
}

extension SQLConnection {
    public var maxBindParameters: Int { dialect.maxBindParameters }

    public var templates: TemplateCache? { nil }

    public func run(
        _ sql: RenderedSQL, statement: Statement?, template: StatementTemplate,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        try run(sql, statement: statement, onRow: onRow)
    }

    public func execute(_ statement: Statement, template: StatementTemplate?, onRow: (any RowReader) throws -> Void)
        throws -> Int
    {
        try renderAndRun(statement, template: template, onRow: onRow)
    }

    /// Renders a statement (once per template, when the connection keeps templates) and runs it; the
    /// default of both `execute` requirements, callable by a driver that adds its own step around it.
    public func renderAndRun(
        _ statement: Statement, template: StatementTemplate?,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        guard let template, let templates else {
            return try run(try SQLRenderer.render(statement, dialect: dialect), statement: statement, onRow: onRow)
        }
        if let sql = templates.sql[template] {
            return try run(
                RenderedSQL(sql: sql, binds: SQLRenderer.binds(of: statement)), statement: statement,
                template: template, onRow: onRow)
        }
        let rendered = try SQLRenderer.render(statement, dialect: dialect)
        templates.sql[template] = rendered.sql
        return try run(rendered, statement: statement, template: template, onRow: onRow)
    }

    public func execute(_ statement: Statement, onRow: (any RowReader) throws -> Void) throws -> Int {
        try renderAndRun(statement, template: nil, onRow: onRow)
    }

    public func executeRaw(_ sql: String, _ binds: [DatabaseValue], onRow: (any RowReader) throws -> Void) throws -> Int
    {
        let rendered = try SQLRenderer.renderRaw(sql, binds, dialect: dialect)
        return try run(rendered, statement: nil, onRow: onRow)
    }
}
