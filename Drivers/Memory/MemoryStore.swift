// MemoryStore: the shared state of a memory database behind a mutex, and the registry of named stores.
import Strata
import Synchronization

/// One in-memory database. Every connection of every driver naming the same store shares it.
///
/// Sendable because its only stored property is a `Mutex`: all state is read and written under the lock.
final class MemoryStore: Sendable {
    private let state = Mutex(StoreState())

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
    func connect() -> Int { state.withLock { $0.newConnectionID() } }

    /// Runs one statement for a connection, atomically.
    func execute(_ statement: Statement, connection: Int) throws(StrataError) -> Outcome {
        try state.withLock { s throws(StrataError) in try s.execute(statement, connection: connection) }
    }

    /// A table's column names in order, or nil.
    func columns(of table: String) -> [String]? {
        state.withLock { $0.tables[table]?.columns.map(\.name) }
    }

    /// Rolls back what a departing connection left open.
    func disconnect(_ connection: Int) { state.withLock { $0.abandon(connection) } }
}
