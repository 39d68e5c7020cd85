// ConnectionPool: hands each task one connection at a time, opening up to a limit, waiting past it.
import Synchronization

/// A connection leased from the pool.
///
/// `@unchecked Sendable`: the connection inside is not thread-safe, but a lease is held by exactly one
/// task between `acquire` and `release`; the pool's mutex orders every hand-over, so no two tasks
/// ever touch the connection at once.
final class Lease: @unchecked Sendable {
    let connection: any DatabaseConnection
    init(_ connection: any DatabaseConnection) { self.connection = connection }
}

/// A fixed-capacity pool. Waiting for a connection suspends the task; it never blocks a thread.
final class ConnectionPool: Sendable {
    private struct State {
        var idle: [Lease] = []
        var open = 0
        var waiters: [CheckedContinuation<Lease?, Never>] = []
        var closed = false
    }

    let driver: any Driver
    let capacity: Int
    private let state = Mutex(State())

    init(driver: any Driver, capacity: Int) {
        self.driver = driver
        self.capacity = max(1, capacity)
    }

    private enum Step { case use(Lease), connect, wait, closed }

    func acquire() async throws -> Lease {
        while true {
            let step: Step = state.withLock { s in
                if s.closed { return .closed }
                if let lease = s.idle.popLast() { return .use(lease) }
                if s.open < capacity {
                    s.open += 1
                    return .connect
                }
                return .wait
            }
            switch step {
            case .use(let lease): return lease
            case .closed: throw StrataError.connectionFailed("the database is closed")
            case .connect:
                do {
                    return Lease(try driver.connect())
                } catch {
                    state.withLock { $0.open -= 1 }
                    wakeOne(with: nil)  // let a waiter try to connect in our place
                    throw error
                }
            case .wait:
                let handed: Lease? = await withCheckedContinuation { c in
                    let enqueued = state.withLock { s -> Bool in
                        if s.closed || !s.idle.isEmpty || s.open < capacity { return false }
                        s.waiters.append(c)
                        return true
                    }
                    if !enqueued { c.resume(returning: nil) }
                }
                if let handed { return handed }
            }
        }
    }

    /// Returns a lease; a broken connection is dropped so the next acquire opens a fresh one.
    func release(_ lease: Lease) {
        if lease.connection.isBroken {
            state.withLock { $0.open -= 1 }
            wakeOne(with: nil)
            return
        }
        let waiter: CheckedContinuation<Lease?, Never>? = state.withLock { s in
            if !s.waiters.isEmpty { return s.waiters.removeFirst() }
            if s.closed {
                s.open -= 1
            } else {
                s.idle.append(lease)
            }
            return nil
        }
        waiter?.resume(returning: lease)
    }

    private func wakeOne(with lease: Lease?) {
        let waiter = state.withLock { s in s.waiters.isEmpty ? nil : s.waiters.removeFirst() }
        waiter?.resume(returning: lease)
    }

    /// Closes idle connections and refuses new leases; leases in use close when released.
    func close() {
        let waiters = state.withLock { s in
            s.closed = true
            s.open -= s.idle.count
            s.idle.removeAll()
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for w in waiters { w.resume(returning: nil) }
    }
}
