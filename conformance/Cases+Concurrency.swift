// Cases+Concurrency: several connections at once: writers wait their turn, readers never fail, nobody starves.
import Foundation
import Strata

extension ConformanceSuite {
    static let concurrencyCases: [ConformanceCase] = [
        ConformanceCase("concurrency.writer-waits-for-transaction") { db in
            try await Fixtures.migrate(db)
            let many = try await Siblings.open(db, connections: 2)
            defer { many.close() }
            let holding = Signal()
            let release = DispatchSemaphore(value: 0)
            let holder = Siblings.onOwnThread {
                defer { holding.fire() }
                try await many.transaction { tx in
                    var held = ConfGroup(title: "held")
                    try held.save(tx)
                    holding.fire()
                    // Hold the transaction while the other connection's write waits for it.
                    _ = release.wait(timeout: .now() + 0.3)
                }
            }
            await holding.wait()
            var waiting = ConfGroup(title: "waiting")
            var refused: (any Error)?
            do { try await waiting.save(on: many) } catch { refused = error }
            release.signal()
            try await holder.value
            if let refused { throw refused }
            let titles = try await ConfGroup.query(on: db).order(\.title).all().map(\.title)
            try checkEqual(titles, ["held", "waiting"], "both writes committed, neither refused as busy")
        },
        ConformanceCase("concurrency.waiting-writers-leave-threads-free") { db in
            // Writers that wait for a lock must not hold Swift's cooperative threads: a task that needs
            // one must still run (here it lets the lock holder finish; if it cannot run, the holder
            // gives up after 300 s and the case fails; a whole test run can keep the pool busy for a while).
            try await Fixtures.migrate(db)
            var row = ConfGroup(title: "v0")
            try await row.save(on: db)
            let writers = 6
            let many = try await Siblings.open(db, connections: writers + 1)
            defer { many.close() }
            guard let id = row.id else { throw ConformanceFailure(description: "a saved row has no id") }
            let holding = Signal()
            let probeRan = DispatchSemaphore(value: 0)
            let started = Counter()
            let holder = Siblings.onOwnThread {
                defer { holding.fire() }
                try await many.transaction { tx in
                    _ = try ConfGroup.query(on: tx).filter(id: id).set(\.title, to: "held").update()
                    holding.fire()
                    let ran = probeRan.wait(timeout: .now() + 300)
                    try check(ran == .success, "a task found no cooperative thread while writers waited for a lock")
                }
            }
            await holding.wait()
            let waiting = (0..<writers).map { n in
                Task {
                    started.add()
                    // The same row as the holder's: a PostgreSQL row lock, SQLite's and memory's write lock.
                    // A writer that waits past the busy timeout (the holder waits for the probe, which a whole
                    // test run can keep from a thread for a while) gets `busy` as designed and tries again:
                    // what fails the case is the probe never running, not a writer's patience.
                    for attempt in 1... {
                        do {
                            _ = try await ConfGroup.query(on: many).filter(id: id).set(\.title, to: "w\(n)").update()
                            break
                        } catch StrataError.busy where attempt < 60 {
                            continue
                        }
                    }
                }
            }
            while started.value < writers { await Task.yield() }
            // Give the writers time to reach their waits, then run on a cooperative thread ourselves.
            try await Task.sleep(for: .milliseconds(100))
            let probe = Task { try await Task.sleep(for: .milliseconds(10)) }
            try await probe.value
            probeRan.signal()
            try await holder.value
            for w in waiting { try await w.value }
            let title = try await ConfGroup.query(on: db).filter(id: id).first()?.title
            try check(
                title?.hasPrefix("w") == true, "a waiting writer's update is the last one (got \(title ?? "nil"))")
        },
        ConformanceCase("concurrency.mixed-load-exact-counts") { db in
            // Tasks mixing one-shot writes, transactions, rollbacks and reads over a pool of 4: no error
            // (readers never fail, writers wait their turn) and every committed row is there.
            try await Fixtures.migrate(db)
            let many = try await Siblings.open(db, connections: 4)
            defer { many.close() }
            let tasks = 16
            let rounds = 6
            try await withThrowingTaskGroup(of: Void.self) { group in
                for t in 0..<tasks {
                    group.addTask {
                        for r in 0..<rounds {
                            var one = ConfGroup(title: "one-\(t)-\(r)")
                            try await one.save(on: many)
                            try await many.transaction { tx in
                                var a = ConfGroup(title: "tx-\(t)-\(r)-a")
                                var b = ConfGroup(title: "tx-\(t)-\(r)-b")
                                try a.save(tx)
                                // Reads inside the transaction keep it open a while, for others to meet.
                                _ = try ConfGroup.query(on: tx).where(.like(\.title, "tx-\(t)-%")).count()
                                try b.save(tx)
                                b.title += "!"
                                try b.save(tx)
                            }
                            try await many.transaction { tx in
                                var gone = ConfGroup(title: "rolled-back")
                                try gone.save(tx)
                                throw Rollback()
                            }
                            let seen = try await ConfGroup.query(on: many).where(\.title == "rolled-back").count()
                            try checkEqual(seen, 0, "a rolled-back row is never seen by another connection")
                        }
                    }
                }
                try await group.waitForAll()
            }
            try checkEqual(try await ConfGroup.query(on: db).count(), tasks * rounds * 3, "every committed row")
            try checkEqual(
                try await ConfGroup.query(on: db).where(.like(\.title, "%!")).count(), tasks * rounds,
                "every update inside a transaction")
        },
    ]
}

