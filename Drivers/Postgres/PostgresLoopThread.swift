// PostgresLoopThread: one thread of the statement loop, sending statements on its connections and polling them all.
import CPostgres
import Foundation
import Strata
import Synchronization

/// One thread of a ``PostgresStatementLoop``: it sends the statements of its connections, waits on all their sockets
/// in one `poll`, and reads each answer as it comes, the way one `pgbench -j` thread drives its clients. A freed
/// connection takes the next queued statement on this thread at once (the pool hands it over in `done`).
///
/// It starts with the first statement and ends after ``idleLimit`` with nothing to do (or at ``stop()``), so an idle
/// pool holds no thread.
///
/// `@unchecked Sendable`: `inbox`, `polling`, `running`, `stopped` and `launches` are read and written only while
/// `lock` is held; `active` and the connections in it only on the loop's thread.
final class PostgresLoopThread: @unchecked Sendable {
    private let lock = NSLock()
    private var inbox: [Job] = []
    /// Whether the loop is (about to be) asleep in `poll`, so that a new job must wake it.
    private var polling = false
    private var running = false
    private var stopped = false
    /// How many times the thread was started.
    private var launches = 0
    /// A pipe whose read end is in every `poll`: a byte written wakes the loop.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// How long the thread waits with nothing to do before it ends.
    static let idleLimit: Int32 = 200

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    final class Job {
        let statement: PostgresLoopStatement
        let connection: PostgresConnection
        let done: @Sendable (LoopOutcome) -> Void

        init(
            statement: PostgresLoopStatement, connection: PostgresConnection,
            done: @escaping @Sendable (LoopOutcome) -> Void
        ) {
            self.statement = statement
            self.connection = connection
            self.done = done
        }
    }

