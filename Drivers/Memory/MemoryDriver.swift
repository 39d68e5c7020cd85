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
    let store: MemoryStore
    /// How long a write waits for another connection's transaction to end before it throws
    /// ``StrataError/busy``, in seconds (``Configuration/timeout`` when opened by URL).
    public let busyTimeout: Double

    /// A driver over a store.
    ///
    /// - Parameters:
    ///   - storeName: empty for a fresh store private to this driver value (and its copies); otherwise the
    ///     name of a process-wide store shared by every driver given that name, which lives as long as the
    ///     process.
    ///   - busyTimeout: how long a write waits for another connection's transaction, in seconds.
    public init(storeName: String = "", busyTimeout: Double = 5) {
        store = storeName.isEmpty ? MemoryStore() : MemoryStore.named(storeName)
        self.busyTimeout = busyTimeout
    }

    /// Opens a connection to the store.
    ///
    /// While one connection has a transaction open, the store's other connections read what was last
    /// committed, and their writes wait for it to end (up to ``busyTimeout``, then ``StrataError/busy``).
    public func connect() throws -> any DatabaseConnection { MemoryConnection(store: store, busyTimeout: busyTimeout) }
}

extension DriverFactory {
    /// Opens `memory:` URLs: `memory:` is a fresh private store, `memory:name` the process-wide store `name`
    /// (`mem:` too).
    ///
    /// ```swift
    /// let db = try Database.open("memory:", drivers: [.memory])
    /// ```
    ///
    /// It reads no URL parameters of its own: only Strata's `pool` and `migrate` are accepted.
    public static let memory = DriverFactory(
        schemes: ["memory", "mem"], module: "StrataMemory", parameters: [], urlSyntax: .path("store name")
    ) { url, configuration in
        MemoryDriver(storeName: url.path, busyTimeout: configuration.timeout)
    }
}
