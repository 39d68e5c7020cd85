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
    /// Whether the column holds text, so a dialect whose tables may carry other collations sorts it by code
    /// point explicitly (PostgreSQL: `COLLATE "C"`, see ``Dialect/binaryTextCollation``). Set by `order(_:)`.
    public var isText = false

    public init(_ column: String, _ direction: Direction = .ascending, table: String? = nil) {
        self.column = column
        self.direction = direction
        self.table = table
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

    public init(
        table: String, columns: [String], rows: [[DatabaseValue]], returning: String? = nil,
        explicitKey: String? = nil
    ) {
        self.table = table
        self.columns = columns
        self.rows = rows
        self.returning = returning
        self.explicitKey = explicitKey
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

    public init(_ column: String, _ value: DatabaseValue) {
        self.column = column
        self.value = value
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
