// ConnectionPool: hands each task one connection at a time, opening up to a limit, waiting past it.
import Foundation
import Logging
import Synchronization

/// A connection leased from the pool, with the thread its blocking calls run on.
///
/// `@unchecked Sendable`: the connection inside is not thread-safe, but a lease is held by exactly one
/// task between `acquire` and `release`; the pool's mutex orders every hand-over, so no two tasks
/// ever touch the connection (or create its thread) at once.
final class Lease: @unchecked Sendable {
    let connection: any DatabaseConnection
    private var ownThread: ConnectionThread?
    /// Set by the holder when the connection must not be reused (a transaction left open that would not roll
    /// back): ``ConnectionPool/release(_:)`` drops it.
    var discard = false
    /// The arrays a find binds its key from and an insert its row from (``Transaction/keyBinds``,
    /// ``Transaction/rowBinds``), kept with the connection between calls: each call's ``Transaction`` takes them and
    /// gives them back, so a one-shot find or save allocates no array of its own (about 250 instructions). Unchecked
    /// for exclusivity: one holder uses a lease at a time.
    @exclusivity(unchecked) var keyBinds: [DatabaseValue] = []
    @exclusivity(unchecked) var rowBinds: [DatabaseValue] = []

    init(_ connection: any DatabaseConnection, thread: ConnectionThread? = nil) {
        self.connection = connection
        self.ownThread = thread
    }

    /// The connection's own thread, started on first use.
    var thread: ConnectionThread {
        if let ownThread { return ownThread }
        let started = ConnectionThread(name: "strata connection")
        ownThread = started
        return started
    }

    deinit { ownThread?.stop() }
}

/// A fixed-capacity pool. Waiting for a connection suspends the task; it never blocks a thread.
///
/// A thin shell around a ``PoolStateMachine``: each event runs under a mutex and returns an action, which the pool
/// carries out after the lock (resuming waiters, opening and closing connections, logging and measuring).
///
/// A wait ends with a connection, with ``StrataError/poolTimeout(seconds:)`` after the configured
/// time, or with `CancellationError` when the waiting task is cancelled; either way the task leaves
/// the queue and no connection is lost.
final class ConnectionPool: Sendable {
    typealias Machine = PoolStateMachine<Lease, PoolInstant>

    /// The pool's bookkeeping, and where each queued waiter is resumed.
    private struct State {
        var machine: Machine
        /// What each waiter queued in `machine` is resumed with, by id.
        var handoffs: [Machine.WaiterID: Handoff] = [:]

        /// Takes the handoff of a waiter the machine took out of its queue.
        mutating func take(_ id: Machine.WaiterID?) -> Handoff? {
            guard let id else { return nil }
            return handoffs.removeValue(forKey: id)
        }
    }

    let driver: any Driver
    let capacity: Int
    /// How long `acquire` waits for a connection, in seconds.
    let timeout: Double
    private let state: Mutex<State>
    /// Where connection events and waits are logged and measured.
    private let observer: StatementObserver?
    /// Whether leases are timed (a metrics backend, or a logger at `.info` or below).
    let watched: Bool
    /// The driver's event loop for single reads (PostgreSQL), when more than one connection may be open.
    let statementLoop: (any StatementLoop)?

    init(driver: any Driver, capacity: Int, timeout: Double = 30, observer: StatementObserver? = nil) {
        self.driver = driver
        self.capacity = max(1, capacity)
        self.timeout = timeout.isNaN ? 0 : max(0, timeout)
        self.observer = observer
        state = Mutex(State(machine: Machine(capacity: capacity)))
        watched = observer.map { $0.metrics != nil || $0.logger.logLevel <= .info } ?? false
        statementLoop =
            self.capacity > 1 ? (driver as? any StatementLoopDriver)?.makeStatementLoop(capacity: self.capacity) : nil
    }

    /// What a caller asking for a connection does next (see ``checkout()``).
    enum Checkout {
        /// Use this lease; `alone`: no other call holds a connection of this pool.
        case use(Lease, alone: Bool)
        /// Open a connection (``connect(alone:)`` or ``connectBlocking()``) in the slot reserved for it.
        case open(alone: Bool)
        /// Queue for a connection (``queue(until:retry:_:)``), then ask again.
        case wait
    }

