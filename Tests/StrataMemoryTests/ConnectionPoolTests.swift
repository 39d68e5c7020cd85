// ConnectionPoolTests: waiting for a connection times out, leaves on cancellation, and never loses a lease.
import Foundation
import StrataConformance
import StrataMemory
import Synchronization
import Testing

@testable import Strata

/// The memory driver, counting the connections it opens; `blocking` says its calls may block, so that calls
/// that meet others run on connection threads (as SQLite's and PostgreSQL's do).
private struct CountingDriver: Driver {
    let base = MemoryDriver()
    let opened = Counter()
    var blocking = false
    var name: String { base.name }
    var maxConnections: Int { base.maxConnections }
    var callsMayBlock: Bool { blocking || base.callsMayBlock }

    func connect() throws -> any DatabaseConnection {
        opened.value.add(1, ordering: .relaxed)
        return try base.connect()
    }
}

/// A shared count. Sendable: an atomic.
private final class Counter: Sendable {
    let value = Atomic<Int>(0)
    var count: Int { value.load(ordering: .relaxed) }
}

/// The order calls were served in. Sendable: a mutex.
private final class Served: Sendable {
    let list = Mutex<[Int]>([])
}

/// Waits (sleeping) until `n` tasks wait in the pool's queue; throws once the test is cancelled (its time limit),
/// rather than spinning on a cooperative thread that the tasks it waits for need.
/// Returns once `n` tasks wait for a connection; fails (rather than hangs) when they do not within 300 s.
private func waitForWaiters(_ db: Database, _ n: Int) async throws {
    let deadline = ContinuousClock.now + .seconds(300)
    while db.pool.waitingCount < n {
        guard ContinuousClock.now < deadline else {
            Issue.record("\(db.pool.waitingCount) tasks wait for a connection, not \(n)")
            return
        }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// Where a timeout is not what a test checks, the pool's is 600 s: in a whole `swift test` run on 2 cores, a task
/// can wait more than a minute for a cooperative thread, and a 60 s timeout then expired a waiter the test still
/// counted on (a CI run read that as a lost waiter). A lost waiter shows as the time limit instead.
@Suite("Connection pool")
struct ConnectionPoolTests {
    @Test(
        "a task waiting on a full pool throws poolTimeout after the configured time", .timeLimit(.minutes(6)),
        arguments: [false, true])
    func timesOut(blocking: Bool) async throws {
        let driver = CountingDriver(blocking: blocking)
        let db = Database(driver: driver, configuration: Configuration(maxConnections: 1, poolTimeout: 0.3))
        let release = DispatchSemaphore(value: 0)
        let holder = await Siblings.holdOne(db, until: release)
        // Waits on a thread of its own, so its resumption needs no cooperative thread (tests running beside
        // this one may keep them all busy for long): the time measured is the pool's alone.
        let waiting = Siblings.onOwnThread { () -> (Duration, (any Error)?) in
            let start = ContinuousClock.now
            do {
                try await db.withConnection { _ in }
                return (ContinuousClock.now - start, nil)
            } catch {
                return (ContinuousClock.now - start, error)
            }
        }
        let (waited, error) = try await waiting.value
        #expect(error as? StrataError == .poolTimeout(seconds: 0.3), "\(String(describing: error))")
        #expect(waited >= .milliseconds(290), "waited \(waited)")
        #expect(waited < .seconds(15), "waited \(waited), not the 60 s a lost timer would leave to the time limit")
        #expect(db.pool.waitingCount == 0, "the timed-out task left the queue")
        release.signal()
        try await holder.value
        try await db.withConnection { _ in }
        #expect(driver.opened.count == 1, "one connection, never lost")
    }

    @Test(
        "a cancelled waiter leaves the queue at once; the next waiter still gets the connection",
        .timeLimit(.minutes(6)), arguments: [false, true])
    func cancelledWaiterLeaves(blocking: Bool) async throws {
        let driver = CountingDriver(blocking: blocking)
        let db = Database(driver: driver, configuration: Configuration(maxConnections: 1, poolTimeout: 600))
        let release = DispatchSemaphore(value: 0)
        let holder = await Siblings.holdOne(db, until: release)
        let cancelled = Task { try await db.withConnection { _ in "ran" } }
        try await waitForWaiters(db, 1)
        let next = Task { try await db.withConnection { _ in "ran" } }
        try await waitForWaiters(db, 2)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(db.pool.waitingCount == 1, "only the next waiter is left")
        release.signal()
        try await holder.value
        #expect(try await next.value == "ran")
        #expect(driver.opened.count == 1)
        #expect(db.pool.openCount == 1)
        #expect(db.pool.inUseCount == 0)
    }

    @Test("a task cancelled before it waits does not wait", .timeLimit(.minutes(6)), arguments: [false, true])
    func cancelledBeforeWaiting(blocking: Bool) async throws {
        let db = Database(
            // Waiters queue one after another: under a whole test run on 2 cores a queued task can wait long.
            driver: CountingDriver(blocking: blocking),
            configuration: Configuration(maxConnections: 1, poolTimeout: 600)
        )
        let release = DispatchSemaphore(value: 0)
        let holder = await Siblings.holdOne(db, until: release)
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await db.withConnection { _ in 1 }
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        release.signal()
        try await holder.value
    }

    @Test(
        "hundreds of calls with timeouts and cancellations over a pool of 2 lose no connection",
        .timeLimit(.minutes(6)),
        arguments: [false, true])
    func noLeaseLost(blocking: Bool) async throws {
        let driver = CountingDriver(blocking: blocking)
        let db = Database(driver: driver, configuration: Configuration(maxConnections: 2, poolTimeout: 0.05))
        var outcomes = (ran: 0, timedOut: 0, cancelled: 0)
        for round in 0..<5 {
            let tasks = (0..<64).map { n in
                Task { () -> Int in
                    do {
                        return try await db.withConnection { _ in
                            Thread.sleep(forTimeInterval: 0.002)
                            return 0
                        }
                    } catch StrataError.poolTimeout {
                        return 1
                    } catch is CancellationError {
                        return 2
                    }
                }
            }
            for (n, t) in tasks.enumerated() where (n + round) % 5 == 0 { t.cancel() }
            for t in tasks {
                switch try await t.value {
                case 0: outcomes.ran += 1
                case 1: outcomes.timedOut += 1
                default: outcomes.cancelled += 1
                }
            }
        }
        #expect(outcomes.ran + outcomes.timedOut + outcomes.cancelled == 320)
        #expect(outcomes.ran > 0)
        #expect(db.pool.inUseCount == 0)
        #expect(db.pool.waitingCount == 0)
        #expect(db.pool.openCount <= 2)
        #expect(driver.opened.count == db.pool.openCount, "every connection opened is still in the pool")
        // Both connections are still there to lease: two bodies at once.
        let together = DispatchSemaphore(value: 0)
        async let first: Void = db.withConnection { _ in
            together.signal()
        }
        async let second: Void = db.withConnection { _ in
            together.signal()
        }
        _ = try await (first, second)
        #expect(driver.opened.count <= 2)
    }

    @Test("waiters are served in the order they queued", .timeLimit(.minutes(6)), arguments: [false, true])
    func firstInFirstServed(blocking: Bool) async throws {
        let db = Database(
            driver: CountingDriver(blocking: blocking), configuration: Configuration(maxConnections: 1, poolTimeout: 600)
        )
        let release = DispatchSemaphore(value: 0)
        let holder = await Siblings.holdOne(db, until: release)
        let order = Served()
        var waiters: [Task<Void, any Error>] = []
        for n in 0..<8 {
            waiters.append(Task { try await db.withConnection { _ in order.list.withLock { $0.append(n) } } })
            try await waitForWaiters(db, n + 1)
        }
        release.signal()
        try await holder.value
        for w in waiters { try await w.value }
        #expect(order.list.withLock { $0 } == Array(0..<8))
        #expect(db.pool.inUseCount == 0)
    }
}
