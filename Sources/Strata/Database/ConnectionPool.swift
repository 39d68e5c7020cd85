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
/// A wait ends with a connection, with ``StrataError/poolTimeout(seconds:)`` after the configured
/// time, or with `CancellationError` when the waiting task is cancelled; either way the task leaves
/// the queue and no connection is lost.
final class ConnectionPool: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: Handoff
        /// When the wait ends with ``StrataError/poolTimeout(seconds:)`` (see ``sweep()``); nil: never.
        var deadline: ContinuousClock.Instant?
    }

    private struct State {
        var idle: [Lease] = []
        /// Connections open or being opened.
        var open = 0
        /// Connections leased to tasks (or being opened for one).
        var inUse = 0
        var waiters: [Waiter] = []
        var nextWaiter: UInt64 = 0
        var closed = false
        /// When the earliest sweep for timed-out waiters is due; nil when none is scheduled.
        var sweepAt: ContinuousClock.Instant?
    }

    let driver: any Driver
    let capacity: Int
    /// How long `acquire` waits for a connection, in seconds.
    let timeout: Double
    private let state = Mutex(State())
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
        watched = observer.map { $0.metrics != nil || $0.logger.logLevel <= .info } ?? false
        statementLoop =
            self.capacity > 1 ? (driver as? any StatementLoopDriver)?.makeStatementLoop(capacity: self.capacity) : nil
    }

    enum Step { case use(Lease, alone: Bool), connect(alone: Bool), wait, closed }

    /// A connection for the calling task, and whether it is the only one in use (no other task holds a
    /// connection of this pool, so running on the caller's thread delays no other call).
    ///
    /// - Throws: ``StrataError/poolTimeout(seconds:)`` when none frees up in time, `CancellationError`
    ///   when the task is cancelled while it waits, the driver's connection errors, and
    ///   ``StrataError/connectionFailed(_:)`` once the database is closed.
    nonisolated(nonsending) func acquire() async throws -> (lease: Lease, alone: Bool) {
        var queued = false
        guard watched, let observer else { return try await acquireLease(queued: &queued) }
        let start = MonotonicClock.now()
        do {
            let leased = try await acquireLease(queued: &queued)
            noteLease(waitedNanoseconds: MonotonicClock.now() &- start, queued: queued)
            return leased
        } catch {
            observer.failedBeforeRunning(error)
            if queued {
                observer.logger.notice(
                    "gave up waiting for a pooled connection", metadata: ["db.error": .string("\(error)")])
            }
            throw error
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
        var deadline: ContinuousClock.Instant?
        while true {
            switch nextStep() {
            case .use(let lease, let alone):
                if lease.connection.isUsable { return (lease, alone) }
                discardDead(lease)
            case .closed: throw StrataError.connectionFailed("the database is closed")
            case .connect(let alone):
                do {
                    return (try await connect(alone: alone), alone)
                } catch {
                    connectFailed()
                    throw error
                }
            case .wait:
                queued = true
                let until = deadline ?? timeout.deadline
                deadline = until
                if let handed = try await wait(until: until) { return (handed, false) }
            }
        }
    }

    /// Gives back the slot of a connection that could not be opened, and lets a waiter try in its place.
    func connectFailed() {
        state.withLock { s in
            s.open -= 1
            s.inUse -= 1
        }
        wakeOne(with: nil)
    }

    /// Takes an idle lease, or a slot to open one, or says to wait.
    func nextStep() -> Step {
        state.withLock { s in
            if s.closed { return .closed }
            if let lease = s.idle.popLast() {
                s.inUse += 1
                return .use(lease, alone: s.inUse == 1)
            }
            if s.open < capacity {
                s.open += 1
                s.inUse += 1
                return .connect(alone: s.inUse == 1)
            }
            return .wait
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
            switch nextStep() {
            case .use(let lease, _):
                if lease.connection.isUsable { return lease }
                discardDead(lease)
            case .closed: throw StrataError.connectionFailed("the database is closed")
            case .connect:
                do {
                    let lease = Lease(try driver.connect())
                    logOpened()
                    return lease
                } catch {
                    state.withLock { s in
                        s.open -= 1
                        s.inUse -= 1
                    }
                    wakeOne(with: nil)
                    throw error
                }
            case .wait:
                let handoff = BlockingHandoff()
                let id: UInt64? = state.withLock { s in
                    if s.closed || !s.idle.isEmpty || s.open < capacity { return nil }
                    s.nextWaiter &+= 1
                    s.waiters.append(Waiter(id: s.nextWaiter, continuation: .thread(handoff)))
                    return s.nextWaiter
                }
                guard let id else { continue }
                if !handoff.wait(until: deadline) { leave(id, throwing: StrataError.poolTimeout(seconds: timeout)) }
                if let lease = try handoff.result() { return lease }
            }
        }
    }

    /// Opens a connection: on the caller's thread when it is alone, else on the connection's own thread
    /// (connecting is a network round trip or more on a server).
    nonisolated(nonsending) func connect(alone: Bool) async throws -> Lease {
        do {
            let lease = try await openLease(alone: alone)
            logOpened()
            return lease
        } catch {
            observer?.logger.notice("could not open a connection", metadata: ["db.error": .string("\(error)")])
            throw error
        }
    }

    private func logOpened() {
        observer?.logger.info("opened a connection", metadata: ["db.pool.open": .stringConvertible(openCount)])
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

    /// Queues the task until a lease is handed to it (nil: try again, a slot may be free), the deadline
    /// passes, or the task is cancelled.
    nonisolated(nonsending) private func wait(until deadline: ContinuousClock.Instant?) async throws -> Lease? {
        try await queue(until: deadline, retry: nil) { .task($0) }
    }

    /// Queues the task as `handoff` until a lease is handed to it, the deadline passes, or the task is cancelled;
    /// returns `retry` straight away when a connection freed up meanwhile.
    nonisolated(nonsending) func queue<R: Sendable>(
        until deadline: ContinuousClock.Instant?, retry: R,
        _ handoff: (UnsafeContinuation<R, any Error>) -> Handoff
    ) async throws -> R {
        let id = state.withLock { s in
            s.nextWaiter &+= 1
            return s.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (c: UnsafeContinuation<R, any Error>) in
                let queued = state.withLock { s -> (sweep: ContinuousClock.Instant?, queued: Bool) in
                    if s.closed || !s.idle.isEmpty || s.open < capacity { return (nil, false) }
                    s.waiters.append(Waiter(id: id, continuation: handoff(c), deadline: deadline))
                    guard let deadline, s.sweepAt.map({ deadline < $0 }) ?? true else { return (nil, true) }
                    s.sweepAt = deadline
                    return (deadline, true)
                }
                guard queued.queued else {
                    c.resume(returning: retry)
                    return
                }
                if let at = queued.sweep { scheduleSweep(at: at) }
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
        let now = ContinuousClock.now
        var expired: [Waiter] = []
        let next: ContinuousClock.Instant? = state.withLock { s in
            s.waiters.removeAll { w in
                guard let d = w.deadline, d <= now else { return false }
                expired.append(w)
                return true
            }
            s.sweepAt = s.waiters.lazy.compactMap(\.deadline).min()
            return s.sweepAt
        }
        if let next { scheduleSweep(at: next) }
        for w in expired { w.continuation.resume(throwing: StrataError.poolTimeout(seconds: timeout)) }
    }

    private func scheduleSweep(at deadline: ContinuousClock.Instant) {
        // A millisecond late, so that Dispatch's clock never finds the deadline a hair away and sweeps for nothing.
        let seconds = max(0, ContinuousClock.now.duration(to: deadline) / .seconds(1)) + 0.001
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in self?.sweep() }
    }

    /// The statement at the head of the queue, taken out of it, when the head is one (a task waiting for a
    /// connection for anything else keeps its turn): a loop sends it on a connection it already holds, behind the
    /// statements in flight there (pipelining), instead of waiting for a connection of its own to free up.
    func takeQueuedStatement() -> QueuedStatement? {
        state.withLock { s in
            guard case .statement(let queued)? = s.waiters.first?.continuation else { return nil }
            s.waiters.removeFirst()
            return queued
        }
    }

    /// Takes a waiter out of the queue with an error, unless a lease was handed to it first.
    private func leave(_ id: UInt64, throwing error: any Error) {
        let waiter: Waiter? = state.withLock { s in
            guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return s.waiters.remove(at: i)
        }
        guard let waiter else { return }
        waiter.continuation.resume(throwing: error)
    }

    /// Drops an idle connection found dead at checkout (``DatabaseConnection/isUsable``), freeing its slot for
    /// the caller, who then takes another idle one or opens a new one.
    func discardDead(_ lease: Lease) {
        state.withLock { s in
            s.open -= 1
            s.inUse -= 1
        }
        observer?.logger.notice("dropped an idle connection the server closed; opening a new one")
    }

    /// Returns a lease; a broken connection is dropped so the next acquire opens a fresh one.
    func release(_ lease: Lease) {
        if lease.connection.isBroken || lease.discard {
            state.withLock { s in
                s.open -= 1
                s.inUse -= 1
            }
            observer?.logger.notice("dropped a broken connection; the next call opens a new one")
            observer?.metrics?.inUse.record(inUseCount)
            wakeOne(with: nil)
            return
        }
        let waiter: Waiter? = state.withLock { s in
            if !s.waiters.isEmpty { return s.waiters.removeFirst() }  // handed over: still in use
            s.inUse -= 1
            if s.closed {
                s.open -= 1
            } else {
                s.idle.append(lease)
            }
            return nil
        }
        guard let waiter else {
            observer?.metrics?.inUse.record(inUseCount)
            return
        }
        waiter.continuation.resume(returning: lease)
    }

    private func wakeOne(with lease: Lease?) {
        let waiter = state.withLock { s in s.waiters.isEmpty ? nil : s.waiters.removeFirst() }
        guard let waiter else { return }
        waiter.continuation.resume(returning: lease)
    }

    /// Refuses new leases and closes idle connections, as ``close()`` does, but leaves the calls queued for a
    /// connection in the queue: releases hand them connections as usual, so that the calls in flight end (see
    /// ``Database/close(gracePeriod:)``). A queued call woken without a connection (one was found broken) is refused.
    func beginDraining() {
        let idle = state.withLock { s in
            s.closed = true
            s.open -= s.idle.count
            defer { s.idle.removeAll() }
            return s.idle
        }
        _ = idle  // the leases (and their threads) end here, outside the lock
    }

    /// Whether the pool refuses new leases (it is closed or draining).
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Whether no call holds a connection of this pool or waits for one.
    var isDrained: Bool { state.withLock { $0.inUse == 0 && $0.waiters.isEmpty } }

    /// Closes idle connections and refuses new leases; leases in use close when released.
    func close() {
        let (waiters, idle) = state.withLock { s in
            s.closed = true
            s.open -= s.idle.count
            defer {
                s.idle.removeAll()
                s.waiters.removeAll()
            }
            return (s.waiters, s.idle)
        }
        observer?.logger.info("closed the pool", metadata: ["db.pool.closed_idle": .stringConvertible(idle.count)])
        statementLoop?.stop()
        _ = idle  // the leases (and their threads) end here, outside the lock
        for w in waiters {
            w.continuation.resume(returning: nil)
        }
    }

    /// Connections open now (idle or in use), for tests that count leases.
    var openCount: Int { state.withLock { $0.open } }
    /// Connections leased to tasks now.
    var inUseCount: Int { state.withLock { $0.inUse } }
    /// Tasks queued for a connection now.
    var waitingCount: Int { state.withLock { $0.waiters.count } }
}

extension Double {
    /// The instant this many seconds from now, or nil (wait forever) when it is too far to represent.
    var deadline: ContinuousClock.Instant? {
        guard self < 1e9 else { return nil }
        return .now + .seconds(self)
    }
}