/// Opening more connections to a case's database, and running a task off the cooperative pool.
package enum Siblings {
    /// A database over the same driver as `db` with room for `connections` at once.
    ///
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` when a second connection does not reach
    ///   the same data (`sqlite::memory:` opens a new database per connection).
    static func open(_ db: Database, connections: Int) async throws -> Database {
        var configuration = db.configuration
        configuration.maxConnections = max(connections, db.maxConnections)
        // These cases pin outcomes, not waits: under a whole test run on 2 cores a queued task can be held back for
        // over a minute before it takes the connection handed to it.
        configuration.poolTimeout = max(configuration.poolTimeout, 180)
        let sibling = Database(driver: db.driver, configuration: configuration)
        do {
            _ = try await ConfGroup.query(on: sibling).count()
        } catch StrataError.noSuchTable {
            sibling.close()
            throw StrataError.unsupported(feature: "a second connection to the same database", driver: db.driverName)
        }
        return sibling
    }

    /// Holds one connection of `db` in a body on a thread of its own until `release` is signalled (or 300 s
    /// pass), so that every other call meets a call in flight; returns once the connection is held.
    package static func holdOne(_ db: Database, until release: DispatchSemaphore) async -> Task<Void, any Error> {
        let holding = DispatchSemaphore(value: 0)
        let holder = onOwnThread {
            try await db.withConnection { _ in
                holding.signal()
                _ = release.wait(timeout: .now() + 300)
            }
        }
        while holding.wait(timeout: .now()) == .timedOut { await Task.yield() }
        return holder
    }

    /// Starts `body` as a task whose work runs on a thread of its own, so it may block.
    package static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Task<T, any Error>
    {
        let executor = DedicatedThreadExecutor()
        return Task(executorPreference: executor) {
            defer { executor.stop() }
            return try await body()
        }
    }
}

/// A one-shot signal: fired from any thread (a transaction body), awaited by a task.
///
/// `@unchecked Sendable`: `fired` and `waiters` are read and written only while `lock` is held.
final class Signal: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Fires the signal (again is harmless).
    func fire() {
        lock.lock()
        fired = true
        let resumed = waiters
        waiters = []
        lock.unlock()
        for w in resumed { w.resume() }
    }

    /// Returns once the signal has fired.
    func wait() async {
        await withCheckedContinuation { c in
            lock.lock()
            if fired {
                lock.unlock()
                c.resume()
                return
            }
            waiters.append(c)
            lock.unlock()
        }
    }
}

/// A counter tasks bump and poll.
///
/// `@unchecked Sendable`: `count` is read and written only while `lock` is held.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