    /// Queues `job`, starting the thread or waking it as needed.
    func start(_ job: Job) {
        PostgresLoopCounters.statements.add(1, ordering: .relaxed)
        lock.lock()
        inbox.append(job)
        let wake = polling
        polling = false
        let launch = !running
        running = true
        if launch { launches += 1 }
        lock.unlock()
        if launch {
            let thread = Thread { [self] in run() }
            thread.name = "strata postgres loop"
            thread.stackSize = 1 << 20
            thread.start()
        } else if wake {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    /// How many times the thread was started, and whether it runs now (for tests of the idle limit).
    var activity: (launches: Int, running: Bool) {
        lock.lock()
        defer { lock.unlock() }
        return (launches, running)
    }

    func stop() {
        lock.lock()
        stopped = true
        let wake = polling
        lock.unlock()
        if wake {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    // MARK: The loop's thread

    /// A statement in flight on a connection.
    private final class Active {
        let job: Job
        let deadline: ContinuousClock.Instant?
        /// The statement's name while it is being prepared, nil once it runs.
        var preparing: String?
        var results: [OpaquePointer] = []
        var changed = 0
        var failure: PostgresFailure?

        init(job: Job, deadline: ContinuousClock.Instant?) {
            self.job = job
            self.deadline = deadline
        }

        var key: PostgresConnection.Key { job.statement.key }
    }

    private func run() {
        var active: [Active] = []
        var jobs: [Job] = []
        var fds: [pollfd] = []
        var finished: [(Job, LoopOutcome)] = []
        var idleSince: ContinuousClock.Instant?
        while true {
            lock.lock()
            polling = false
            swap(&jobs, &inbox)
            if jobs.isEmpty && active.isEmpty {
                let now = ContinuousClock.now
                let since = idleSince ?? now
                idleSince = since
                if stopped || since.duration(to: now) >= .milliseconds(Int(Self.idleLimit)) {
                    running = false
                    lock.unlock()
                    return
                }
            }
            if !jobs.isEmpty {
                lock.unlock()
                idleSince = nil
                for job in jobs { begin(job, into: &active, finished: &finished) }
                jobs.removeAll(keepingCapacity: true)
                complete(&finished)
                continue
            }
            polling = true
            lock.unlock()

            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for a in active {
                fds.append(pollfd(fd: PQsocket(a.job.connection.handle), events: Int16(POLLIN), revents: 0))
            }
            let n = poll(&fds, nfds_t(fds.count), timeout(active))
            if n < 0 && errno != EINTR { Thread.sleep(forTimeInterval: 0.001) }  // never spin on a persistent error
            if fds[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &drain, drain.count) > 0 {}
            }
            let now = ContinuousClock.now
            var i = 0
            var slot = 1
            while i < active.count {
                let ready = n > 0 && fds[slot].revents != 0
                slot += 1
                if ready, let outcome = advance(active[i]) {
                    finished.append((active[i].job, outcome))
                    active.remove(at: i)
                    continue
                }
                if let deadline = active[i].deadline, deadline <= now {
                    let connection = active[i].job.connection
                    connection.isBroken = true
                    let limit = connection.callTimeout.map { "\($0)" } ?? "the deadline"
                    let error = StrataError.connectionLost(
                        "no answer from the server within \(limit) (statement_timeout plus "
                            + "\(PostgresConnectionOptions.answerGrace) ms): it is frozen or the network is down; "
                            + "the connection was discarded")
                    finished.append((active[i].job, .answered(PostgresLoopAnswer(error: error))))
                    active[i].results.forEach { PQclear($0) }
                    active.remove(at: i)
                    continue
                }
                i += 1
            }
            complete(&finished)
        }
    }

    /// Milliseconds `poll` may sleep: until the nearest deadline, or the idle limit with nothing in flight.
    private func timeout(_ active: [Active]) -> Int32 {
        guard !active.isEmpty else { return Self.idleLimit }
        guard let nearest = active.lazy.compactMap(\.deadline).min() else { return -1 }
        let (seconds, attoseconds) = ContinuousClock.now.duration(to: nearest).components
        return Int32(clamping: max(0, min(seconds, 60) * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
    }

    /// Hands each finished statement's outcome back (its connection returns to the pool there).
    private func complete(_ finished: inout [(Job, LoopOutcome)]) {
        for (job, outcome) in finished { job.done(outcome) }
        finished.removeAll(keepingCapacity: true)
    }

    /// Sends a new job's statement (or its PREPARE first), or finishes it with the error that stopped it.
    private func begin(_ job: Job, into active: inout [Active], finished: inout [(Job, LoopOutcome)]) {
        let connection = job.connection
        let handle = connection.handle
        guard !connection.isBroken, PQstatus(handle) == CONNECTION_OK else {
            connection.isBroken = true
            let error = StrataError.connectionLost("the connection to the server is closed")
            finished.append((job, .answered(PostgresLoopAnswer(error: error))))
            return
        }
        let key = job.statement.key
        let entry = Active(job: job, deadline: connection.callTimeout.map { ContinuousClock.now + $0 })
        let sent: Int32
        if connection.usesNamedStatements, connection.cache[key] == nil {
            let name = connection.newStatementName()
            sent = key.types.withUnsafeBufferPointer { types in
                PQsendPrepare(handle, name, key.sql, Int32(key.types.count), types.baseAddress)
            }
            entry.preparing = name
        } else {
            sent = send(job.statement, on: connection)
        }
        guard sent == 1 else {
            finished.append((job, .answered(PostgresLoopAnswer(error: lost(connection)))))
            return
        }
        active.append(entry)
    }

    /// Sends the statement itself: by its prepared name, or unnamed (`prepare=off`, a pooler).
    private func send(_ statement: PostgresLoopStatement, on connection: PostgresConnection) -> Int32 {
        let handle = connection.handle
        let key = statement.key
        let binds = statement.binds
        if connection.usesNamedStatements, let name = connection.cache[key] {
            return binds.withParameters { values, lengths, formats in
                PQsendQueryPrepared(handle, name, Int32(binds.count), values, lengths, formats, 0)
            }
        }
        return key.types.withUnsafeBufferPointer { types in
            binds.withParameters { values, lengths, formats in
                PQsendQueryParams(handle, key.sql, Int32(binds.count), types.baseAddress, values, lengths, formats, 0)
            }
        }
    }

    /// The error for a connection libpq could not send on or read from, which is marked broken.
    private func lost(_ connection: PostgresConnection) -> StrataError {
        connection.isBroken = true
        return .connectionLost(PostgresConnector.tidy(String(cString: PQerrorMessage(connection.handle))))
    }

    /// Reads what arrived for a statement; returns its outcome once the server has answered it whole.
    private func advance(_ entry: Active) -> LoopOutcome? {
        let connection = entry.job.connection
        let handle = connection.handle
        if PQconsumeInput(handle) == 0 {
            entry.results.forEach { PQclear($0) }
            return .answered(PostgresLoopAnswer(error: lost(connection)))
        }
        while PQisBusy(handle) == 0 {
            guard let result = PQgetResult(handle) else {
                if let outcome = phaseDone(entry) { return outcome }
                return nil  // the PREPARE is done and the statement sent: its answer comes later
            }
            switch PQresultStatus(result) {
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                if entry.preparing != nil || entry.failure != nil {
                    PQclear(result)
                } else {
                    entry.changed = PostgresConnection.changedRows(result)
                    entry.results.append(result)
                }
            default:
                if entry.failure == nil { entry.failure = PostgresFailure(result: result, connection: handle) }
                PQclear(result)
            }
        }
        return nil
    }

    /// The end of a PREPARE (then the statement is sent) or of the statement (then its outcome).
    private func phaseDone(_ entry: Active) -> LoopOutcome? {
        let connection = entry.job.connection
        let shape = entry.job.statement.shape
        if let name = entry.preparing {
            entry.preparing = nil
            if let failure = entry.failure {
                return .answered(PostgresLoopAnswer(error: connection.fail(failure, shape)))
            }
            connection.cache[entry.key] = name
            guard send(entry.job.statement, on: connection) == 1 else {
                return .answered(PostgresLoopAnswer(error: lost(connection)))
            }
            return nil
        }
        if let failure = entry.failure {
            entry.results.forEach { PQclear($0) }
            if failure.isStalePlan {
                PostgresLoopCounters.replans.add(1, ordering: .relaxed)
                connection.cache[entry.key] = nil
                return .again
            }
            return .answered(PostgresLoopAnswer(error: connection.fail(failure, shape)))
        }
        guard PQstatus(connection.handle) == CONNECTION_OK else {
            entry.results.forEach { PQclear($0) }
            let failure = PostgresFailure(result: nil, connection: connection.handle)
            return .answered(PostgresLoopAnswer(error: connection.fail(failure, shape)))
        }
        return .answered(PostgresLoopAnswer(results: entry.results, changed: entry.changed))
    }
}
