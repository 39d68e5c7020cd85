// MemoryStore: the shared state of a memory database behind a mutex, and the registry of named stores.
import Foundation
import Strata
import Synchronization

/// One in-memory database. Every connection of every driver naming the same store shares it.
///
/// Statements run one at a time under the lock. While one connection has a transaction open, the
/// others read what was last committed (never its uncommitted writes, and without waiting) and their
/// writes wait for it to end, as SQLite's writers wait on its busy timeout.
///
/// Sendable: `state` is a `Mutex`, `connections` an `Atomic`, and ``TransactionEnds`` is Sendable.
final class MemoryStore: Sendable {
    let state = Mutex(StoreState())
    private let ends = TransactionEnds()
    /// Connections open now: with more than one, a write may wait for another's transaction.
    private let connections = Atomic<Int>(0)

    /// Process-wide stores by name, created on first use and kept for the life of the process.
    private static let named = Mutex<[String: MemoryStore]>([:])

    /// The store named `name`, shared process-wide.
    static func named(_ name: String) -> MemoryStore {
        named.withLock { stores in
            if let store = stores[name] { return store }
            let store = MemoryStore()
            stores[name] = store
            return store
        }
    }

    /// A new connection's id.
    func connect() -> Int {
        connections.add(1, ordering: .relaxed)
        return state.withLock { $0.newConnectionID() }
    }

    /// Whether more than one connection is open, so that a write may have to wait for another's transaction.
    var isShared: Bool { connections.load(ordering: .relaxed) > 1 }

    private enum Step {
        case done(Outcome)
        /// Done, and it ended a transaction that writers wait for (the count of ended transactions).
        case ended(Outcome, UInt64)
        /// Another connection's transaction is open: wait for the end after this many.
        case wait(UInt64)
    }

    /// Runs one statement for a connection, atomically.
    ///
    /// A SELECT while another connection's transaction is open reads the committed state; any other
    /// statement waits for that transaction to end, up to `busyTimeout` seconds.
    ///
    /// - Throws: ``StrataError/busy`` when the wait times out, and the statement's own errors.
    func execute(_ statement: Statement, connection: Int, busyTimeout: Double) throws(StrataError) -> Outcome {
        var waiting = false
        var deadline: Date?
        while true {
            let step = try state.withLock { s throws(StrataError) -> Step in
                if waiting { s.waitingWriters -= 1 }
                if case .select(let sel) = statement, sel.lock != nil { try s.grantRowLock(sel, to: connection) }
                if s.isHeld(against: connection) {
                    if case .select(let select) = statement { return .done(try s.selectCommitted(select)) }
                    if let deadline, Date() >= deadline { throw .busy }
                    s.waitingWriters += 1
                    return .wait(s.transactionsEnded)
                }
                let before = s.transactionsEnded
                let outcome = try s.execute(statement, connection: connection)
                if s.transactionsEnded != before && s.waitingWriters > 0 { return .ended(outcome, s.transactionsEnded) }
                return .done(outcome)
            }
            waiting = false
            switch step {
            case .done(let outcome):
                return outcome
            case .ended(let outcome, let count):
                ends.announce(count)
                return outcome
            case .wait(let seen):
                waiting = true
                let until = deadline ?? Date(timeIntervalSinceNow: max(0, busyTimeout))
                deadline = until
                ends.wait(past: seen, until: until)
            }
        }
    }

    /// A table's column names in order, or nil; as committed when another connection's transaction is open.
    func columns(of table: String, connection: Int) -> [String]? {
        state.withLock { s in
            if s.isHeld(against: connection) { return s.committedColumns(of: table) }
            guard let i = s.tables.index(forKey: table) else { return nil }
            return Self.columns(of: &s.tables.values[i]).map(\.name)
        }
    }

    /// A table's columns with their types, or nil (see `columns(of:connection:)`).
    func tableColumns(of table: String, connection: Int) -> [TableColumn]? {
        state.withLock { s in
            if s.isHeld(against: connection) { return s.committedTableColumns(of: table) }
            guard let i = s.tables.index(forKey: table) else { return nil }
            return Self.columns(of: &s.tables.values[i])
        }
    }

    /// A table's columns, read in place (a copy of the table out of the dictionary retains every field).
    @inline(__always)
    private static func columns(of table: inout MemoryTable) -> [TableColumn] { table.columns }

    /// The plan of a SELECT (see `MemoryTable.plan(for:)`).
    func explain(_ select: Select) throws(StrataError) -> [String] {
        try state.withLock { s throws(StrataError) -> [String] in
            guard let table = s.tables[select.table] else { throw .noSuchTable(select.table) }
            return table.plan(for: select)
        }
    }

    /// Whether `connection` has a transaction open.
    func isInTransaction(connection: Int) -> Bool {
        state.withLock { s in s.transaction?.owner == connection }
    }

    /// Rolls back what a departing connection left open, and wakes the writers waiting for it.
    func disconnect(_ connection: Int) {
        connections.subtract(1, ordering: .relaxed)
        let ended: UInt64? = state.withLock { s in
            let before = s.transactionsEnded
            s.abandon(connection)
            return s.transactionsEnded != before && s.waitingWriters > 0 ? s.transactionsEnded : nil
        }
        if let ended { ends.announce(ended) }
    }
}