    /// The first step of every acquire (async, blocking, statement loop): an idle connection that is still usable,
    /// or a slot to open one, or a wait. An idle connection the server closed is dropped here and its slot reused.
    ///
    /// - Throws: ``StrataError/connectionFailed(_:)`` once the database is closed.
    func checkout() throws -> Checkout {
        while true {
            switch state.withLock({ $0.machine.lease() }) {
            case .use(let lease, let alone):
                if lease.connection.isUsable { return .use(lease, alone: alone) }
                state.withLock { $0.machine.discardedAtCheckout() }
                observer?.logger.notice("dropped an idle connection the server closed; opening a new one")
            case .open(let alone): return .open(alone: alone)
            case .wait: return .wait
            case .closed: throw StrataError.connectionFailed("the database is closed")
            }
        }
    }

    /// A connection for the calling task, and whether it is the only one in use (no other task holds a
    /// connection of this pool, so running on the caller's thread delays no other call).
    ///
    /// - Throws: ``StrataError/poolTimeout(seconds:)`` when none frees up in time, `CancellationError`
    ///   when the task is cancelled while it waits, the driver's connection errors, and
    ///   ``StrataError/connectionFailed(_:)`` once the database is closed.
    nonisolated(nonsending) func acquire() async throws -> (lease: Lease, alone: Bool) {
        var queued = false
        guard watched, observer != nil else { return try await acquireLease(queued: &queued) }
        let start = MonotonicClock.now()
        do {
            let leased = try await acquireLease(queued: &queued)
            noteLease(waitedNanoseconds: MonotonicClock.now() &- start, queued: queued)
            return leased
        } catch {
            noteAcquireFailed(error, queued: queued)
            throw error
        }
    }

    /// Reports an acquire that failed (metrics, and a log line when the caller queued).
    func noteAcquireFailed(_ error: any Error, queued: Bool) {
        guard let observer else { return }
        observer.failedBeforeRunning(error)
        if queued {
            observer.logger.notice(
                "gave up waiting for a pooled connection", metadata: ["db.error": .string("\(error)")])
        }
    }

    /// Records a lease's wait (metrics), and logs it at `.info` when the caller queued for it.
    func noteLease(waitedNanoseconds waited: Int64, queued: Bool) {
        guard let observer else { return }
        observer.metrics?.poolWait.recordNanoseconds(waited)
        observer.metrics?.inUse.record(inUseCount)
        if queued {
            observer.logger.info(
                "waited for a pooled connection",
                metadata: ["db.pool.wait_ms": .stringConvertible(waited / 1_000_000)])
        }
    }

    nonisolated(nonsending) private func acquireLease(queued: inout Bool) async throws -> (lease: Lease, alone: Bool) {
        var deadline: PoolInstant?
        while true {
            switch try checkout() {
            case .use(let lease, let alone): return (lease, alone)
            case .open(let alone): return (try await connect(alone: alone), alone)
            case .wait:
                queued = true
                let until = deadline ?? timeout.deadline
                deadline = until
                if let handed = try await queue(until: until, retry: nil, { .task($0) }) { return (handed, false) }
            }
        }
    }

    /// ``acquire()`` for a caller that blocks its thread (``Database/writeSync(_:)``): no task, no suspension, so it
    /// needs no cooperative thread to make progress. A connection is opened on the calling thread; a wait blocks
    /// the thread on a condition until a lease is handed over or the pool's timeout passes.
    ///
    /// - Throws: ``StrataError/poolTimeout(seconds:)``, the driver's connection errors, and
    ///   ``StrataError/connectionFailed(_:)`` once the database is closed.
    func acquireBlocking() throws -> Lease {
        let deadline = timeout < 1e9 ? Date(timeIntervalSinceNow: timeout) : Date.distantFuture
        while true {
            switch try checkout() {
            case .use(let lease, _): return lease
            case .open: return try connectBlocking()
            case .wait:
                let handoff = BlockingHandoff()
                // Queued with no deadline of its own: the thread's wait below ends at the pool's timeout.
                let id: Machine.WaiterID? = state.withLock { s in
                    let id = s.machine.makeWaiterID()
                    guard case .queued = s.machine.enqueue(id, want: .connection, deadline: nil) else { return nil }
                    s.handoffs[id] = .thread(handoff)
                    return id
                }
                guard let id else { continue }
                if !handoff.wait(until: deadline) { leave(id, throwing: StrataError.poolTimeout(seconds: timeout)) }
                if let lease = try handoff.result() { return lease }
            }
        }
    }

