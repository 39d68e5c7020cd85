// Statement: every statement the core asks a driver to run, as plain values.

/// One statement for a driver: a query, a write, a schema change or transaction control.
public enum Statement: Sendable, Hashable {
    /// A query that returns rows (`SELECT`).
    case select(Select)
    /// An insert of one or more rows, possibly an upsert (`INSERT … [ON CONFLICT …] [RETURNING …]`).
    case insert(Insert)
    /// A change to the rows matching a filter (`UPDATE … SET … WHERE …`).
    case update(Update)
    /// A removal of the rows matching a filter (`DELETE FROM … WHERE …`).
    case delete(Delete)
    /// Creates a table with its columns, primary key and foreign keys (`CREATE TABLE IF NOT EXISTS`).
    case createTable(TableSchema)
    /// Adds one column to the named table (`ALTER TABLE … ADD COLUMN`).
    case addColumn(table: String, TableColumn)
    /// Creates an index on the named table (`CREATE [UNIQUE] INDEX IF NOT EXISTS … ON …`).
    case createIndex(table: String, Index)
    /// Drops the named table if it exists (`DROP TABLE IF EXISTS`).
    case dropTable(String)
    /// Opens a transaction with the dialect's ``Dialect/beginTransaction`` statement.
    case begin
    /// Commits the open transaction (`COMMIT`).
    case commit
    /// Rolls back the open transaction (`ROLLBACK`).
    case rollback
    /// Sets a savepoint with this name inside the open transaction (`SAVEPOINT name`).
    case savepoint(String)
    /// Forgets the named savepoint, keeping its changes (`RELEASE SAVEPOINT name`).
    case releaseSavepoint(String)
    /// Undoes the changes made since the named savepoint, which stays set (`ROLLBACK TO SAVEPOINT name`).
    case rollbackToSavepoint(String)
    /// `BEGIN` at an isolation level (or a stronger one the dialect serves it with; see ``IsolationLevel``).
    case beginIsolated(IsolationLevel)
}

extension Statement {
    /// The table a statement touches, for error messages whose engine does not name it.
    public var tableName: String? {
        switch self {
        case .insert(let i): return i.table
        case .update(let u): return u.table
        case .delete(let d): return d.table
        case .select(let s): return s.table
        case .createTable(let t): return t.name
        case .addColumn(let t, _), .createIndex(let t, _): return t
        case .dropTable(let t): return t
        case .begin, .commit, .rollback, .savepoint, .releaseSavepoint, .rollbackToSavepoint: return nil
        case .beginIsolated: return nil
        }
    }
}

/// `SELECT` over one table.
public struct Select: Sendable, Hashable {
    /// What the statement returns.
    public enum Selection: Sendable, Hashable {
        /// The listed columns, in order.
        case columns([String])
        /// One row with one integer: the number of matching rows (limit and offset respected).
        case count
        /// Columns of the main table and of joined tables, in order.
        case refs([ColumnRef])
        /// Grouped columns and aggregates, in order (see ``Select/groupBy`` and ``Select/having``).
        case items([SelectItem])
    }

    /// The main table, the one unqualified columns belong to.
    public var table: String
    /// What the statement returns: columns, a row count, or grouped items.
    public var selection: Selection
    /// Joined tables; when there are any, unqualified columns belong to the main table.
    public var joins: [Join]
    /// The WHERE condition, or nil to read every row.
    public var filter: SQLExpression?
    /// The ORDER BY terms, most significant first; empty leaves the order to the backend.
    public var order: [Ordering]
    /// The most rows to return (`LIMIT`, bound as a value), or nil for no limit.
    public var limit: Int?
    /// How many rows to skip first (`OFFSET`, bound as a value), or nil for none.
    public var offset: Int?
    /// Whether the caller consumes the rows one at a time (`forEach`): a driver that would otherwise
    /// buffer the whole result should stream it instead, in constant memory. Not part of the SQL.
    public var streamsRows = false
    /// GROUP BY these columns; NULL forms one group on every backend.
    public var groupBy: [ColumnRef] = []
    /// HAVING: which groups survive (needs ``groupBy``).
    public var having: HavingCondition?
    /// SELECT DISTINCT: equal rows (NULL equal to NULL) come back once.
    public var distinct = false
    /// A row lock on the rows read (`FOR UPDATE`, `FOR SHARE`), held until the transaction ends; see ``RowLock``.
    public var lock: RowLock?
    /// A label rendered as a leading comment (`/* label */ SELECT …`) and logged as `db.tag`; see ``QueryTag``.
    public var tag: String?
    /// Set operations whose combined rows the statement reads instead of `table`'s rows (`SELECT … FROM (… UNION
    /// …) AS "strata_set"`); `table` then only names the model. Its filter, order, limit and offset apply to the
    /// combined rows, whose columns are the compound's first SELECT's; it takes no joins. See ``Compound``.
    public var compound: Compound?
    /// A named SELECT whose rows the statement reads under `table`'s name instead of the table's rows (`WITH
    /// "name" AS (…) SELECT … FROM "name" AS "table"`); `table` then only names the model. See ``CommonTable``.
    public var commonTable: CommonTable?

