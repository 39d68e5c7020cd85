// ChangeHub: tells a database's observers which tables each committed transaction touched.
import Synchronization

/// The observers of one ``Database`` and the tables each watches; committed writes are announced here.
///
/// A signal is a "look again": each observer's stream keeps only the newest one, so commits that land
/// while an observer is still fetching fold into one fresh fetch.
final class ChangeHub: Sendable {
    private struct Observer {
        /// The tables the observer reads; nil: every table (its query reads tables Strata cannot name).
        let tables: Set<String>?
        let continuation: AsyncStream<Void>.Continuation
    }

    private let observers = Mutex<[UInt64: Observer]>([:])
    private let nextID = Atomic<UInt64>(0)
    /// How many observers there are, read without the lock on every commit.
    private let count = Atomic<Int>(0)

    /// Starts watching `tables` (nil: all); the stream yields after each commit that touches one of them.
    func register(tables: Set<String>?) -> (id: UInt64, signals: AsyncStream<Void>) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        observers.withLock { $0[id] = Observer(tables: tables, continuation: continuation) }
        count.add(1, ordering: .relaxed)
        return (id, signals)
    }

    func unregister(_ id: UInt64) {
        let removed = observers.withLock { $0.removeValue(forKey: id) }
        guard let removed else { return }
        count.subtract(1, ordering: .relaxed)
        removed.continuation.finish()
    }

    /// How many observers are registered (tests check that cancelling one removes it).
    var observerCount: Int { count.load(ordering: .relaxed) }

    /// A transaction committed after writing `tables` (nil: tables it cannot name, raw SQL).
    func committed(_ tables: Set<String>?) {
        guard count.load(ordering: .relaxed) > 0 else { return }
        let targets = observers.withLock { all in
            all.values.filter { observer in
                guard let watched = observer.tables, let tables else { return true }
                return !watched.isDisjoint(with: tables)
            }.map(\.continuation)
        }
        for continuation in targets { continuation.yield() }
    }
}

/// The tables one transaction wrote, gathered until it commits (or dropped when it rolls back).
struct TouchedTables {
    private(set) var tables: Set<String> = []
    /// A raw statement ran: which tables it wrote is unknown.
    private(set) var unknown = false

    var isEmpty: Bool { tables.isEmpty && !unknown }

    mutating func add(_ table: String) {
        if !tables.contains(table) { tables.insert(table) }
    }

    mutating func addUnknown() { unknown = true }

    /// The tables to announce: nil when some are unknown.
    var announced: Set<String>? { unknown ? nil : tables }

    mutating func removeAll() {
        tables.removeAll(keepingCapacity: true)
        unknown = false
    }
}
