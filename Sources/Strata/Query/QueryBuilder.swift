// QueryBuilder: the typed, chainable query over a model, bound to a Database (async) or Transaction (sync).

/// A query over a model's table. Build it with chained calls, then run it with a terminal call:
/// async on a ``Database``, synchronous on a ``Transaction``.
///
/// ```swift
/// let page = try await User.query(on: db)
///     .where(\.active == true && \.name ~~ "Al%")
///     .where(\.id, in: [1, 15])
///     .order(\.name).order(\.joinedAt, .descending)
///     .limit(10).offset(20)
///     .all()
/// ```
///
/// Every value is bound, never inlined, and every identifier quoted. The documentation of each method shows the
/// SQL it renders on SQLite and on PostgreSQL, checked against the renderers by the `DocSQLTests` suite.
public struct QueryBuilder<M: Model, Executor> {
    @usableFromInline let executor: Executor
    /// The parts nearly every query sets, in one non-generic value: the generic builder's copy or destroy walks
    /// three fields instead of sixteen (a 16-field builder's destroy cost about 1,100 instructions; see
    /// <doc:Performance>).
    var parts = QueryParts()
    /// The parts most queries leave empty (joins, grouping, includes, a selection, a lock, a set operation, a named
    /// query, the first building error), out of line and copied on write; nil while all are empty.
    var extras: QueryExtras<M>?

    init(executor: Executor) { self.executor = executor }

    var filters: [SQLExpression] {
        get { parts.filters }
        _modify { yield &parts.filters }
    }
    var order: [Ordering] {
        get { parts.order }
        _modify { yield &parts.order }
    }
    var limit: Int? {
        get { parts.limit }
        set { parts.limit = newValue }
    }
    var offset: Int? {
        get { parts.offset }
        set { parts.offset = newValue }
    }
    /// Which rows of a soft-deleted model (one with `@DeletedAt`) the query sees.
    var deletedRows: DeletedRows {
        get { parts.deletedRows }
        set { parts.deletedRows = newValue }
    }
    /// The query's tag, a leading SQL comment and a log field (see `tagged(_:)`).
    var tag: String? {
        get { parts.tag }
        set { parts.tag = newValue }
    }
    var selected: [String]? {
        get { extras?.selected }
        _modify { yield &uniqueExtras.selected }
    }
    var assignments: [Assignment] {
        get { extras?.assignments ?? [] }
        _modify { yield &uniqueExtras.assignments }
    }
    /// Associations to load for the fetched models, one query per association level.
    @usableFromInline var includes: [@Sendable (inout [M], Transaction) throws -> Void] {
        get { extras?.includes ?? [] }
        _modify { yield &uniqueExtras.includes }
    }
    /// Tables joined to the main one.
    var joins: [JoinSpec] {
        get { extras?.joins ?? [] }
        _modify { yield &uniqueExtras.joins }
    }
    /// The first error met while building (a key path with no column); thrown when the query runs.
    var error: StrataError? {
        get { extras?.error }
        _modify { yield &uniqueExtras.error }
    }
    /// GROUP BY columns, HAVING terms (joined by AND) and DISTINCT (see `QueryBuilder+Group.swift`).
    var grouping: Grouping {
        get { extras?.grouping ?? Grouping() }
        _modify { yield &uniqueExtras.grouping }
    }
    /// The row lock the query takes (see `QueryBuilder+RowLock.swift`).
    var lock: RowLock? {
        get { extras?.lock }
        _modify { yield &uniqueExtras.lock }
    }
    /// The set operation whose combined rows the query reads (see `QueryBuilder+SetOperation.swift`).
    var compound: Compound? {
        get { extras?.compound }
        _modify { yield &uniqueExtras.compound }
    }
    /// The named query whose rows the query reads (see `QueryBuilder+CommonTable.swift`).
    var commonTable: CommonTable? {
        get { extras?.commonTable }
        _modify { yield &uniqueExtras.commonTable }
    }

    /// The extras, made or copied first so that this builder alone holds them.
    private var uniqueExtras: QueryExtras<M>.Values {
        get { extras?.values ?? QueryExtras<M>.Values() }
        // A builder's own copy: made when it has none, copied when another builder shares it.
        _modify {
            var box = extras
            extras = nil  // so `box` holds the only reference when no other builder shares it
            let unique: QueryExtras<M>
            if isKnownUniquelyReferenced(&box), let shared = box {
                unique = shared
            } else {
                unique = QueryExtras(box?.values ?? QueryExtras<M>.Values())
            }
            box = nil
            extras = unique
            yield &unique.values
        }
    }

