// HistoryTables: which tables of a database record their writes in the change history, and by which key.
import Synchronization

/// The history-tracked tables, filled by migration from the models that set ``Model/tracksHistory``: one set for
/// the process, as the models' declarations are, so that every `Database` over the same storage records their
/// writes once any of them migrated the models. Costs one atomic load per write while it is empty.
final class HistoryTables: Sendable {
    /// The process's set.
    static let shared = HistoryTables()

    /// A tracked table's primary-key column.
    struct Entry: Sendable, Hashable {
        var key: String
    }

    private let any = Atomic<Bool>(false)
    private let entries = Mutex<[String: Entry]>([:])

    /// Whether any table is tracked.
    @inline(__always) var isEmpty: Bool { !any.load(ordering: .acquiring) }

    /// Tracks `table`, whose primary key is `key`.
    func track(_ table: String, key: String) {
        entries.withLock { $0[table] = Entry(key: key) }
        any.store(true, ordering: .releasing)
    }

    /// The entry of a tracked table, or nil.
    func entry(_ table: String) -> Entry? {
        guard !isEmpty else { return nil }
        return entries.withLock { $0[table] }
    }
}
