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

    private struct State {
        var observers: [UInt64: Observer] = [:]
        /// Other processes' commits, heard while anyone observes (see ``Driver/listenForCommits(_:)``).
        var listener: (any ChangeListener)?
    }

    private let state = Mutex(State())
    private let nextID = Atomic<UInt64>(0)
    /// How many observers there are, read without the lock on every commit.
    private let count = Atomic<Int>(0)
    private let driver: (any Driver)?

    /// A hub for a database on `driver`, which it asks to listen for other processes' commits while anyone
    /// observes.
    init(driver: (any Driver)? = nil) { self.driver = driver }

    /// Starts watching `tables` (nil: all); the stream yields after each commit that touches one of them.
    /// The first observer starts the driver's listener, if it has one.
    func register(tables: Set<String>?) -> (id: UInt64, signals: AsyncStream<Void>) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let first = state.withLock { s in
            s.observers[id] = Observer(tables: tables, continuation: continuation)
            return s.observers.count == 1 && s.listener == nil
        }
        count.add(1, ordering: .relaxed)
        if first, let listener = driver?.listenForCommits({ [weak self] tables in self?.committed(tables) }) {
            let extra = state.withLock { s -> (any ChangeListener)? in
                guard s.listener == nil, !s.observers.isEmpty else { return listener }
                s.listener = listener
                return nil
            }
            extra?.stop()
        }
        return (id, signals)
    }

    /// Returns once other processes' commits are being heard (at once when the driver cannot hear them).
    func listening() async {
        let listener = state.withLock { $0.listener }
        await listener?.ready()
    }

    /// Stops watching; the last observer stops the listener (and frees its connection).
    func unregister(_ id: UInt64) {
        let (removed, listener) = state.withLock { s -> (Observer?, (any ChangeListener)?) in
            let removed = s.observers.removeValue(forKey: id)
            guard removed != nil, s.observers.isEmpty else { return (removed, nil) }
            defer { s.listener = nil }
            return (removed, s.listener)
        }
        guard let removed else { return }
        count.subtract(1, ordering: .relaxed)
        removed.continuation.finish()
        listener?.stop()
    }

    /// How many observers are registered (tests check that cancelling one removes it).
    var observerCount: Int { count.load(ordering: .relaxed) }

    /// A transaction committed after writing `tables` (nil: tables it cannot name, raw SQL), gathered only when an
    /// observer is registered.
    func committed(_ tables: @autoclosure () -> Set<String>?) {
        guard count.load(ordering: .relaxed) > 0 else { return }
        let tables = tables()
        let targets = state.withLock { s in
            s.observers.values.filter { observer in
                guard let watched = observer.tables, let tables else { return true }
                return !watched.isDisjoint(with: tables)
            }.map(\.continuation)
        }
        for continuation in targets { continuation.yield() }
    }
}

/// The tables one transaction wrote, gathered until it commits (or dropped when it rolls back).
///
/// Kept as a list, each name once: a transaction writes a few tables, and a set grown from empty hashed each name
/// again at each doubling (about 1,200 instructions a table of a fresh database's migration). Past
/// ``listLimit`` names a set answers whether a name is in already.
struct TouchedTables {
    /// The tables, each once, in the order first written.
    private(set) var tables: [String] = []
    /// The same names once there are more than ``listLimit``.
    private var many: Set<String>?
    /// A raw statement ran: which tables it wrote is unknown.
    private(set) var unknown = false
    /// The table added last: a run of writes to one table (the usual case) compares one name, inline.
    private var last: String?

    /// The names looked up in the list before a set takes over.
    private static let listLimit = 16

    var isEmpty: Bool { tables.isEmpty && !unknown }

    mutating func add(_ table: String) {
        if table == last { return }
        insert(table)
        last = table
    }

    /// Adds `table` unless it is there already.
    private mutating func insert(_ table: String) {
        if let many {
            if many.contains(table) { return }
        } else if tables.contains(table) {
            return
        }
        tables.append(table)
        if many != nil {
            many?.insert(table)
        } else if tables.count > Self.listLimit {
            many = Set(tables)
        }
    }

    mutating func addUnknown() { unknown = true }

    /// The tables to announce: nil when some are unknown.
    var announced: Set<String>? { unknown ? nil : Set(tables) }

    mutating func removeAll() {
        tables.removeAll(keepingCapacity: true)
        many = nil
        unknown = false
        last = nil
    }
}