    /// Opens a connection in the slot ``checkout()`` reserved: on the caller's thread when it is alone, else on the
    /// connection's own thread (connecting is a network round trip or more on a server). A failure frees the slot
    /// for the next waiter.
    nonisolated(nonsending) func connect(alone: Bool) async throws -> Lease {
        do {
            let lease = try await openLease(alone: alone)
            opened()
            return lease
        } catch {
            openFailed()
            observer?.logger.notice("could not open a connection", metadata: ["db.error": .string("\(error)")])
            throw error
        }
    }

    /// ``connect(alone:)`` on the calling thread, for ``acquireBlocking()``.
    private func connectBlocking() throws -> Lease {
        do {
            let lease = Lease(try driver.connect())
            opened()
            return lease
        } catch {
            openFailed()
            throw error
        }
    }

    private func opened() {
        let open = state.withLock { s in
            s.machine.connectionOpened()
            return s.machine.openCount
        }
        observer?.logger.info("opened a connection", metadata: ["db.pool.open": .stringConvertible(open)])
    }

    /// Gives back the slot of a connection that could not be opened, and lets a waiter try in its place.
    private func openFailed() {
        let waiter = state.withLock { s in s.take(s.machine.connectionOpenFailed()) }
        waiter?.resume(returning: nil)
    }

    nonisolated(nonsending) private func openLease(alone: Bool) async throws -> Lease {
        if alone || !driver.callsMayBlock { return Lease(try driver.connect()) }
        let thread = ConnectionThread(name: "strata connection")
        do {
            let driver = self.driver
            return Lease(try await thread.run { try driver.connect() }, thread: thread)
        } catch {
            thread.stop()
            throw error
        }
    }

