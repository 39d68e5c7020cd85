// Statement: every statement the core asks a driver to run, as plain values.

/// One statement for a driver: a query, a write, a schema change or transaction control.
public enum Statement: Sendable, Hashable {
    case select(Select)
    case insert(Insert)
    case update(Update)
    case delete(Delete)
    case createTable(TableSchema)
    case addColumn(table: String, TableColumn)
    case createIndex(table: String, Index)
    case dropTable(String)
    case begin
    case commit
    case rollback
    case savepoint(String)
    case releaseSavepoint(String)
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

    public var table: String
    public var selection: Selection
    /// Joined tables; when there are any, unqualified columns belong to the main table.
    public var joins: [Join]
    public var filter: SQLExpression?
    public var order: [Ordering]
    public var limit: Int?
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
    public enum Direction: Sendable, Hashable { case ascending, descending }
    public var column: String
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

    public init(_ column: String, _ direction: Direction = .ascending, table: String? = nil) {
        self.column = column
        self.direction = direction
        self.table = table
    }

    /// Sorts groups by an aggregate (`ORDER BY SUM("amount") DESC NULLS LAST`).
    public init(_ aggregate: Aggregate, _ direction: Direction = .ascending) {
        self.init(aggregate.summary, direction)
        self.aggregate = aggregate
    }

    /// Sorts by an expression's value (NULLs first ascending, last descending, as for a column).
    public init(expression: SQLExpression, _ direction: Direction = .ascending) {
        self.column = ""
        self.direction = direction
        self.expression = expression
    }
}

/// `INSERT` of one or more rows, optionally returning a column of each inserted row.
public struct Insert: Sendable, Hashable {
    public var table: String
    public var columns: [String]
    public var rows: [[DatabaseValue]]
    public var returning: String?
    /// The primary-key column when the rows give their own keys (a model saved with an explicit id). A backend
    /// whose key generator does not follow explicit keys (PostgreSQL's identity) advances it past them, so the
    /// next automatic id does not collide, as on SQLite and the memory driver.
    public var explicitKey: String?
    /// The upsert clause (`ON CONFLICT (…) DO …`), or nil for a plain INSERT.
    public var onConflict: OnConflict?

    public init(
        table: String, columns: [String], rows: [[DatabaseValue]], returning: String? = nil,
        explicitKey: String? = nil, onConflict: OnConflict? = nil
    ) {
        self.table = table
        self.columns = columns
        self.rows = rows
        self.returning = returning
        self.explicitKey = explicitKey
        self.onConflict = onConflict
    }
}

/// `UPDATE … SET … WHERE …`.
public struct Update: Sendable, Hashable {
    public var table: String
    public var assignments: [Assignment]
    public var filter: SQLExpression?

    public init(table: String, assignments: [Assignment], filter: SQLExpression?) {
        self.table = table
        self.assignments = assignments
        self.filter = filter
    }
}

/// `column = value` in an UPDATE.
public struct Assignment: Sendable, Hashable {
    public var column: String
    public var value: DatabaseValue
    /// An expression over the row's old values to set instead of `value` (`views + 1`), when set.
    public var expression: SQLExpression?

    public init(_ column: String, _ value: DatabaseValue) {
        self.column = column
        self.value = value
    }

    /// `column = expression`, computed from each row's values before the UPDATE.
    public init(_ column: String, expression: SQLExpression) {
        self.column = column
        self.value = .null
        self.expression = expression
    }
}

/// `DELETE FROM … WHERE …`.
public struct Delete: Sendable, Hashable {
    public var table: String
    public var filter: SQLExpression?

    public init(table: String, filter: SQLExpression?) {
        self.table = table
        self.filter = filter
    }
}