    /// A SELECT of `selection` from `table`, without grouping or DISTINCT (set ``groupBy``, ``having`` and
    /// ``distinct`` afterwards).
    ///
    /// - Parameters:
    ///   - table: the main table's name.
    ///   - selection: the columns, count or items to return.
    ///   - joins: the tables joined to the main one, in order.
    ///   - filter: the WHERE condition, or nil for every row.
    ///   - order: the ORDER BY terms, most significant first.
    ///   - limit: the most rows to return, or nil.
    ///   - offset: how many rows to skip first, or nil.
    public init(
        table: String, selection: Selection, joins: [Join] = [], filter: SQLExpression? = nil, order: [Ordering] = [],
        limit: Int? = nil, offset: Int? = nil
    ) {
        self.table = table
        self.selection = selection
        self.joins = joins
        self.filter = filter
        self.order = order
        self.limit = limit
        self.offset = offset
    }
}

/// One ORDER BY term. NULLs sort first ascending and last descending on every backend.
public struct Ordering: Sendable, Hashable {
    /// Which way a term sorts: `ascending` (NULLs first) or `descending` (NULLs last).
    public enum Direction: Sendable, Hashable { case ascending, descending }
    /// The column to sort by (of ``table`` when set); for an aggregate, its summary, and empty for an expression.
    public var column: String
    /// Which way this term sorts.
    public var direction: Direction
    /// The joined table's alias, or nil for the main table.
    public var table: String?
    /// An aggregate to sort groups by, in place of the column.
    public var aggregate: Aggregate?
    /// An expression to sort by instead of `column` (`views * 2`), when set.
    public var expression: SQLExpression?
    /// Whether the column holds text, so a dialect whose tables may carry other collations sorts it by code
    /// point explicitly (PostgreSQL: `COLLATE "C"`, see ``Dialect/binaryTextCollation``). Set by `order(_:)`.
    public var isText = false
    /// Whether the column cannot hold NULL (the model declares it non-optional), so a dialect whose NULLs sort
    /// last by default writes no `NULLS` clause and a plain index serves the order; the clause stays when an
    /// outer join can bring NULLs to the column. Set by `order(_:)`.
    public var isNeverNull = false

    /// Sorts by a column.
    ///
    /// - Parameters:
    ///   - column: the column's name.
    ///   - direction: ascending (the default) or descending.
    ///   - table: the alias of the joined table the column belongs to, or nil for the main table.
    public init(_ column: String, _ direction: Direction = .ascending, table: String? = nil) {
        self.column = column
        self.direction = direction
        self.table = table
    }

    /// Sorts by a primary key, which is never NULL.
    static func key(_ column: String) -> Ordering {
        var o = Ordering(column)
        o.isNeverNull = true
        return o
    }

    /// Sorts groups by an aggregate (`ORDER BY SUM("amount") DESC NULLS LAST`).
    ///
    /// - Parameters:
    ///   - aggregate: the aggregate whose value orders the groups.
    ///   - direction: ascending (the default) or descending.
    public init(_ aggregate: Aggregate, _ direction: Direction = .ascending) {
        self.init(aggregate.summary, direction)
        self.aggregate = aggregate
    }

    /// Sorts by an expression's value (NULLs first ascending, last descending, as for a column).
    ///
    /// - Parameters:
    ///   - expression: the expression to evaluate for each row.
    ///   - direction: ascending (the default) or descending.
    public init(expression: SQLExpression, _ direction: Direction = .ascending) {
        self.column = ""
        self.direction = direction
        self.expression = expression
    }
}