    /// The same query on another executor (a ``Database`` query runs as a ``Transaction`` one).
    func rebound<E>(to executor: E) -> QueryBuilder<M, E> {
        var q = QueryBuilder<M, E>(executor: executor)
        q.parts = parts
        q.extras = extras
        return q
    }

    /// Sees soft-deleted rows too, here and in joined soft-deleted models.
    public consuming func withDeleted() -> Self {
        deletedRows = .included
        return self
    }

    /// Sees only the soft-deleted rows of this model (joined models still skip theirs).
    public consuming func onlyDeleted() -> Self {
        deletedRows = .only
        return self
    }

    @usableFromInline
    consuming func adding(_ p: Condition<M>) -> Self {
        switch p.result {
        case .success(let e): filters.append(e)
        case .failure(let e): if error == nil { error = e }
        }
        return self
    }

    /// The column of `kp`, or nil after noting the error (the first one met is kept).
    private mutating func column(_ kp: PartialKeyPath<M>) -> String? {
        if let name = M.columnName(for: kp) { return name }
        if error == nil { error = .unknownColumn(model: M.modelName, column: "\(kp)") }
        return nil
    }

    /// Keeps rows matching the predicate (several `where` calls are joined with AND).
    ///
    /// ```swift
    /// let ann = try await User.query(on: db).where(\.name == "Ann" && \.age > 30).all()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", "name", "age" FROM "user" WHERE (("name" = ?) AND ("age" > ?))
    /// -- PostgreSQL
    /// SELECT "id", "name", "age" FROM "user" WHERE (("name" = $1) AND ("age" > $2))
    /// ```
    ///
    /// - Parameter predicate: the condition, written with key paths and operators.
    /// - Returns: the query with the condition added.
    public consuming func `where`(_ predicate: Condition<M>) -> Self { adding(predicate) }

