// StoreState: everything a memory store holds (tables, open transaction, undo journal) and statement dispatch.
import Strata

/// What one statement produced: its change count and the rows it returns.
struct Outcome {
    var changes = 0
    /// Result rows as stored; `projection` picks and orders the returned columns.
    var rows = ResultRows.list([])
    /// The stored positions of the returned columns, in order; nil for every column in stored order.
    var projection: [Int]?
}

/// The rows a statement returns, as stored rows (a table's slots or joined rows) without copies.
///
/// Holding a table's slot array is a snapshot: the rows handed out are those the statement saw, even
/// when a row callback changes the table (its next write then copies the slot array, once).
enum ResultRows {
    /// These rows.
    case list([[DatabaseValue]])
    /// Rows of one column, one value each (what INSERT … RETURNING gives); no projection applies.
    case values([DatabaseValue])
    /// The rows at these positions of `rows`, in this order.
    case picked(_ rows: [[DatabaseValue]], _ positions: [Int])
    /// The non-empty rows of `rows` in order, after skipping `skip` of them, at most `take`: a scan
    /// that keeps nothing per row, so a cursor over a big table streams in constant memory.
    case scan(_ rows: [[DatabaseValue]], skip: Int, take: Int)

    /// Each stored row, in order, mapped by `transform`; `.values` rows are one-column rows of their value.
    func map<T>(_ transform: ([DatabaseValue]) -> T) -> [T] {
        switch self {
        case .list(let rows): return rows.map(transform)
        case .values(let values): return values.map { transform([$0]) }
        case .picked(let rows, let positions): return positions.map { transform(rows[$0]) }
        case .scan(let rows, let skip, let take):
            var out: [T] = []
            var skipped = 0
            for row in rows where !row.isEmpty {
                if out.count >= take { break }
                if skipped < skip {
                    skipped += 1
                    continue
                }
                out.append(transform(row))
            }
            return out
        }
    }
}

/// The state behind a store's mutex. A value type: all of it changes only under the lock.
struct StoreState: Sendable {
    var tables: [TableName: MemoryTable] = [:]
    var transaction: OpenTransaction?
    /// Undo steps since the transaction began (or since the statement began, outside one).
    var journal: [UndoStep] = []
    /// While a transaction is open: the tables as last committed, which other connections read. Built
    /// from the journal by the first such read (nil until then), so a store nobody else reads never copies.
    var committedTables: [TableName: MemoryTable]?
    /// How many transactions have ended (committed, rolled back or abandoned).
    private(set) var transactionsEnded: UInt64 = 0
    /// How many writers wait for the open transaction to end.
    var waitingWriters = 0
    /// Counts the changes that may have changed a table's columns, keys, indexes or defaults, or put another table
    /// under a name (DDL, schema changes, a table put back by an undo): a connection's plan of a template
    /// (``TemplatePlan``) holds only for the generation it was made at.
    var schemaGeneration: UInt64 = 0
    /// The plans of the last recursive walks' steps (see ``walkStep(_:main:walk:kept:generation:)``).
    var walkSteps: [KeptWalkStep] = []
    private var connectionCount = 0

    /// A new connection's id.
    mutating func newConnectionID() -> Int {
        connectionCount += 1
        return connectionCount
    }

    /// Whether another connection than `connection` holds a transaction open: its writes wait, its reads
    /// see ``committedTables``.
    @inline(__always)
    func isHeld(against connection: Int) -> Bool {
        guard let t = transaction else { return false }
        return t.owner != connection
    }

    /// Runs one statement for `connection`: all of it or, when it throws, none of it. The caller has
    /// checked that no other connection holds a transaction (``isHeld(against:)``).
    mutating func execute(_ statement: Statement, connection: Int) throws(StrataError) -> Outcome {
        switch statement {
        case .begin, .beginIsolated:  // one transaction at a time: every level is served by serializable
            try begin(connection)
            return Outcome()
        case .commit:
            try commit()
            return Outcome()
        case .rollback:
            try rollback()
            return Outcome()
        case .savepoint(let name):
            try savepoint(name)
            return Outcome()
        case .releaseSavepoint(let name):
            try release(name)
            return Outcome()
        case .rollbackToSavepoint(let name):
            try rollback(to: name)
            return Outcome()
        default:
            break
        }
        let mark = journal.count
        do {
            let (outcome, touched) = try run(statement)
            if transaction == nil && !journal.isEmpty { settle(touched) }
            return outcome
        } catch {
            undo(to: mark)
            if transaction == nil { journal.removeAll(keepingCapacity: true) }
            throw error
        }
    }

    /// Runs a statement that is not transaction control; returns what it produced and the table
    /// it changed (for compaction).
    private mutating func run(_ statement: Statement) throws(StrataError) -> (Outcome, String?) {
        switch statement {
        case .createTable, .addColumn, .createIndex, .dropTable: schemaGeneration &+= 1
        default: break
        }
        switch statement {
        case .select(let s): return (try select(s), nil)
        case .insert(let i): return (try insert(i), i.table)
        case .update(let u): return (Outcome(changes: try update(u)), u.table)
        case .delete(let d): return (Outcome(changes: try delete(d)), d.table)
        case .createTable(let schema):
            try createTable(schema)
            return (Outcome(), nil)
        case .addColumn(let table, let column):
            try addColumn(column, to: table)
            return (Outcome(), nil)
        case .createIndex(let table, let index):
            try createIndex(index, on: table)
            return (Outcome(), nil)
        case .dropTable(let name):
            try dropTable(name)
            return (Outcome(), nil)
        case .begin, .commit, .rollback, .savepoint, .releaseSavepoint, .rollbackToSavepoint, .beginIsolated:
            return (Outcome(), nil)
        }
    }

    /// The table named `name`.
    ///
    /// - Throws: ``StrataError/noSuchTable(_:)``.
    func table(_ name: String) throws(StrataError) -> MemoryTable {
        guard let t = tables[name] else { throw .noSuchTable(name) }
        return t
    }

    /// Rolls back a transaction its connection left open (the connection went away).
    mutating func abandon(_ connection: Int) {
        guard let t = transaction, t.owner == connection else { return }
        undo(to: 0)
        endTransaction()
    }

    /// Closes the open transaction: forgets the committed copy and counts the end for waiting writers.
    mutating func endTransaction() {
        transaction = nil
        committedTables = nil
        transactionsEnded &+= 1
        settle(nil as TableName?)
    }

    // MARK: Reading what is committed

    /// Runs a SELECT over the committed tables, for a connection that does not own the open transaction.
    mutating func selectCommitted(_ s: Select) throws(StrataError) -> Outcome {
        var view = StoreState()
        view.tables = committedTables ?? committed()
        committedTables = nil  // the view holds the only reference while it runs (lookups may build entries)
        defer { committedTables = view.tables }
        return try view.select(s)
    }

    /// A table's column names as last committed (see ``selectCommitted(_:)``).
    mutating func committedColumns(of table: String) -> [String]? {
        if committedTables == nil { committedTables = committed() }
        return committedTables?[table]?.columns.map(\.name)
    }

    /// The columns of a table as last committed, with their types.
    mutating func committedTableColumns(of table: String) -> [TableColumn]? {
        if committedTables == nil { committedTables = committed() }
        return committedTables?[table]?.columns
    }

    /// The tables as they were when the open transaction began: the live ones with the journal undone
    /// on a copy. Only the tables the transaction changed are copied.
    func committed() -> [TableName: MemoryTable] {
        var copy = StoreState()
        copy.tables = tables
        copy.journal = journal
        copy.undo(to: 0)
        return copy.tables
    }
}
