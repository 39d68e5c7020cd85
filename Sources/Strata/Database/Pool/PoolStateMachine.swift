// PoolStateMachine: the pool's bookkeeping as pure transitions; each event returns the I/O the caller is to do.

/// The connection pool's state, with no I/O, no clock and no continuation in it: each event is a method that changes
/// the state and returns an action telling the caller what to do (hand a connection over, open one, wake a waiter,
/// close connections). ``ConnectionPool`` holds one behind a mutex and runs the actions outside the lock, in the style
/// of postgres-nio's `ConnectionPoolModule`.
///
/// Waiters are ids (the caller keeps what it resumes under each); deadlines are instants the caller passes in, and
/// ``timeoutsDue(_:)`` is told the time. `Connection` is what the pool hands out (``Lease`` in the pool, a plain value
/// in tests); `Instant` orders deadlines (`ContinuousClock.Instant` in the pool).
///
/// Counting: every open connection (or one being opened) is idle, leased, or opening, and there are at most
/// `capacity` of them. A leased connection handed from one holder to a waiter stays leased.
struct PoolStateMachine<Connection, Instant: Comparable> {
    /// A task or thread queued for a connection.
    typealias WaiterID = UInt64

    /// What a queued waiter wants.
    enum Want: Equatable {
        /// A connection of its own.
        case connection
        /// A read for the statement loop, which a connection the loop holds may take (``takeStatement()``).
        case statement
    }

    private struct Waiter {
        let id: WaiterID
        let want: Want
        /// When the wait ends with a timeout (``timeoutsDue(_:)``); nil: never.
        let deadline: Instant?
    }

    let capacity: Int
    private var idle: [Connection] = []
    /// Connections handed to holders.
    private(set) var leased = 0
    /// Connections being opened for a caller (``LeaseAction/open(alone:)``), not yet reported opened or failed.
    private(set) var opening = 0
    private var waiters: [Waiter] = []
    private var lastWaiterID: WaiterID = 0
    /// Whether the pool refuses new leases (closed, or draining).
    private(set) var isClosed = false
    /// When the caller's scheduled sweep for timed-out waiters is due; nil when none is scheduled.
    private var sweepAt: Instant?

    /// A pool of at most `capacity` connections (at least one).
    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Connections open or being opened.
    var openCount: Int { idle.count + leased + opening }
    /// Connections in use: leased, or being opened for a caller.
    var inUseCount: Int { leased + opening }
    /// Waiters queued now.
    var waitingCount: Int { waiters.count }
    /// Idle connections now.
    var idleCount: Int { idle.count }
    /// Whether nothing is in use and nobody waits.
    var isDrained: Bool { inUseCount == 0 && waiters.isEmpty }

    // MARK: Leasing

    /// What a caller asking for a connection does.
    enum LeaseAction {
        /// Use this idle connection (now leased); `alone`: no other connection of the pool is in use.
        case use(Connection, alone: Bool)
        /// Open a connection in the slot reserved now, then report ``connectionOpened()`` or
        /// ``connectionOpenFailed()``.
        case open(alone: Bool)
        /// Every connection is in use: make a waiter and ``enqueue(_:want:deadline:)`` it.
        case wait
        /// The pool is closed: fail the call.
        case closed
    }

    /// A caller asks for a connection: the most recently idle one, else a slot to open one, else a wait.
    mutating func lease() -> LeaseAction {
        if isClosed { return .closed }
        if let connection = idle.popLast() {
            leased += 1
            return .use(connection, alone: inUseCount == 1)
        }
        if openCount < capacity {
            opening += 1
            return .open(alone: inUseCount == 1)
        }
        return .wait
    }

    /// A fresh id for a waiter about to ``enqueue(_:want:deadline:)``.
    mutating func makeWaiterID() -> WaiterID {
        lastWaiterID &+= 1
        return lastWaiterID
    }

    /// What a caller that would queue does.
    enum EnqueueAction: Equatable {
        /// Queued; schedule a sweep (``timeoutsDue(_:)``) at this instant when set (the earliest deadline so far).
        case queued(sweepAt: Instant?)
        /// Not queued: a connection or a slot freed up (or the pool closed) since ``lease()``; ask again.
        case retry
    }

