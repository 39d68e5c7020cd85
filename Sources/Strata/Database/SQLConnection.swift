// SQLConnection: a connection that speaks SQL; statements are rendered by the dialect for it.

/// A SQL backend's connection: it runs SQL text with bound values; the core renders for it.
public protocol SQLConnection: DatabaseConnection {
    /// The dialect statements are rendered with.
    var dialect: any Dialect { get }
    /// Runs one SQL statement with `?`-free, dialect-rendered placeholders and its binds.
    ///
    /// - Returns: the number of rows changed.
    func run(_ sql: RenderedSQL, statement: Statement?, onRow: (any RowReader) throws -> Void) throws -> Int
    /// The connection's rendered SELECTs by shape (see ``RenderCache``), which ``renderAndRun(_:onRow:)`` renders
    /// through, or nil to render every statement. Default nil.
    var renderCache: RenderCache? { get }
}

extension SQLConnection {
    /// The level the dialect grants for `requested` (see ``Dialect/isolationLevels``), or nil when none is as strong.
    public func isolation(serving requested: IsolationLevel) -> IsolationLevel? {
        dialect.isolationLevels.serving(requested)
    }
    /// The dialect's ``Dialect/maxBindParameters``.
    public var maxBindParameters: Int { dialect.maxBindParameters }
    /// None: every statement is rendered.
    public var renderCache: RenderCache? { nil }
    /// No limit when the dialect binds long lists as one array (``Dialect/inListArray``); otherwise
    /// ``maxBindParameters`` less 16.
    public var maxInListValues: Int { dialect.inListArray != nil ? .max : Swift.max(1, maxBindParameters - 16) }

    /// Renders a statement with the connection's dialect and runs it; the default `execute`, callable by
    /// a driver that adds its own step around it.
    ///
    /// A transaction that begins at an isolation level in several statements
    /// (``IsolationBeginSyntax/setTransactionThenStart``) runs each of ``SQLRenderer/beginStatements(_:dialect:)``
    /// in order. A SELECT is rendered through ``renderCache`` when the connection has one.
    public func renderAndRun(_ statement: Statement, onRow: (any RowReader) throws -> Void) throws -> Int {
        if case .beginIsolated(let level) = statement, dialect.isolationBegin == .setTransactionThenStart {
            for sql in try SQLRenderer.beginStatements(level, dialect: dialect) {
                _ = try run(RenderedSQL(sql: sql, binds: []), statement: statement, onRow: onRow)
            }
            return 0
        }
        if let cache = renderCache {
            if case .select(let select) = statement {
                return try run(try cache.render(select, dialect: dialect), statement: statement, onRow: onRow)
            }
            if let control = try cache.control(statement, dialect: dialect) {
                return try run(control, statement: statement, onRow: onRow)
            }
        }
        return try run(try SQLRenderer.render(statement, dialect: dialect), statement: statement, onRow: onRow)
    }

    /// Renders the statement with ``dialect`` and runs it (see ``renderAndRun(_:onRow:)``).
    ///
    /// - Parameters:
    ///   - statement: the statement to run.
    ///   - onRow: receives each row it returns.
    /// - Returns: the number of rows it changed.
    /// - Throws: ``StrataError`` from rendering or from the database.
    public func execute(_ statement: Statement, onRow: (any RowReader) throws -> Void) throws -> Int {
        try renderAndRun(statement, onRow: onRow)
    }

    /// Rewrites the `?` markers of `sql` into the dialect's placeholders and runs it with `binds`.
    ///
    /// - Parameters:
    ///   - sql: raw SQL with one `?` per bound value.
    ///   - binds: the values, in marker order.
    ///   - onRow: receives each row it returns.
    /// - Returns: the number of rows it changed.
    /// - Throws: ``StrataError/invalidQuery(_:)`` when the markers and values differ in number; database errors.
    public func executeRaw(_ sql: String, _ binds: [DatabaseValue], onRow: (any RowReader) throws -> Void) throws -> Int
    {
        let rendered = try SQLRenderer.renderRaw(sql, binds, dialect: dialect)
        return try run(rendered, statement: nil, onRow: onRow)
    }

    /// The plan the dialect's ``Dialect/explainSyntax`` asks for: `EXPLAIN …` before the rendered SELECT, each
    /// row's detail column as one line.
    ///
    /// - Parameter select: the query.
    /// - Returns: the plan's lines.
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` when the dialect has no syntax; database errors.
    public func explain(_ select: Select) throws -> [String] {
        var lines: [String] = []
        try explainLines(select) { lines.append($0) }
        return lines
    }

    /// The plan's lines joined by newlines, as `QueryBuilder.explain()` returns them: each line appended to one
    /// string as it is read (no array of lines to make, join and free).
    ///
    /// - Parameter select: the query.
    /// - Returns: the plan, its lines joined by newlines.
    /// - Throws: as ``explain(_:)``.
    package func explainText(_ select: Select) throws -> String {
        var plan = PlanText()
        try explainLines(select) { plan.append($0) }
        return plan.text
    }

    /// Runs the plan's statement and hands each row's detail column to `line`, in order.
    private func explainLines(_ select: Select, _ line: (String) -> Void) throws {
        guard let syntax = dialect.explainSyntax else {
            throw StrataError.unsupported(feature: "explain()", driver: dialect.name)
        }
        // Through the render cache: the SELECT of the last shape is not rendered again.
        let rendered: RenderedSQL
        let sql: String
        if let cache = renderCache {
            rendered = try cache.render(select, dialect: dialect)
            sql = cache.explaining(rendered.sql, prefix: syntax.prefix)
        } else {
            rendered = try SQLRenderer.render(.select(select), dialect: dialect)
            sql = syntax.prefix + " " + rendered.sql
        }
        _ = try run(RenderedSQL(sql: sql, binds: rendered.binds), statement: nil) { r in
            if let text = syntax.line(of: r) { line(text) }
        }
    }
}