    /// Queues the task as `handoff` until a lease is handed to it, the deadline passes, or the task is cancelled;
    /// returns `retry` straight away when a connection freed up meanwhile.
    nonisolated(nonsending) func queue<R: Sendable>(
        until deadline: PoolInstant?, retry: R,
        _ handoff: (UnsafeContinuation<R, any Error>) -> Handoff
    ) async throws -> R {
        let id = state.withLock { $0.machine.makeWaiterID() }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (c: UnsafeContinuation<R, any Error>) in
                let handoff = handoff(c)
                let want: Machine.Want
                if case .statement = handoff { want = .statement } else { want = .connection }
                let action = state.withLock { s in
                    let action = s.machine.enqueue(id, want: want, deadline: deadline)
                    if case .queued = action { s.handoffs[id] = handoff }
                    return action
                }
                guard case .queued(let sweepAt) = action else {
                    c.resume(returning: retry)
                    return
                }
                if let sweepAt { scheduleSweep(at: sweepAt) }
                if Task.isCancelled {
                    // Cancelled before the handler below could find the waiter in the queue.
                    leave(id, throwing: CancellationError())
                }
            }
        } onCancel: {
            leave(id, throwing: CancellationError())
        }
    }

    /// Ends the waits whose deadline passed with ``StrataError/poolTimeout(seconds:)``, and schedules the next sweep.
    ///
    /// One Dispatch timer per pool, not one per waiter: waits are usually served long before their deadline, so
    /// a sweep mostly finds nothing and is scheduled again for the oldest waiter's deadline. A Dispatch timer, not a
    /// task, so that it fires even while every cooperative thread is busy (blocked callers are what a pool timeout
    /// reports).
    private func sweep() {
        let now = PoolInstant.now
        let (expired, next) = state.withLock { s in
            let due = s.machine.timeoutsDue(now)
            return (due.expired.compactMap { s.take($0) }, due.nextSweep)
        }
        if let next { scheduleSweep(at: next) }
        for handoff in expired { handoff.resume(throwing: StrataError.poolTimeout(seconds: timeout)) }
    }

    private func scheduleSweep(at deadline: PoolInstant) {
        // A millisecond late, so that Dispatch's clock never finds the deadline a hair away and sweeps for nothing.
        let seconds = max(0, Double(deadline.nanoseconds(since: .now)) / 1e9) + 0.001
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in self?.sweep() }
    }

    /// The statement at the head of the queue, taken out of it, when the head is one (a task waiting for a
    /// connection for anything else keeps its turn): a loop sends it on a connection it already holds, behind the
    /// statements in flight there (pipelining), instead of waiting for a connection of its own to free up.
    func takeQueuedStatement() -> QueuedStatement? {
        let handoff = state.withLock { s in s.take(s.machine.takeStatement()) }
        guard case .statement(let queued)? = handoff else { return nil }
        return queued
    }

    /// Takes a waiter out of the queue with an error, unless a lease was handed to it first.
    private func leave(_ id: Machine.WaiterID, throwing error: any Error) {
        let handoff = state.withLock { s in s.machine.cancel(id) ? s.take(id) : nil }
        handoff?.resume(throwing: error)
    }

    /// Returns a lease: to the next waiter, or idle; a broken connection (or one its holder marked ``Lease/discard``)
    /// is dropped so the next acquire opens a fresh one.
    func release(_ lease: Lease) {
        let discard = lease.connection.isBroken || lease.discard
        let (action, waiter) = state.withLock { s -> (Machine.ReleaseAction, Handoff?) in
            let action = s.machine.release(lease, discard: discard)
            switch action {
            case .handOver(let id): return (action, s.take(id))
            case .close(let retry): return (action, s.take(retry))
            case .keptIdle: return (action, nil)
            }
        }
        switch action {
        case .handOver: waiter?.resume(returning: lease)
        case .keptIdle: observer?.metrics?.inUse.record(inUseCount)
        case .close:
            if discard { observer?.logger.notice("dropped a broken connection; the next call opens a new one") }
            observer?.metrics?.inUse.record(inUseCount)
            waiter?.resume(returning: nil)
        }
    }

    /// Refuses new leases and closes idle connections, as ``close()`` does, but leaves the calls queued for a
    /// connection in the queue: releases hand them connections as usual, so that the calls in flight end (see
    /// ``Database/close(gracePeriod:)``). A queued call woken without a connection (one was found broken) is refused.
    func beginDraining() {
        let idle = state.withLock { $0.machine.beginDraining() }
        _ = idle  // the leases (and their threads) end here, outside the lock
    }

    /// Whether the pool refuses new leases (it is closed or draining).
    var isClosed: Bool { state.withLock { $0.machine.isClosed } }

    /// Whether no call holds a connection of this pool or waits for one.
    var isDrained: Bool { state.withLock { $0.machine.isDrained } }

    /// Closes idle connections and refuses new leases; leases in use close when released. Queued calls are woken
    /// without a connection, and find the pool closed.
    func close() {
        let (waiters, idle) = state.withLock { s in
            let action = s.machine.close()
            return (action.waiters.compactMap { s.take($0) }, action.idle)
        }
        observer?.logger.info("closed the pool", metadata: ["db.pool.closed_idle": .stringConvertible(idle.count)])
        statementLoop?.stop()
        _ = idle  // the leases (and their threads) end here, outside the lock
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    /// Connections open now (idle or in use), for tests that count leases.
    var openCount: Int { state.withLock { $0.machine.openCount } }
    /// Connections leased to tasks now.
    var inUseCount: Int { state.withLock { $0.machine.inUseCount } }
    /// Tasks queued for a connection now.
    var waitingCount: Int { state.withLock { $0.machine.waitingCount } }
}

extension Double {
    /// The instant this many seconds from now, or nil (wait forever) when it is too far to represent.
    var deadline: PoolInstant? {
        guard self < 1e9 else { return nil }
        return PoolInstant.now.adding(seconds: self)
    }
}
