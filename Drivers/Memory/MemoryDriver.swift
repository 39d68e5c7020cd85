// MemoryDriver: the in-memory storage backend: a driver over a private or process-wide named store.
import Strata

/// A driver that keeps its tables in memory and evaluates the query AST itself: no SQL, no files.
///
/// It follows the same pinned semantics as the SQL drivers (typed columns like PostgreSQL, binary
/// text order, NULLs first ascending, three-valued logic, all-or-nothing statements, savepoints), so
/// app tests can run on it in milliseconds. Raw SQL throws ``StrataError/unsupported(feature:driver:)``.
///
/// ```swift
/// let db = Database(driver: MemoryDriver())                    // a fresh, private store
/// let shared = Database(driver: MemoryDriver(storeName: "app")) // the process-wide store "app"
/// ```
public struct MemoryDriver: Driver {
    /// `memory`.
    public let name = "memory"
    /// One connection: statements on a store run one at a time anyway.
    public let maxConnections = 1
    private let store: MemoryStore

    /// A driver over a store.
    ///
    /// - Parameter storeName: empty for a fresh store private to this driver value (and its copies);
    ///   otherwise the name of a process-wide store shared by every driver given that name, which
    ///   lives as long as the process.
    public init(storeName: String = "") {
        store = storeName.isEmpty ? MemoryStore() : MemoryStore.named(storeName)
    }

    /// Opens a connection to the store.
    ///
    /// While one connection has a transaction open, statements from the store's other connections
    /// throw ``StrataError/busy``.
    public func connect() throws -> any DatabaseConnection { MemoryConnection(store: store) }
}

extension DriverFactory {
    /// Opens `memory:` URLs: `memory:` is a fresh private store, `memory:name` the process-wide store `name`.
    ///
    /// ```swift
    /// let db = try Database.open("memory:", drivers: [.memory])
    /// ```
    ///
    /// It reads no URL parameters of its own: only Strata's `pool` and `migrate` are accepted.
    public static let memory = DriverFactory(schemes: ["memory"], module: "StrataMemory", parameters: []) { url, _ in
        MemoryDriver(storeName: url.path)
    }
}
