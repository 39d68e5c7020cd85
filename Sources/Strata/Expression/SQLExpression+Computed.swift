// SQLExpression+Computed: constructors for arithmetic, concatenation, lower/upper, COALESCE and subqueries.

extension SQLExpression {
    /// `lhs op rhs` over integers or doubles; see ``ArithmeticOperator`` for the one rule on errors.
    ///
    /// Renders `("views" + $1)` on PostgreSQL and `strata_add("views", ?)` on SQLite.
    public static func arithmetic(_ op: ArithmeticOperator, _ lhs: SQLExpression, _ rhs: SQLExpression)
        -> SQLExpression
    {
        SQLExpression(.arithmetic(op, lhs.node, rhs.node))
    }

    /// `lhs || rhs` over text: NULL when either side is NULL, on every backend.
    public static func concat(_ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        SQLExpression(.concat(lhs.node, rhs.node))
    }

    /// `lower(e)`: ASCII letters only on every backend (`lower('É')` is `'É'`).
    public static func lower(_ e: SQLExpression) -> SQLExpression { SQLExpression(.caseMapped(e.node, upper: false)) }

    /// `upper(e)`: ASCII letters only on every backend (`upper('é')` is `'é'`).
    public static func upper(_ e: SQLExpression) -> SQLExpression { SQLExpression(.caseMapped(e.node, upper: true)) }

    /// `COALESCE(a, b, …)`: the first operand that is not NULL (NULL when all are).
    public static func coalesce(_ items: [SQLExpression]) -> SQLExpression {
        SQLExpression(.coalesce(items.map(\.node)))
    }

    /// `e`, known to hold values of `type`, where the backend cannot see it (a COALESCE over decimal
    /// columns, which SQLite would compare as text): rendered as `e`, with SQLite's decimal collation for
    /// `.decimal`. The typed API adds it itself (`coalesce(\.a, \.b)` over `Decimal?` columns).
    public static func typed(_ e: SQLExpression, as type: ColumnType) -> SQLExpression {
        SQLExpression(.typed(e.node, type))
    }

    /// `e [NOT] IN (SELECT …)`; the subquery must select exactly one column.
    ///
    /// Three-valued like a list: `NOT IN` a subquery that yields a NULL matches nothing, and an empty
    /// subquery matches nothing (`IN`) or everything (`NOT IN`).
    public static func inSubquery(_ e: SQLExpression, _ subquery: Select, negated: Bool = false) -> SQLExpression {
        SQLExpression(.inSubquery(e.node, subquery, negated: negated))
    }

    /// `(SELECT column … LIMIT 1)`: the value of the subquery's first row (by its order), or NULL.
    public static func scalarSubquery(_ subquery: Select) -> SQLExpression {
        SQLExpression(.scalarSubquery(subquery))
    }

    /// `[NOT] EXISTS (SELECT … FROM t WHERE t.a = outer.x AND t.b = outer.y AND filter)`: whether `subquery` has a
    /// row whose columns equal the enclosing statement's row on every pair of `correlation`; TRUE or FALSE, never
    /// unknown (an outer NULL matches no row), so `negated` keeps exactly the rows `EXISTS` leaves out.
    ///
    /// The subquery's main table must differ from the outer table the correlation names (a self-reference would
    /// make the outer columns ambiguous): ``StrataError/invalidQuery(_:)`` otherwise.
    package static func correlatedExists(_ subquery: Select, _ correlation: Correlation, negated: Bool = false)
        -> SQLExpression
    {
        SQLExpression(.correlatedExists(subquery, correlation, negated: negated))
    }

    /// The scalar at `path` inside the JSON column `e`, read as the path's type (see ``JSONPath``).
    ///
    /// Renders `CASE WHEN json_type("settings", '$."theme"') = 'text' THEN json_extract("settings", '$."theme"')
    /// END` on SQLite and `CASE WHEN jsonb_typeof("settings" -> 'theme') = 'string' THEN ("settings" ->> 'theme')
    /// COLLATE "C" END` on PostgreSQL. `e` must be a JSON column; the typed ``json(_:_:as:)`` checks that.
    public static func jsonPath(_ e: SQLExpression, _ path: JSONPath) -> SQLExpression {
        SQLExpression(.jsonPath(e.node, path))
    }
}
