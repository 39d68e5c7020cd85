// RenderCache: a connection's rendered SELECTs by shape, so a query run again with other values is not rendered again.

/// The SQL of the SELECTs a connection ran, by shape (`RenderShape`): a SELECT whose shape was rendered before
/// takes that SQL and binds its own values in the order ``SQLRenderer/binds(of:dialect:)`` collects them, without
/// rendering anything.
///
/// One cache belongs to one connection (``SQLConnection/renderCache``), so it needs no lock and knows one dialect:
/// the connection's, which is fixed for its life (the statements whose SQL could follow the database's state, full-text
/// matches, are never cached). It holds at most ``capacity`` shapes and is emptied when a new shape would pass that
/// (an app's queries are a few hundred shapes at most; a workload of ever-new shapes costs one key and one clear per
/// `capacity` statements, not a growing table). The first rendering of a shape is also checked against
/// `binds(of:)`: a shape whose binds that function does not collect as the renderer places them (a HAVING bound,
/// a window's default in some forms) is remembered as one to render every time.
///
/// What a hit saves on SQLite (release build, callgrind): the recursive walk of `strata bench --only
/// cte-descendants` renders in about 135,000 instructions; its key, lookup and binds cost about 37,000 (see
/// <doc:Performance>).
public final class RenderCache {
    /// What the cache knows of a shape.
    private enum Entry {
        /// Its SQL: statements of the shape bind their own values into it.
        case sql(String)
        /// Rendered every time: `binds(of:)` does not match its rendering.
        case render
    }

    /// The most shapes held at once; 256 unless told otherwise.
    public let capacity: Int
    private var entries: [Select: Entry] = [:]
    /// The shape whose SQL was taken or remembered last, compared before the table is looked up: a loop over one
    /// query compares its key once instead of hashing it (hashing a recursive walk's shape cost about 17,000
    /// instructions, comparing it a fraction of that).
    private var last: (key: Select, sql: String)?
    /// How many SELECTs took a cached SQL text (for tests and the benchmarks).
    public private(set) var hits = 0

    /// An empty cache of at most `capacity` shapes.
    ///
    /// - Parameter capacity: the most shapes held at once (at least 1).
    public init(capacity: Int = 256) {
        self.capacity = Swift.max(1, capacity)
    }

    /// The SQL and binds of `select` for `dialect`: from the cache when its shape was rendered before, else rendered
    /// (and remembered).
    ///
    /// - Parameters:
    ///   - select: the query.
    ///   - dialect: the connection's dialect (always the same one for one cache).
    /// - Returns: the same SQL and binds as `SQLRenderer.render(.select(select), dialect:)`.
    /// - Throws: what rendering throws (a failed rendering is not remembered).
    public func render(_ select: Select, dialect: any Dialect) throws(StrataError) -> RenderedSQL {
        guard let key = RenderShape.key(of: select) else {
            return try SQLRenderer.render(.select(select), dialect: dialect)
        }
        if let last, last.key == key {
            hits &+= 1
            return RenderedSQL(sql: last.sql, binds: SQLRenderer.binds(of: .select(select), dialect: dialect))
        }
        switch entries[key] {
        case .sql(let sql)?:
            let binds = SQLRenderer.binds(of: .select(select), dialect: dialect)
            hits &+= 1
            last = (key, sql)
            return RenderedSQL(sql: sql, binds: binds)
        case .render?:
            return try SQLRenderer.render(.select(select), dialect: dialect)
        case nil:
            let rendered = try SQLRenderer.render(.select(select), dialect: dialect)
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            let collected = SQLRenderer.binds(of: .select(select), dialect: dialect)
            if Self.same(collected, rendered.binds) {
                entries[key] = .sql(rendered.sql)
                last = (key, rendered.sql)
            } else {
                entries[key] = .render
            }
            return rendered
        }
    }

    /// Forgets every shape.
    public func removeAll() {
        entries.removeAll()
        last = nil
    }

    /// How many shapes the cache holds.
    public var count: Int { entries.count }

    /// Whether two bind lists are the same values in the same order (a NaN is the same as itself here).
    package static func same(_ a: [DatabaseValue], _ b: [DatabaseValue]) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            guard case .double(let dx) = x, case .double(let dy) = y, dx.bitPattern == dy.bitPattern else {
                return false
            }
        }
        return true
    }
}