/// `INSERT` of one or more rows, optionally returning a column of each inserted row.
public struct Insert: Sendable, Hashable {
    /// The table the rows go into.
    public var table: String
    /// The columns each row gives values for, in order.
    public var columns: [String]
    /// The rows to insert, each with one value per entry of ``columns``, all bound as parameters.
    public var rows: [[DatabaseValue]]
    /// A column to hand back for each inserted (or upserted) row (`RETURNING`), usually the generated id.
    public var returning: String?
    /// The primary-key column when the rows give their own keys (a model saved with an explicit id). A backend
    /// whose key generator does not follow explicit keys (PostgreSQL's identity) advances it past them, so the
    /// next automatic id does not collide, as on SQLite and the memory driver.
    public var explicitKey: String?
    /// The upsert clause (`ON CONFLICT (…) DO …`), or nil for a plain INSERT.
    public var onConflict: OnConflict?
    /// The columns whose NULL value the database fills from their default (see ``DatabaseDefault``), by name:
    /// a model's inserts carry its schema's ``TableSchema/databaseDefaults``.
    public var defaults: [String: DatabaseDefault] = [:]

    /// An INSERT of `rows` into `table`.
    ///
    /// - Parameters:
    ///   - table: the table's name.
    ///   - columns: the columns each row gives, in order.
    ///   - rows: the values, one array per row, as many values as `columns`.
    ///   - returning: a column to return for each inserted row, or nil.
    ///   - explicitKey: the primary-key column when the rows give their own keys, or nil.
    ///   - onConflict: the upsert clause, or nil for a plain INSERT.
    ///   - defaults: the columns whose NULL the database fills from their default.
    public init(
        table: String, columns: [String], rows: [[DatabaseValue]], returning: String? = nil,
        explicitKey: String? = nil, onConflict: OnConflict? = nil, defaults: [String: DatabaseDefault] = [:]
    ) {
        self.table = table
        self.columns = columns
        self.rows = rows
        self.returning = returning
        self.explicitKey = explicitKey
        self.onConflict = onConflict
        self.defaults = defaults
    }
}

/// `UPDATE … SET … WHERE …`.
public struct Update: Sendable, Hashable {
    /// The table whose rows change.
    public var table: String
    /// The `SET` terms, in order; each is computed from the row's values before the update.
    public var assignments: [Assignment]
    /// The WHERE condition, or nil to change every row.
    public var filter: SQLExpression?

    /// An UPDATE of the rows of `table` matching `filter`.
    ///
    /// - Parameters:
    ///   - table: the table's name.
    ///   - assignments: the columns to set and their new values.
    ///   - filter: the rows to change, or nil for all of them.
    public init(table: String, assignments: [Assignment], filter: SQLExpression?) {
        self.table = table
        self.assignments = assignments
        self.filter = filter
    }
}

/// `column = value` in an UPDATE.
public struct Assignment: Sendable, Hashable {
    /// The column to set.
    public var column: String
    /// The value to bind, used when ``expression`` is nil.
    public var value: DatabaseValue
    /// An expression over the row's old values to set instead of `value` (`views + 1`), when set.
    public var expression: SQLExpression?

    /// `column = value`, with the value bound as a parameter.
    ///
    /// - Parameters:
    ///   - column: the column to set.
    ///   - value: its new value in every changed row.
    public init(_ column: String, _ value: DatabaseValue) {
        self.column = column
        self.value = value
    }

    /// `column = expression`, computed from each row's values before the UPDATE.
    ///
    /// - Parameters:
    ///   - column: the column to set.
    ///   - expression: the expression whose value, per row, the column takes.
    public init(_ column: String, expression: SQLExpression) {
        self.column = column
        self.value = .null
        self.expression = expression
    }
}

/// `DELETE FROM … WHERE …`.
public struct Delete: Sendable, Hashable {
    /// The table whose rows go.
    public var table: String
    /// The WHERE condition, or nil to delete every row.
    public var filter: SQLExpression?

    /// A DELETE of the rows of `table` matching `filter`.
    ///
    /// - Parameters:
    ///   - table: the table's name.
    ///   - filter: the rows to delete, or nil for all of them.
    public init(table: String, filter: SQLExpression?) {
        self.table = table
        self.filter = filter
    }
}
