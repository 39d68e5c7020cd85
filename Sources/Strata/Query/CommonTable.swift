// CommonTable: a named SELECT (a common table expression, `WITH name AS (…)`, maybe recursive) a Select reads.

/// A SELECT given a name, whose rows a ``Select`` reads instead of its table's (see ``Select/commonTable``):
/// `WITH "name" AS (SELECT …) SELECT … FROM "name" AS "table" …`.
///
/// The outer SELECT reads the named rows under its model's table name, so its filter, order, paging, grouping and
/// subqueries name columns as they would on the table; it selects columns the named SELECT lists.
///
/// With a ``recursion``, the named rows are a walk (`WITH RECURSIVE`): the base case ``select``'s rows at depth 0,
/// then, again and again, the rows the ``step`` finds from the rows found last (it reads them by joining the name),
/// each one level deeper, until it finds none or reaches ``Recursion/maxDepth``. The named rows then have one more
/// column, ``Recursion/depthColumn``.
///
/// With a ``windowColumn``, the named SELECT lists columns of its table then one window function, whose value the
/// named rows hold under that name (`WITH "name" ("c1", …, "strata_rank") AS (SELECT "c1", …, ROW_NUMBER() OVER
/// (…) FROM …)`): the outer SELECT filters by it, which a window in its own WHERE could not.
public struct CommonTable: Sendable, Hashable {
    /// The name the rows go by (`WITH "name"`): not the outer model's table, nor a table the named SELECT reads.
    public var name: String
    /// Holds the named SELECT and the recursive step: an array, because a Select holds its common table.
    private var body: [Select]
    /// How the rows recurse, or nil for a plain named SELECT.
    public var recursion: Recursion?
    /// The name of the named rows' last column, the value of the named SELECT's last item, a window function; nil
    /// when the named SELECT lists columns only.
    public var windowColumn: String?

    /// The named SELECT (the base case of a recursive one): it lists columns and takes no row lock.
    public var select: Select {
        // Read in place: a reader that only looks at it (a renderer, a check, a comparison) copies none of its
        // parts (a copy of a Select is about 250 instructions).
        _read { yield body[0] }
        set { body[0] = newValue }
    }

    /// The recursive step, which reads the rows found last by joining ``name``; nil for a plain named SELECT.
    public var step: Select? { body.count > 1 ? body[1] : nil }

    /// `select`, named `name`.
    ///
    /// - Parameters:
    ///   - name: the rows' name.
    ///   - select: the SELECT whose rows go by that name.
    public init(_ name: String, _ select: Select) {
        self.name = name
        self.body = [select]
    }

    /// A recursive walk named `name`: `base`'s rows, then `step`'s from the rows found last, level by level.
    ///
    /// - Parameters:
    ///   - name: the rows' name, which `step` joins to read the rows found last.
    ///   - base: the base case: the rows at depth 0; it does not read `name`.
    ///   - step: the recursive step: the same columns as `base`, read from its table joined to `name`.
    ///   - recursion: the depth column, the depth bound and whether equal rows are kept once.
    public init(_ name: String, base: Select, step: Select, recursion: Recursion) {
        self.name = name
        self.body = [base, step]
        self.recursion = recursion
    }

    /// The columns of the named rows (a recursive walk's with its depth column last), or nil when the named
    /// SELECT does not list columns.
    public var columns: [String]? {
        if let windowColumn {
            guard recursion == nil, case .items(let items) = select.selection, case .window? = items.last else {
                return nil
            }
            var names: [String] = []
            for item in items.dropLast() {
                guard case .column(let c) = item, c.table == nil else { return nil }
                names.append(c.name)
            }
            return names + [windowColumn]
        }
        guard case .columns(let c) = select.selection else { return nil }
        guard let r = recursion else { return c }
        return c + [r.depthColumn]
    }

    /// The step with the depth bound added to its filter (`AND "name"."depth" < maxDepth`), as it runs.
    public var boundedStep: Select? {
        guard var s = step, let r = recursion else { return nil }
        let bound = SQLExpression.compare(
            .less, .column(r.depthColumn, table: name), .value(.integer(Int64(r.maxDepth))))
        s.filter = s.filter.map { .and([$0, bound]) } ?? bound
        return s
    }
}

/// How a recursive ``CommonTable`` walks: the column holding each row's depth, the depth it stops at (the guard
/// against cycles, portable across SQLite and PostgreSQL), and whether a row equal to one found before is dropped
/// (`UNION`) or kept (`UNION ALL`).
public struct Recursion: Sendable, Hashable {
    /// The name of the column holding each row's depth (0 for the base case's rows): not one of the base's.
    public var depthColumn: String
    /// The deepest level the walk reaches: the step runs only from rows shallower than this; 0 or more.
    public var maxDepth: Int
    /// Whether a row equal to one found before (depth included) is dropped: `UNION` rather than `UNION ALL`.
    public var distinct: Bool

    /// The depth column's name unless told otherwise: `strata_depth`.
    public static let defaultDepthColumn = "strata_depth"

    /// A walk down to `maxDepth`, its depths in `depthColumn`.
    ///
    /// - Parameters:
    ///   - depthColumn: the depth column's name.
    ///   - maxDepth: the deepest level reached.
    ///   - distinct: whether equal rows are kept once.
    public init(depthColumn: String = defaultDepthColumn, maxDepth: Int, distinct: Bool = false) {
        self.depthColumn = depthColumn
        self.maxDepth = maxDepth
        self.distinct = distinct
    }
}
