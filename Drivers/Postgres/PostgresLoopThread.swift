// PostgresLoopThread: one thread of the statement loop, sending statements on its connections and polling them all.
import CPostgres
import Foundation
import Strata
import Synchronization

/// One thread of a ``PostgresStatementLoop``: it sends the statements of its connections, waits on all their sockets
/// in one `poll`, and reads each answer as it comes, the way one `pgbench -j` thread drives its clients.
///
/// While statements queue for a connection (every connection of the pool is busy), it pipelines: up to
/// ``pipelineDepth`` statements in flight on one connection, each followed by its own Sync, so each is its own
/// implicit transaction and an error in one touches no other. The server then finds the next statement already
/// waiting when it finishes one, instead of idling a round trip. A freed connection takes the next queued statement
/// on this thread at once.
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

    /// What ``PostgresStatementLoop/start(_:reply:lease:)`` hands over: a statement, its reply, the lent connection.
    struct Job {
        let statement: PostgresLoopStatement
        let reply: LoopReply
        let lease: LoopLease
        let connection: PostgresConnection
    }

    /// At most this many statements in flight on one connection (with `prepare=off`, for a pooler: one).
    static let pipelineDepth = 4

    /// Queues `job`, starting the thread or waking it as needed.
    func start(_ job: Job) {
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

    /// A statement in flight.
    private final class Entry {
        let statement: PostgresLoopStatement
        let reply: LoopReply
        /// When the server must have answered; set once the statement is the oldest in flight on its connection
        /// (the server runs a connection's statements one after another, so a later one's time starts then).
        var deadline: ContinuousClock.Instant?
        /// The statement's name while its PREPARE is in flight ahead of it.
        var preparing: String?
        var results: [OpaquePointer] = []
        var changed = 0
        var failure: PostgresFailure?
        /// The PREPARE's failure, which is the statement's error (the statement itself then fails for want of it).
        var prepareFailure: PostgresFailure?
        /// Whether it was sent again after a stale cached plan.
        var replanned = false

        init(_ statement: PostgresLoopStatement, reply: LoopReply) {
            self.statement = statement
            self.reply = reply
        }
    }

    /// A lent connection and the statements in flight on it, oldest first.
    private final class Pipe {
        let connection: PostgresConnection
        let lease: LoopLease
        var entries: [Entry] = []
        /// The limit on ``entries``: ``pipelineDepth``, or 1 for unnamed statements (a pooler in front).
        let depth: Int

        init(connection: PostgresConnection, lease: LoopLease) {
            self.connection = connection
            self.lease = lease
            depth = connection.usesNamedStatements ? PostgresLoopThread.pipelineDepth : 1
        }
    }

    /// What a pass of the loop finished: replies to send, and connections to give back first.
    private struct Finished {
        var replies: [(LoopReply, LoopOutcome)] = []
        var released: [LoopLease] = []

        /// Gives the connections back (so that the next waiters get them at once), then resumes the tasks.
        mutating func deliver() {
            for lease in released { lease.release() }
            for (reply, outcome) in replies { reply(outcome) }
            released.removeAll(keepingCapacity: true)
            replies.removeAll(keepingCapacity: true)
        }
    }

    private func run() {
        var pipes: [Pipe] = []
        var jobs: [Job] = []
        var fds: [pollfd] = []
        var finished = Finished()
        var idleSince: ContinuousClock.Instant?
        while true {
            lock.lock()
            polling = false
            swap(&jobs, &inbox)
            if jobs.isEmpty && pipes.isEmpty {
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
                for job in jobs { open(job, into: &pipes, finished: &finished) }
                jobs.removeAll(keepingCapacity: true)
                finished.deliver()
                continue
            }
            polling = true
            lock.unlock()

            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for pipe in pipes {
                fds.append(pollfd(fd: PQsocket(pipe.connection.handle), events: Int16(POLLIN), revents: 0))
            }
            let n = poll(&fds, nfds_t(fds.count), timeout(pipes))
            if n < 0 && errno != EINTR { Thread.sleep(forTimeInterval: 0.001) }  // never spin on a persistent error
            if fds[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &drain, drain.count) > 0 {}
            }
            let now = ContinuousClock.now
            var kept: [Pipe] = []
            kept.reserveCapacity(pipes.count)
            for (i, pipe) in pipes.enumerated() {
                if n > 0 && fds[i + 1].revents != 0 { receive(pipe, finished: &finished) }
                if let first = pipe.entries.first?.deadline, first <= now, !pipe.entries.isEmpty {
                    fail(pipe, with: timedOut(pipe.connection), finished: &finished)
                }
                if keep(pipe, finished: &finished) { kept.append(pipe) }
            }
            pipes = kept
            finished.deliver()
        }
    }

    /// Milliseconds `poll` may sleep: until the nearest deadline, or the idle limit with nothing in flight.
    private func timeout(_ pipes: [Pipe]) -> Int32 {
        guard !pipes.isEmpty else { return Self.idleLimit }
        guard let nearest = pipes.lazy.compactMap({ $0.entries.first?.deadline }).min() else { return -1 }
        let (seconds, attoseconds) = ContinuousClock.now.duration(to: nearest).components
        return Int32(clamping: max(0, min(seconds, 60) * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
    }

    /// Starts a lent connection's first statement (a connection the loop already holds never comes back here).
    private func open(_ job: Job, into pipes: inout [Pipe], finished: inout Finished) {
        let pipe = Pipe(connection: job.connection, lease: job.lease)
        let handle = pipe.connection.handle
        guard !pipe.connection.isBroken, PQstatus(handle) == CONNECTION_OK else {
            pipe.connection.isBroken = true
            finished.replies.append(
                (
                    job.reply,
                    .answered(PostgresLoopAnswer(error: .connectionLost("the connection to the server is closed")))
                ))
            finished.released.append(job.lease)
            return
        }
        // Room for new prepared statements: DEALLOCATE cannot run in pipeline mode, where a full cache sends unnamed.
        if pipe.connection.cache.count >= PostgresConnection.cacheLimit { pipe.connection.evictAll() }
        guard PQenterPipelineMode(handle) == 1 else {
            finished.replies.append((job.reply, .answered(PostgresLoopAnswer(error: lost(pipe.connection)))))
            finished.released.append(job.lease)
            return
        }
        send(job.statement, reply: job.reply, on: pipe, finished: &finished)
        if keep(pipe, finished: &finished) { pipes.append(pipe) }
    }

    /// Tops the pipe up from the pool's queue; when nothing is left in flight, leaves pipeline mode and gives the
    /// connection back. Returns whether the loop keeps the pipe.
    private func keep(_ pipe: Pipe, finished: inout Finished) -> Bool {
        while pipe.entries.count < pipe.depth, !pipe.connection.isBroken, let (statement, reply) = pipe.lease.next() {
            guard let statement = statement as? PostgresLoopStatement else {
                finished.replies.append(
                    (reply, .answered(PostgresLoopAnswer(error: .connectionFailed("not a PostgreSQL statement")))))
                continue
            }
            send(statement, reply: reply, on: pipe, finished: &finished)
        }
        guard pipe.entries.isEmpty else { return true }
        if !pipe.connection.isBroken && PQexitPipelineMode(pipe.connection.handle) != 1 {
            pipe.connection.isBroken = true  // the ordinary path cannot use it in pipeline mode: the pool drops it
        }
        finished.released.append(pipe.lease)
        return false
    }

    /// Sends a statement (its PREPARE first when the connection has not prepared it), each with its own Sync.
    private func send(_ statement: PostgresLoopStatement, reply: LoopReply, on pipe: Pipe, finished: inout Finished) {
        send(Entry(statement, reply: reply), on: pipe, finished: &finished)
    }

    /// Sends an entry's statement (again, after a stale plan) at the end of the pipe.
    private func send(_ entry: Entry, on pipe: Pipe, finished: inout Finished) {
        PostgresLoopCounters.statements.add(1, ordering: .relaxed)
        if !pipe.entries.isEmpty { PostgresLoopCounters.pipelined.add(1, ordering: .relaxed) }
        let connection = pipe.connection
        let handle = connection.handle
        let statement = entry.statement
        entry.deadline = nil
        if pipe.entries.isEmpty { entry.deadline = connection.callTimeout.map { ContinuousClock.now + $0 } }
        let key = statement.key
        let binds = statement.binds
        var sent: Int32 = 1
        if connection.usesNamedStatements,
            connection.cache[key] != nil || connection.cache.count < PostgresConnection.cacheLimit
        {
            var name = connection.cache[key]
            if name == nil {
                let fresh = connection.newStatementName()
                sent = key.types.withUnsafeBufferPointer { types in
                    PQsendPrepare(handle, fresh, key.sql, Int32(key.types.count), types.baseAddress)
                }
                if sent == 1 { sent = PQpipelineSync(handle) }
                entry.preparing = fresh
                name = fresh
            }
            if sent == 1, let name {
                sent = binds.withParameters { values, lengths, formats in
                    PQsendQueryPrepared(handle, name, Int32(binds.count), values, lengths, formats, 0)
                }
            }
        } else {
            sent = key.types.withUnsafeBufferPointer { types in
                binds.withParameters { values, lengths, formats in
                    PQsendQueryParams(
                        handle, key.sql, Int32(binds.count), types.baseAddress, values, lengths, formats, 0)
                }
            }
        }
        if sent == 1 { sent = PQpipelineSync(handle) }
        pipe.entries.append(entry)
        if sent != 1 { fail(pipe, with: lost(connection), finished: &finished) }
    }

    /// Reads what arrived on a pipe and finishes each statement whose answer is whole, in order.
    private func receive(_ pipe: Pipe, finished: inout Finished) {
        let connection = pipe.connection
        let handle = connection.handle
        if PQconsumeInput(handle) == 0 {
            fail(pipe, with: lost(connection), finished: &finished)
            return
        }
        var idle = false
        while PQisBusy(handle) == 0, let entry = pipe.entries.first {
            guard let result = PQgetResult(handle) else {
                // The end of one statement's results (its Sync follows), or nothing more to read for now.
                if idle { break }
                idle = true
                continue
            }
            idle = false
            switch PQresultStatus(result) {
            case PGRES_PIPELINE_SYNC:
                PQclear(result)
                if let name = entry.preparing {
                    entry.preparing = nil
                    if let failure = entry.failure {
                        entry.prepareFailure = failure
                        entry.failure = nil
                    } else {
                        connection.cache[entry.statement.key] = name
                    }
                    continue
                }
                pipe.entries.removeFirst()
                pipe.entries.first?.deadline = connection.callTimeout.map { ContinuousClock.now + $0 }
                if let failure = entry.failure, failure.isStalePlan, !entry.replanned {
                    // A table changed under the cached plan: prepared afresh and sent again on this connection, once,
                    // as the ordinary path does (its results so far are dropped: a stale plan fails before any row).
                    PostgresLoopCounters.replans.add(1, ordering: .relaxed)
                    connection.cache[entry.statement.key] = nil
                    entry.replanned = true
                    entry.failure = nil
                    entry.results.forEach { PQclear($0) }
                    entry.results = []
                    send(entry, on: pipe, finished: &finished)
                    continue
                }
                finished.replies.append((entry.reply, outcome(of: entry, on: connection)))
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
        if PQstatus(handle) != CONNECTION_OK { fail(pipe, with: lost(connection), finished: &finished) }
    }

    /// A finished statement's outcome.
    private func outcome(of entry: Entry, on connection: PostgresConnection) -> LoopOutcome {
        let shape = entry.statement.shape
        if let failure = entry.prepareFailure ?? entry.failure {
            entry.results.forEach { PQclear($0) }
            entry.results = []
            if failure.isStalePlan { connection.cache[entry.statement.key] = nil }  // stale again after a new PREPARE
            return .answered(PostgresLoopAnswer(error: connection.fail(failure, shape)))
        }
        let answer = PostgresLoopAnswer(results: entry.results, changed: entry.changed)
        entry.results = []
        return .answered(answer)
    }

    /// Ends every statement in flight on a pipe with `error`; its connection is broken (the pool drops it).
    private func fail(_ pipe: Pipe, with error: StrataError, finished: inout Finished) {
        pipe.connection.isBroken = true
        for entry in pipe.entries {
            entry.results.forEach { PQclear($0) }
            entry.results = []
            finished.replies.append((entry.reply, .answered(PostgresLoopAnswer(error: error))))
        }
        pipe.entries.removeAll()
    }

    /// The error for a connection libpq could not send on or read from, which is marked broken.
    private func lost(_ connection: PostgresConnection) -> StrataError {
        connection.isBroken = true
        return .connectionLost(PostgresConnector.tidy(String(cString: PQerrorMessage(connection.handle))))
    }

    /// The error for a statement that outlived its deadline.
    private func timedOut(_ connection: PostgresConnection) -> StrataError {
        let limit = connection.callTimeout.map { "\($0)" } ?? "the deadline"
        return .connectionLost(
            "no answer from the server within \(limit) (statement_timeout plus "
                + "\(PostgresConnectionOptions.answerGrace) ms): it is frozen or the network is down; "
                + "the connection was discarded")
    }
}