    /// A caller told to ``LeaseAction/wait`` queues `id` (last in line) until a release hands it a connection, its
    /// `deadline` passes, or it is cancelled.
    mutating func enqueue(_ id: WaiterID, want: Want, deadline: Instant?) -> EnqueueAction {
        if isClosed || !idle.isEmpty || openCount < capacity { return .retry }
        waiters.append(Waiter(id: id, want: want, deadline: deadline))
        guard let deadline, sweepAt.map({ deadline < $0 }) ?? true else { return .queued(sweepAt: nil) }
        sweepAt = deadline
        return .queued(sweepAt: deadline)
    }

    /// The connection asked for with ``LeaseAction/open(alone:)`` is open and leased to the caller.
    mutating func connectionOpened() {
        opening -= 1
        leased += 1
    }

    /// The connection asked for with ``LeaseAction/open(alone:)`` could not be opened: its slot is free again, and
    /// the first waiter (returned) is to be woken without a connection, to ask again.
    mutating func connectionOpenFailed() -> WaiterID? {
        opening -= 1
        return waiters.isEmpty ? nil : waiters.removeFirst().id
    }

    /// A connection ``LeaseAction/use(_:alone:)`` handed over was found dead before use: it is dropped and its slot
    /// is free for the same caller, who asks again (no waiter is woken for it).
    mutating func discardedAtCheckout() {
        leased -= 1
    }

    // MARK: Releasing

    /// What a caller giving a connection back does.
    enum ReleaseAction: Equatable {
        /// Resume this waiter with the connection (it stays leased).
        case handOver(to: WaiterID)
        /// Nothing: the connection is idle in the pool.
        case keptIdle
        /// Close the connection; wake `retry`, when set, without a connection, to ask again (a slot is free).
        case close(retry: WaiterID?)
    }

    /// A holder gives `connection` back; `discard`: it must not be reused (broken, or left in a transaction).
    mutating func release(_ connection: Connection, discard: Bool) -> ReleaseAction {
        if discard {
            leased -= 1
            return .close(retry: waiters.isEmpty ? nil : waiters.removeFirst().id)
        }
        if !waiters.isEmpty { return .handOver(to: waiters.removeFirst().id) }
        leased -= 1
        if isClosed { return .close(retry: nil) }
        idle.append(connection)
        return .keptIdle
    }

    /// The statement loop, holding a leased connection, takes the head of the queue when it is a statement (a
    /// waiter for anything else keeps its turn), to send it on that connection behind the ones in flight.
    mutating func takeStatement() -> WaiterID? {
        guard waiters.first?.want == .statement else { return nil }
        return waiters.removeFirst().id
    }

    // MARK: Leaving the queue

    /// Which waiters timed out, and when the next sweep is due.
    struct Timeouts {
        /// Waiters taken out of the queue, to fail with a timeout.
        var expired: [WaiterID]
        /// When to sweep again (the earliest deadline left); nil: no sweep scheduled.
        var nextSweep: Instant?
    }

    /// The caller's sweep runs at `now`: the waiters whose deadline is at or before it leave the queue.
    mutating func timeoutsDue(_ now: Instant) -> Timeouts {
        var expired: [WaiterID] = []
        waiters.removeAll { w in
            guard let d = w.deadline, d <= now else { return false }
            expired.append(w.id)
            return true
        }
        sweepAt = waiters.lazy.compactMap(\.deadline).min()
        return Timeouts(expired: expired, nextSweep: sweepAt)
    }

    /// A waiter gives up (cancelled, or its own deadline passed); returns whether it was still queued (false: a
    /// connection, or a wake-up, was handed to it first, and the caller must honour that instead).
    mutating func cancel(_ id: WaiterID) -> Bool {
        guard let i = waiters.firstIndex(where: { $0.id == id }) else { return false }
        waiters.remove(at: i)
        return true
    }

    // MARK: Closing

    /// What closing leaves the caller to do.
    struct CloseAction {
        /// Waiters to wake without a connection (they ask again and find the pool closed).
        var waiters: [WaiterID]
        /// Idle connections to close.
        var idle: [Connection]
    }

    /// Refuses new leases, closes idle connections and wakes every waiter; leased connections close when released.
    mutating func close() -> CloseAction {
        let action = CloseAction(waiters: waiters.map(\.id), idle: beginDraining())
        waiters.removeAll()
        sweepAt = nil
        return action
    }

    /// Refuses new leases and returns the idle connections to close, but keeps the queue: releases still hand
    /// connections to the waiters, so the calls in flight end.
    mutating func beginDraining() -> [Connection] {
        isClosed = true
        defer { idle.removeAll() }
        return idle
    }
}