    /// Keeps rows whose column is one of `values`; an empty list keeps none.
    ///
    /// ```swift
    /// let some = try await User.query(on: db).where(\.id, in: [1, 2, 3]).all()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", "name", "age" FROM "user" WHERE ("id" IN (?, ?, ?))
    /// -- PostgreSQL
    /// SELECT "id", "name", "age" FROM "user" WHERE ("id" IN ($1, $2, $3))
    /// ```
    ///
    /// Long lists bind one array instead (SQLite: `IN (SELECT value FROM json_each(?))`, PostgreSQL:
    /// `= ANY(CAST($1 AS type[]))`).
    ///
    /// - Parameters:
    ///   - kp: the column.
    ///   - values: the values it may take.
    /// - Returns: the query with the condition added.
    @inlinable
    public func `where`<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>, in values: [V]) -> Self {
        adding(.in(kp, values))
    }

    /// Keeps rows whose optional column is one of `values` (NULL never is); an empty list keeps none.
    ///
    /// The same condition as `where(_:in:)` on a non-optional column, taking `[V]` as it is: without this overload,
    /// `where(\.id, in: ids)` with `ids: [Int64]` and `id: Int64?` converted the list into `[Int64?]` first
    /// (a dynamic cast per value).
    @inlinable
    public func `where`<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>, in values: [V]) -> Self {
        adding(.in(kp, values))
    }

    /// Keeps rows whose column is none of `values`; an empty list keeps all.
    @inlinable
    public func `where`<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>, notIn values: [V]) -> Self {
        adding(.notIn(kp, values))
    }

    /// Keeps rows whose optional column is none of `values`; an empty list keeps all (see
    /// `where(_:in:)` on an optional column).
    @inlinable
    public func `where`<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>, notIn values: [V]) -> Self {
        adding(.notIn(kp, values))
    }

    /// Keeps rows whose column lies in the closed range.
    public func `where`<V: DatabaseValueConvertible & Comparable>(_ kp: KeyPath<M, V>, between range: ClosedRange<V>)
        -> Self
    {
        adding(.between(kp, range))
    }

    /// Keeps rows whose optional column lies in the closed range (NULL never does).
    public func `where`<V: DatabaseValueConvertible & Comparable>(_ kp: KeyPath<M, V?>, between range: ClosedRange<V>)
        -> Self
    {
        adding(.between(kp, range))
    }

    /// Keeps rows whose column matches a LIKE pattern (`%`, `_`, `\` escape), case-sensitive unless asked.
    ///
    /// ```swift
    /// let an = try await User.query(on: db).where(\.name, like: "an%", caseInsensitive: true).all()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", "name", "age" FROM "user" WHERE (lower("name") LIKE lower(?) ESCAPE '\')
    /// -- PostgreSQL
    /// SELECT "id", "name", "age" FROM "user" WHERE ("name" ILIKE $1 ESCAPE '\')
    /// ```
    ///
    /// - Parameters:
    ///   - kp: the text column.
    ///   - pattern: the LIKE pattern: `%` any run, `_` one character, `\` escapes.
    ///   - caseInsensitive: whether ASCII letters match either case (other letters never fold).
    /// - Returns: the query with the condition added.
    public func `where`<V: StringColumn>(_ kp: KeyPath<M, V>, like pattern: String, caseInsensitive: Bool = false)
        -> Self
    {
        adding(.like(kp, pattern, caseInsensitive: caseInsensitive))
    }

    /// Keeps rows matching a raw SQL condition whose `?` markers take `binds`.
    public func `where`(unsafeRaw sql: String, _ binds: any DatabaseValueConvertible...) -> Self {
        adding(.unsafeRaw(sql, binds))
    }

    /// Keeps the row with this primary key.
    ///
    /// ```swift
    /// let one = try await User.query(on: db).filter(id: 1).first()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", "name", "age" FROM "user" WHERE ("id" = ?) LIMIT ?
    /// -- PostgreSQL
    /// SELECT "id", "name", "age" FROM "user" WHERE ("id" = $1) LIMIT $2
    /// ```
    ///
    /// - Parameter id: the primary key's value.
    /// - Returns: the query with the condition added.
    public consuming func filter(id: M.ID) -> Self {
        if M.schema.hasCompositeKey, !(id is any CompositeKey), error == nil {
            // A hand-written model's mistake: refused when the query runs, never one key column matched alone.
            error = M.keyIsNoCompositeKey
        }
        filters.append(M.keyEquality(id))
        return self
    }

    /// Sorts by a column; later calls sort ties. NULLs come first ascending, last descending.
    ///
    /// ```swift
    /// let page = try await User.query(on: db).order(\.name).order(\.age, .descending).limit(10).offset(20).all()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", "name", "age" FROM "user" ORDER BY "name" ASC, "age" DESC LIMIT ? OFFSET ?
    /// -- PostgreSQL
    /// SELECT "id", "name", "age" FROM "user" ORDER BY "name" COLLATE "C" ASC, "age" DESC LIMIT $1 OFFSET $2
    /// ```
    ///
    /// Text sorts by code point on every backend: PostgreSQL sorts a text column with `COLLATE "C"`, whatever
    /// the column's own collation. `LIMIT` and `OFFSET` are bound values. SQLite sorts NULL first ascending by
    /// itself; on PostgreSQL a column the model declares optional gets `ASC NULLS FIRST` / `DESC NULLS LAST`, and a
    /// non-optional one no clause, so a plain index serves the order (indexes on optional columns are created
    /// `NULLS FIRST` to match).
    ///
    /// - Parameters:
    ///   - kp: the column to sort by.
    ///   - direction: ascending (the default) or descending.
    /// - Returns: the query with the sort term added after the earlier ones.
    public consuming func order<V>(_ kp: KeyPath<M, V>, _ direction: Ordering.Direction = .ascending) -> Self {
        // The column by position: its name, type and nullability without a search by name.
        let schema = M.schema
        guard let index = schema.index(of: kp) else {
            if error == nil { error = .unknownColumn(model: M.modelName, column: "\(kp)") }
            return self
        }
        let columns = schema.columns
        var ordering = Ordering(columns[index].name, direction)
        ordering.isText = columns[index].type == .text
        ordering.isNeverNull = !columns[index].isNullable || columns[index].isPrimaryKey
        order.append(ordering)
        return self
    }

    /// At most `n` rows (a negative `n` makes the query throw ``StrataError/invalidQuery(_:)``).
    public consuming func limit(_ n: Int) -> Self {
        limit = n
        return self
    }

    /// Skips the first `n` rows.
    public consuming func offset(_ n: Int) -> Self {
        offset = n
        return self
    }

    /// Reads only these columns; the model's other properties take their defaults (or nil). Reading a
    /// model whose unselected property has neither throws ``StrataError/columnNotSelected(model:column:)``.
    public consuming func only(_ keyPaths: PartialKeyPath<M>...) -> Self {
        var names: [String] = []
        for kp in keyPaths {
            if let name = column(kp) { names.append(name) }
        }
        selected = names
        return self
    }

    /// Reads every column but these (see ``only(_:)``).
    public consuming func except(_ keyPaths: PartialKeyPath<M>...) -> Self {
        var skip: Set<String> = []
        for kp in keyPaths {
            if let name = column(kp) { skip.insert(name) }
        }
        selected = M.schema.columnNames.filter { !skip.contains($0) }
        return self
    }

    /// Loads an association for every fetched model with one extra query per association (two for
    /// `through`), never one per row; nest with `Group.users.including(User.projects)`.
    ///
    /// ```swift
    /// let groups = try await Group.query(on: db).including(Group.users).all()
    /// let users = try groups[0].loaded(Group.users)
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", "name", "age" FROM "user"
    /// SELECT "id", "user_id", "title", "views" FROM "post" WHERE ("user_id" IN (?)) ORDER BY "id" ASC
    /// -- PostgreSQL
    /// SELECT "id", "name", "age" FROM "user"
    /// SELECT "id", "user_id", "title", "views" FROM "post" WHERE ("user_id" IN ($1)) ORDER BY "id" ASC
    /// ```
    ///
    /// - Parameter association: the association to load, maybe with nested `including(_:)` calls.
    /// - Returns: the query with the association to load.
    public func including(_ association: some EagerLoadable<M>) -> Self {
        var copy = self
        copy.includes.append { owners, tx in try association.load(into: &owners, tx) }
        return copy
    }

    /// Sets a column in the rows a later ``update()-8oezh`` changes.
    public consuming func set<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>, to value: V) -> Self {
        if let name = column(kp) {
            assignments.append(Assignment(name, M.schema.stored(value.databaseValue, column: name)))
        }
        return self
    }

    // MARK: Statements

    var filter: SQLExpression? {
        var all = filters
        // A set operation's branches, and a named query, skipped their soft-deleted rows already.
        if let deleted = M.schema.column(withRole: .deletedAt)?.name, deletedRows != .included, compound == nil,
            commonTable == nil
        {
            all.append(.isNull(.column(deleted), negated: deletedRows == .only))
        }
        return all.isEmpty ? nil : .and(all)
    }

    /// The joins, each soft-deleted joined model skipping its deleted rows in the ON condition (so an outer
    /// join keeps the owner) unless the query sees deleted rows.
    var joinClauses: [Join] {
        joins.flatMap { spec in
            spec.joins.map { join in
                guard deletedRows != .included, let deleted = spec.deletedAtColumns[join.alias] else { return join }
                var scoped = join
                scoped.on = .and([join.on, .isNull(.column(deleted, table: join.alias))])
                return scoped
            }
        }
    }

    @usableFromInline
    func selectStatement(limit: Int? = nil) throws -> Select {
        let schema = M.schema
        var select: Select
        if let extras = extras?.values {
            if let error = extras.error { throw error }
            try extras.grouping.checkModelRows(M.self)
            select = Select(
                table: schema.name, selection: .columns(extras.selected ?? schema.columnNames), joins: joinClauses,
                filter: filter, order: order, limit: limit ?? self.limit, offset: offset)
            select.distinct = extras.grouping.distinct
            select.lock = extras.lock
            select.compound = extras.compound
            select.commonTable = extras.commonTable
        } else {
            // Most queries: no joins, grouping, selection, lock, set operation or named query to read.
            select = Select(
                table: schema.name, selection: .columns(schema.columnNames), filter: filter, order: order,
                limit: limit ?? self.limit, offset: offset)
        }
        select.tag = tag
        try checkNumberStorage(select)
        return try sealingEncrypted(select)
    }

    func writeFilter(_ verb: String) throws -> SQLExpression? {
        if let error { throw error }
        guard joins.isEmpty else { throw StrataError.invalidQuery("\(verb) does not take joins") }
        guard !grouping.isGrouped, !grouping.distinct else {
            throw StrataError.invalidQuery("\(verb) does not take group(by:), having or distinct()")
        }
        guard limit == nil, offset == nil else {
            throw StrataError.invalidQuery("\(verb) does not take a limit or offset")
        }
        try checkNumberStorage(filter: filter)
        return try sealingEncrypted(filter: filter)
    }
}

/// Which soft-deleted rows a query sees.
enum DeletedRows { case excluded, included, only }

extension Model {
    /// A query over this model, run synchronously inside a transaction body.
    public static func query(on tx: Transaction) -> QueryBuilder<Self, Transaction> { QueryBuilder(executor: tx) }
    /// A query over this model, run with async calls.
    public static func query(on db: Database) -> QueryBuilder<Self, Database> { QueryBuilder(executor: db) }
}
