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
/// The cache also remembers whether its last shape passed the core's statement check, and against which generation
/// of the known tables, so a loop over one query is checked once per connection (`passedCheck(_:generation:)`).
///
/// What a hit saves on SQLite (release build, callgrind): the recursive walk of `strata bench --only
/// cte-descendants` renders in about 135,000 instructions and is checked in about 17,000; a repeated walk is matched
/// to the last one in about 4,000 and its binds collected in 6,400 (see <doc:Performance>).
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
    /// The SELECT whose SQL was taken or remembered last, compared (`RenderShape/sameKey(_:_:)`)
    /// before any key is built or the table looked up: a loop over one query reads two statements side by side
    /// instead of building and hashing a key (hashing a recursive walk's key cost about 17,000 instructions, building
    /// it 7,000, comparing the two statements about 5,000). `checked` is the generation of the known tables at which
    /// a SELECT of its shape last passed the core's statement check, if one did (see `passedCheck(_:generation:)`).
    ///
    /// Kept in a class: reading it is one retain, where an optional tuple holding the SELECT was copied whole (each of
    /// its parts retained and released) at every comparison.
    private var last: Last?
    /// The generation at which the statement about to be rendered passed the core's check (`notePassed(generation:)`),
    /// taken by its rendering; cleared when the statement is done (`endStatement()`).
    private var passedAt: Int?
    /// Whether `passedCheck(_:generation:)` found the statement about to be rendered of ``last``'s key: its rendering
    /// then takes the SQL without comparing the two again. Cleared like ``passedAt``.
    private var matchedLast = false
    /// How many SELECTs took a cached SQL text (for tests and the benchmarks).
    public private(set) var hits = 0
    /// Transaction control statements rendered once (see ``control(_:dialect:)``).
    private var controls: [(kind: UInt8, name: String, sql: String)] = []

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
        let (checked, matched) = (passedAt, matchedLast)
        (passedAt, matchedLast) = (nil, false)
        if let last, matched || RenderShape.sameKey(select, last.select) {
            hits &+= 1
            if let checked { last.checked = checked }
            return RenderedSQL(sql: last.sql, binds: SQLRenderer.binds(ofSelect: select, dialect: dialect))
        }
        guard let key = RenderShape.key(of: select) else {
            return try SQLRenderer.render(.select(select), dialect: dialect)
        }
        switch entries[key] {
        case .sql(let sql)?:
            let binds = SQLRenderer.binds(ofSelect: select, dialect: dialect)
            hits &+= 1
            last = Last(select, sql, checked)
            return RenderedSQL(sql: sql, binds: binds)
        case .render?:
            return try SQLRenderer.render(.select(select), dialect: dialect)
        case nil:
            let rendered = try SQLRenderer.render(.select(select), dialect: dialect)
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            let collected = SQLRenderer.binds(ofSelect: select, dialect: dialect)
            if Self.same(collected, rendered.binds) {
                entries[key] = .sql(rendered.sql)
                last = Last(select, rendered.sql, checked)
            } else {
                entries[key] = .render
            }
            return rendered
        }
    }

    /// Whether the core's statement check may be skipped for `select`: the last SELECT this connection rendered from
    /// the cache had its key (`RenderShape/key(of:)`, which keeps what the check reads of values) and passed the
    /// check against the known tables of this `generation` (`KnownSchemas/generation`).
    ///
    /// When it did, `select`'s rendering, which follows at once on this connection, takes the last SQL without
    /// comparing again; `endStatement()` ends that note whether or not the statement was rendered.
    ///
    /// - Parameters:
    ///   - select: the query about to run on this connection.
    ///   - generation: the known tables' generation, read before the check would read them.
    /// - Returns: true when the check would pass again.
    package func passedCheck(_ select: Select, generation: Int) -> Bool {
        guard let last, last.checked == generation, RenderShape.sameKey(select, last.select) else { return false }
        matchedLast = true
        return true
    }

    /// Notes that the SELECT about to be rendered passed the core's check at `generation`: its rendering remembers
    /// that with its shape, so the next SELECT of the shape may skip the check (`passedCheck(_:generation:)`).
    package func notePassed(generation: Int) { passedAt = generation }

    /// Ends a statement noted by `notePassed(generation:)` whether or not it was rendered (a driver may fail
    /// first), so the note never reaches another statement's rendering.
    package func endStatement() { (passedAt, matchedLast) = (nil, false) }

    /// The SELECT taken or remembered last, its SQL, and the generation at which its shape last passed the check.
    private final class Last {
        let select: Select
        let sql: String
        var checked: Int?

        init(_ select: Select, _ sql: String, _ checked: Int?) {
            self.select = select
            self.sql = sql
            self.checked = checked
        }
    }

    /// The last `EXPLAIN` statement made from a SELECT's SQL: the SQL, the prefix and the statement (see
    /// `explaining(_:prefix:)`).
    private var lastExplained: (sql: String, prefix: String, explained: String)?

    /// `prefix + " " + sql`, the same string as the last time for the same SQL and prefix: a loop explaining one
    /// shape builds no string per plan, and the driver finds its prepared statement by the string's identity.
    ///
    /// - Parameters:
    ///   - sql: a SELECT's SQL (from this cache, the same string each time its shape comes back).
    ///   - prefix: the dialect's `EXPLAIN` words (``ExplainSyntax/prefix``).
    /// - Returns: the statement that asks for the plan.
    package func explaining(_ sql: String, prefix: String) -> String {
        if let last = lastExplained, last.sql == sql, last.prefix == prefix { return last.explained }
        let explained = prefix + " " + sql
        lastExplained = (sql, prefix, explained)
        return explained
    }

    /// Forgets every shape.
    public func removeAll() {
        entries.removeAll()
        last = nil
        lastExplained = nil
        (passedAt, matchedLast) = (nil, false)
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

    /// The SQL of a transaction control statement (`BEGIN`, `COMMIT`, `ROLLBACK`, a savepoint, its release or its
    /// rollback), rendered once per connection: an atomic write in a transaction runs two of them (its savepoint and
    /// its release), which cost about 1,800 instructions each to render. Nil for any other statement.
    ///
    /// - Throws: what rendering the statement throws.
    package func control(_ statement: Statement, dialect: any Dialect) throws -> RenderedSQL? {
        // Compared by kind and name: comparing or copying the `Statement` itself costs more than rendering it.
        let kind: UInt8
        let name: String
        switch statement {
        case .begin: (kind, name) = (1, "")
        case .commit: (kind, name) = (2, "")
        case .rollback: (kind, name) = (3, "")
        case .savepoint(let n): (kind, name) = (4, n)
        case .releaseSavepoint(let n): (kind, name) = (5, n)
        case .rollbackToSavepoint(let n): (kind, name) = (6, n)
        default: return nil
        }
        for control in controls where control.kind == kind && control.name == name {
            return RenderedSQL(sql: control.sql, binds: [])
        }
        let rendered = try SQLRenderer.render(statement, dialect: dialect)
        // A handful: BEGIN, COMMIT, ROLLBACK and three per savepoint depth in use.
        if rendered.binds.isEmpty, controls.count < 32 { controls.append((kind, name, rendered.sql)) }
        return rendered
    }
}
